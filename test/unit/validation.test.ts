import {
	checkArkAddress,
	checkBitcoinAddress,
	checkCentAmount,
	checkCollateralAddress,
	checkCompressedPublicKey,
	checkDerivationPath,
	checkEmail,
	checkLocale,
	checkOneOf,
	checkName,
	checkPositiveAmount,
	checkReferralCode,
	checkStablecoinAddress,
	checkText,
	checkTimezone,
	checkUuid,
	checkWholeDays,
	describeValue,
	holdsLendasatKey,
	parseJsonObject,
	toCents,
	toNumber,
} from '../../nodes/LendasatBorrower/validation/checks';
import { checkOwnApiKey } from '../../nodes/LendasatBorrower/validation/apiKeys';
import {
	checkAccountNumber,
	checkBankText,
	checkBic,
	checkIban,
} from '../../nodes/LendasatBorrower/validation/bankDetails';

const MAINNET_P2WPKH = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const MAINNET_P2TR = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';
const MAINNET_P2PKH = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
const MAINNET_P2SH = '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy';
const TESTNET_P2WPKH = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const TESTNET_P2PKH = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
const TESTNET_P2SH = '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc';
const REGTEST_P2WPKH = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const FUTURE_WITNESS_VERSION = 'bc1zw508d6qejxtdg4y5r3zarvary0c5xw7k0w7t5p';

describe('describeValue', () => {
	test.each([
		['abc', '"abc"'],
		['', '""'],
		['a'.repeat(40), `"${'a'.repeat(40)}"`],
		['a'.repeat(41), `"${'a'.repeat(40)}…"`],
		['line\nbreak "quoted"', '"line\\nbreak \\"quoted\\""'],
		['🙂'.repeat(45), `"${'🙂'.repeat(40)}…"`],
		[42, '42'],
		[-1.5, '-1.5'],
		[Number.NaN, 'NaN'],
		[Number.POSITIVE_INFINITY, 'Infinity'],
		[true, 'true'],
		[BigInt(7), '7'],
		[undefined, 'nothing'],
		[null, 'null'],
		[[1, 2], '[1,2]'],
		[{ a: 1 }, '{"a":1}'],
		[{ long: 'x'.repeat(60) }, `{"long":"${'x'.repeat(31)}…`],
		[() => 1, 'a function'],
		[Symbol('s'), 'a symbol'],
	])('%p → %s', (value, expected) => {
		expect(describeValue(value)).toBe(expected);
	});

	test('objects that cannot be serialised', () => {
		const circular: Record<string, unknown> = {};
		circular.self = circular;
		expect(describeValue(circular)).toBe('an object');
		expect(describeValue([BigInt(1)])).toBe('a list');
	});
});

describe('checkName', () => {
	test.each([
		'Satoshi Nakamoto',
		'A',
		'  Ada Lovelace  ',
		'Jürgen Müller-Lüdenscheidt',
		'山田太郎',
		'x'.repeat(100),
		` ${'x'.repeat(100)} `,
	])('accepts %j', (value) => {
		expect(checkName(value)).toBeNull();
	});

	test.each([
		['', /^Must not be empty\. Enter a name like "Satoshi Nakamoto"\.$/],
		['   \t\n', /^Must not be empty/],
		['x'.repeat(101), /^Too long: 101 characters, at most 100 are allowed\.$/],
		['🙂'.repeat(101), /^Too long: 101 characters/],
		[42, /^Expected a name as text, like "Satoshi Nakamoto", got 42\.$/],
		[undefined, /got nothing\.$/],
		[null, /got null\.$/],
		[['Ada'], /got \["Ada"\]\.$/],
	])('rejects %p', (value, message) => {
		expect(checkName(value)).toMatch(message);
	});

	test('counts characters, not UTF-16 units', () => {
		expect(checkName('🙂'.repeat(100))).toBeNull();
	});
});

describe('checkEmail', () => {
	test.each([
		'name@example.com',
		'first.last@example.co.uk',
		'first+tag@sub.example.org',
		"o'brien@example.ie",
		'user_name-1@example-domain.io',
		'  name@example.com  ',
		'NAME@EXAMPLE.COM',
		'a@b.de',
		'jürgen@müller.de',
		'name@example.xn--p1ai',
		`${'a'.repeat(64)}@example.com`,
		`a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}`,
	])('accepts %j', (value) => {
		expect(checkEmail(value)).toBeNull();
	});

	test.each([
		['', /^Must not be empty\. Enter an e-mail address like name@example\.com\.$/],
		['name', /^"name" has no @\. An e-mail address looks like name@example\.com\.$/],
		['name@@example.com', /has more than one @/],
		['a@b@example.com', /has more than one @/],
		['@example.com', /has nothing before the @/],
		['name@', /has nothing after the @/],
		['name@localhost', /has no domain ending such as \.com/],
		['name@example.c', /does not end in a real domain ending/],
		['name@example.123', /does not end in a real domain ending/],
		['name@example..com', /invalid domain/],
		['name@.example.com', /invalid domain/],
		['name@example.com.', /invalid domain/],
		['name@-example.com', /invalid domain/],
		['name@exam_ple.com', /invalid domain/],
		['na me@example.com', /^"na me@example\.com" contains spaces\./],
		['name@exa mple.com', /contains spaces/],
		['.name@example.com', /wrong place before the @/],
		['name.@example.com', /wrong place before the @/],
		['first..last@example.com', /wrong place before the @/],
		['"quoted"@example.com', /wrong place before the @/],
		['name(comment)@example.com', /wrong place before the @/],
		[
			`${'a'.repeat(65)}@example.com`,
			/^The part before the @ is too long: 65 characters, at most 64 are allowed\.$/,
		],
		[
			`a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`,
			/^Too long: 255 characters, at most 254/,
		],
		[42, /^Expected an e-mail address like name@example\.com, got 42\.$/],
		[undefined, /got nothing\.$/],
	])('rejects %p', (value, message) => {
		expect(checkEmail(value)).toMatch(message);
	});
});

describe('checkTimezone', () => {
	test.each([
		'Europe/Berlin',
		'America/New_York',
		'Asia/Calcutta',
		'Asia/Kolkata',
		'America/Buenos_Aires',
		' Europe/Berlin ',
	])('accepts %j', (value) => {
		expect(checkTimezone(value)).toBeNull();
	});

	test.each([
		[
			'europe/berlin',
			/^"europe\/berlin" has the wrong capitalisation; write it exactly as Europe\/Berlin\.$/,
		],
		['EUROPE/BERLIN', /write it exactly as Europe\/Berlin\./],
		['america/new_york', /write it exactly as America\/New_York\./],
		[
			'Australia/Act',
			/^"Australia\/Act" has the wrong capitalisation; write it exactly as Australia\/ACT\.$/,
		],
		['asia/ho_chi_minh', /write it exactly as Asia\/Ho_Chi_Minh\./],
		['africa/dar_es_salaam', /write it exactly as Africa\/Dar_es_Salaam\./],
		[
			'US/Eastern',
			/^"US\/Eastern" is not a time zone of the form Area\/City; the matching one is America\/New_York\.$/,
		],
		[
			'UTC',
			/^"UTC" is not a time zone of the form Area\/City\. Use a name like Europe\/Berlin or America\/New_York/,
		],
		['GMT', /Use a name like Europe\/Berlin/],
		['EST', /Use a name like Europe\/Berlin/],
		['Etc/GMT+5', /Use a name like Europe\/Berlin/],
		['Mars/Olympus', /^"Mars\/Olympus" is not a time zone/],
		['Europe/Atlantis', /^"Europe\/Atlantis" is not a time zone/],
		['', /^Must not be empty\. Enter a time zone like Europe\/Berlin\.$/],
		[1, /^Expected a time zone like Europe\/Berlin, got 1\.$/],
		[null, /got null\.$/],
	])('rejects %p', (value, message) => {
		expect(checkTimezone(value)).toMatch(message);
	});

	test('corrects the case of an alias the runtime does not list', () => {
		expect(checkTimezone('asia/kolkata')).toMatch(/write it exactly as Asia\/Kolkata\.$/);
	});
});

describe('checkUuid', () => {
	test.each([
		'3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		'3F2B8C1E-9D4A-4B6F-8E2A-1C5D7F9A0B3E',
		'00000000-0000-0000-0000-000000000000',
		'01890a5d-ac96-774b-bcce-b302099a8057',
		'  3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e\n',
	])('accepts %j', (value) => {
		expect(checkUuid(value)).toBeNull();
	});

	test.each([
		['', /^Must not be empty\. Enter an ID like 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e\.$/],
		['3f2b8c1e 9d4a-4b6f-8e2a-1c5d7f9a0b3e', /contains spaces\. An ID looks like 3f2b8c1e-/],
		['3f2b8c1e-9d4a-4b6f-8e2a -1c5d7f9a0b3e', /contains spaces/],
		['3f2b8c1e9d4a4b6f8e2a1c5d7f9a0b3e', /is missing the dashes/],
		[
			'3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3',
			/not an ID of the form 8-4-4-4-12 hexadecimal characters/,
		],
		['3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e0', /not an ID of the form/],
		['3f2b8c1g-9d4a-4b6f-8e2a-1c5d7f9a0b3e', /not an ID of the form/],
		['{3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e}', /not an ID of the form/],
		['3f2b8c1e_9d4a_4b6f_8e2a_1c5d7f9a0b3e', /not an ID of the form/],
		['loan-123', /^"loan-123" is not an ID/],
		[123, /^Expected an ID like 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e, got 123\.$/],
		[undefined, /got nothing\.$/],
	])('rejects %p', (value, message) => {
		expect(checkUuid(value)).toMatch(message);
	});
});

describe('checkText (free text others read: a reason, a message)', () => {
	const line = checkText({ what: 'a reason', example: '"Other"', maxLength: 10, multiline: false });
	const page = checkText({ what: 'a message', example: '"Hi"', maxLength: 10, multiline: true });

	test.each([['Other'], ['  Other  '], ['ten chars!'], [42], ['Grüße 🙂']])(
		'accepts %j on one line',
		(value) => expect(line(value)).toBeNull(),
	);

	test.each([['two\nlines'], ['tab\there'], ['a\r\nb']])('accepts %j in a message', (value) =>
		expect(page(value)).toBeNull(),
	);

	test.each([
		['', /^Must not be empty\. Enter a reason, e\.g\. "Other"\.$/],
		['   ', /^Must not be empty/],
		[null, /^Expected a reason as text, got null/],
		[{}, /^Expected a reason as text/],
		['two\nlines', /contains a line break, tab or other control character: keep it to one line/],
		['eleven char', /^Too long: 11 characters, at most 10 are allowed\.$/],
	])('refuses %j on one line', (value, problem) => expect(line(value)).toMatch(problem));

	test.each([
		['bell\u0007', /control character other than a line break or tab/],
		['esc\u001b[0m', /control character other than a line break or tab/],
		['🙂'.repeat(11), /^Too long: 11 characters/],
	])('refuses %j in a message', (value, problem) => expect(page(value)).toMatch(problem));

	test.each([
		['key lndst_sk_be30abf9b27c_VvXIbqhMFk2S5PYGYG0IW4noidFYchQwqD6EJEFKtVu'],
		['LNDST_SK_abc'],
		['master las-fRBjjmgyCx6uZoJ7SxB0 here'],
	])('refuses text holding a Lendasat key without repeating it: %s', (value) => {
		const problem = checkText({
			what: 'a message',
			example: '"Hi"',
			maxLength: 5000,
			multiline: true,
		})(value);
		expect(problem).toBe(
			'Holds what looks like a Lendasat API key (not shown). Others read this text: remove the key.',
		);
	});

	test.each([
		['las-vegas trip', false],
		['classes-abc', false],
		['alas-fRBjjmgyCx6uZoJ7SxB0', false],
		['(las-fRBjjmgyCx6uZoJ7SxB0)', true],
		['lndst_sk_', true],
	])('holdsLendasatKey(%j) is %s', (text, holds) => expect(holdsLendasatKey(text)).toBe(holds));
});

describe('toNumber', () => {
	test.each([
		[250, 250],
		[250.5, 250.5],
		['250', 250],
		['250.5', 250.5],
		[' 250.5 ', 250.5],
		['0.01', 0.01],
		['.5', 0.5],
		['5.', 5],
		['+5', 5],
		['-5', -5],
		['007', 7],
	])('%p → %p', (value, expected) => {
		expect(toNumber(value)).toBe(expected);
	});

	test.each([
		'',
		' ',
		'abc',
		'1e3',
		'0x10',
		'1_000',
		'1,000',
		'250,5',
		'1.2.3',
		'Infinity',
		'NaN',
		'5 USD',
		null,
		undefined,
		true,
		[],
		{},
		[5],
	])('%p → NaN', (value) => {
		expect(toNumber(value)).toBeNaN();
	});

	test('passes numbers through unchanged, including NaN and Infinity', () => {
		expect(toNumber(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
		expect(toNumber(Number.NaN)).toBeNaN();
	});
});

describe('checkPositiveAmount', () => {
	test.each([250, 250.5, 0.01, 1e9, 0.1 + 0.2, '250', '250.5', ' 1000 ', '0.12'])(
		'accepts %p',
		(value) => {
			expect(checkPositiveAmount(value)).toBeNull();
		},
	);

	test.each([
		[0, /^Must be greater than 0, got 0\.$/],
		['0', /^Must be greater than 0, got "0"\.$/],
		['0.00', /^Must be greater than 0/],
		[-1, /^Must be greater than 0, got -1\.$/],
		['-250.5', /^Must be greater than 0/],
		[Number.NaN, /^Expected an amount like 250 or 250\.5, got NaN\.$/],
		[Number.POSITIVE_INFINITY, /^Must be a finite amount like 250 or 250\.5, got Infinity\.$/],
		[Number.NEGATIVE_INFINITY, /^Must be a finite amount/],
		['', /^Must not be empty\. Enter an amount like 250 or 250\.5\.$/],
		['250,5', /^"250,5" uses a comma; write the decimal separator as a dot, like 250\.5\.$/],
		['abc', /^Expected an amount like 250 or 250\.5, got "abc"\.$/],
		['1e3', /^Expected an amount/],
		['Infinity', /^Expected an amount/],
		[null, /got null\.$/],
		[undefined, /got nothing\.$/],
		[true, /got true\.$/],
		[{ amount: 5 }, /got \{"amount":5\}\.$/],
		// Lendasat keeps cents: 0.001 would be sent as nothing, and 0.123456 as 0.12.
		[0.001, /^Must have at most 2 decimal places \(cents\), like 250 or 250\.5, got 0\.001\.$/],
		['0.123456', /^Must have at most 2 decimal places/],
		[Number.MIN_VALUE, /^Must be at least 0\.01, got 5e-324\.$/],
		[1.79e308, /^Must be at most 1,000,000,000, got 1\.79e\+308\.$/],
		[1e9 + 0.01, /^Must be at most 1,000,000,000/],
	])('rejects %p', (value, message) => {
		expect(checkPositiveAmount(value)).toMatch(message);
	});

	it('sends cents: the binary noise of an expression (0.1 + 0.2) is rounded away', () => {
		expect(toCents(0.1 + 0.2)).toBe(0.3);
		expect(toCents(1500.25)).toBe(1500.25);
	});
});

describe('checkCentAmount (money in whole cents, with a bound)', () => {
	const checkCardAmount = checkCentAmount(5000, 'a Moon card holds at most 5000 USD');

	test.each([0.01, 0.07, 12.34, 100, 4999.99, 5000, '49.99', ' 250 '])('accepts %p', (value) => {
		expect(checkCardAmount(value)).toBeNull();
	});

	test.each([
		[0, /^Must be greater than 0/],
		[-5, /^Must be greater than 0/],
		[12.345, /^Must have at most 2 decimal places \(cents\), like 250 or 250\.5, got 12\.345\.$/],
		[0.001, /^Must have at most 2 decimal places/],
		[1e-7, /^Must have at most 2 decimal places/],
		[5000.01, /^Must be at most 5000, got 5000\.01: a Moon card holds at most 5000 USD\.$/],
		[1e21, /^Must be at most 1,000,000,000/],
		[Number.POSITIVE_INFINITY, /^Must be a finite amount/],
		['12,50', /uses a comma/],
	])('rejects %p', (value, message) => {
		expect(checkCardAmount(value)).toMatch(message);
	});
});

describe('checkWholeDays', () => {
	test.each([1, 30, 365, 36500, '30', ' 7 ', 30.0])('accepts %p', (value) => {
		expect(checkWholeDays(value)).toBeNull();
	});

	test.each([
		[0, /^Must be at least 1 day, got 0\.$/],
		[-1, /^Must be at least 1 day, got -1\.$/],
		['-30', /^Must be at least 1 day/],
		[1.5, /^Must be a whole number of days like 30, got 1\.5\.$/],
		['1.5', /^Must be a whole number of days like 30, got "1\.5"\.$/],
		[36501, /^Must be at most 36500 days \(100 years\), got 36501\.$/],
		[Number.NaN, /^Expected a whole number of days like 30, got NaN\.$/],
		[Number.POSITIVE_INFINITY, /^Must be a whole number of days/],
		['', /^Must not be empty\. Enter a whole number of days like 30\.$/],
		['thirty', /^Expected a whole number of days like 30, got "thirty"\.$/],
		[null, /got null\.$/],
		[undefined, /got nothing\.$/],
	])('rejects %p', (value, message) => {
		expect(checkWholeDays(value)).toMatch(message);
	});
});

describe('checkBitcoinAddress', () => {
	const mainnetAddresses = [
		MAINNET_P2WPKH,
		MAINNET_P2TR,
		MAINNET_P2PKH,
		MAINNET_P2SH,
		MAINNET_P2WPKH.toUpperCase(),
	];
	const testAddresses = [TESTNET_P2WPKH, TESTNET_P2PKH, TESTNET_P2SH, REGTEST_P2WPKH];

	test.each(mainnetAddresses)('mainnet environment accepts %s', (address) => {
		expect(checkBitcoinAddress(address, 'mainnet')).toBeNull();
		expect(checkBitcoinAddress(address, 'any')).toBeNull();
	});

	test.each(testAddresses)('test environment accepts %s', (address) => {
		expect(checkBitcoinAddress(address, 'test')).toBeNull();
		expect(checkBitcoinAddress(address, 'any')).toBeNull();
	});

	test('trims surrounding whitespace', () => {
		expect(checkBitcoinAddress(`  ${MAINNET_P2WPKH}\n`, 'mainnet')).toBeNull();
	});

	test.each(mainnetAddresses)('test environment rejects mainnet %s', (address) => {
		expect(checkBitcoinAddress(address, 'test')).toBe(
			`${describeValue(address)} is a mainnet address, but the credential's environment is Development ` +
				'(test network, addresses start with tb1, m, n or 2).',
		);
	});

	test.each([
		[TESTNET_P2WPKH, 'a test-network (testnet/signet)'],
		[TESTNET_P2PKH, 'a test-network (testnet/signet)'],
		[TESTNET_P2SH, 'a test-network (testnet/signet)'],
		[REGTEST_P2WPKH, 'a regtest'],
	])('mainnet environment rejects %s', (address, network) => {
		expect(checkBitcoinAddress(address, 'mainnet')).toBe(
			`${describeValue(address)} is ${network} address, but the credential's environment is Production ` +
				'(mainnet, addresses start with bc1, 1 or 3).',
		);
	});

	test.each([
		[
			'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp',
			'mainnet',
			/^"bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5m…" is not a valid Bitcoin address: checksum does not match \(a character is mistyped\)\.$/,
		],
		[
			'1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb',
			'any',
			/is not a valid Bitcoin address: checksum does not match/,
		],
		[
			'0x52908400098527886E0F7030069857D2E4169EE7',
			'mainnet',
			/is not a valid Bitcoin address: not a Bitcoin address \(unknown prefix\)\.$/,
		],
		[`bitcoin:${MAINNET_P2WPKH}`, 'mainnet', /payment link/],
		['bc1qar0srrr7xfkvy5l643 lydnw9re59gtzzwf5mdq', 'mainnet', /contains spaces/],
		[
			FUTURE_WITNESS_VERSION,
			'any',
			/uses a SegWit version that wallets do not support yet; coins sent there could be lost/,
		],
		['', 'mainnet', /^Must not be empty\. Enter a Bitcoin address like bc1q/],
		['  ', 'test', /^Must not be empty\. Enter a Bitcoin address like tb1q/],
		[
			42,
			'test',
			/^Expected a Bitcoin address like tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx, got 42\.$/,
		],
		[undefined, 'mainnet', /^Expected a Bitcoin address like bc1q\w+, got nothing\.$/],
	] as const)('rejects %p (expected %s)', (value, expected, message) => {
		expect(checkBitcoinAddress(value, expected)).toMatch(message);
	});

	test('the example addresses in messages are valid for their network', () => {
		expect(checkBitcoinAddress(TESTNET_P2WPKH, 'test')).toBeNull();
		expect(checkBitcoinAddress(MAINNET_P2WPKH, 'mainnet')).toBeNull();
	});
});

/** Arkade's documented keys as Ark addresses (encoded and checked in bitcoin.test.ts). */
const MAINNET_ARK =
	'ark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqfdy8nk05rsmrf8h94j26905e7n6sng8y059z8ykn2j5xcuw4xt8ngt9rw';
const TESTNET_ARK =
	'tark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqfdy8nk05rsmrf8h94j26905e7n6sng8y059z8ykn2j5xcuw4xt846qj6x';
/** The same server key with an all-zero VTXO key: valid bech32m, but 0 is no x coordinate on secp256k1. */
const OFF_CURVE_ARK =
	'ark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq0yft3k';

describe('checkArkAddress', () => {
	test.each([
		[MAINNET_ARK, 'mainnet'],
		[MAINNET_ARK, 'any'],
		[TESTNET_ARK, 'test'],
		[TESTNET_ARK, 'any'],
		[`  ${TESTNET_ARK}\n`, 'test'],
	] as const)('accepts %s in %s', (address, network) => {
		expect(checkArkAddress(address, network)).toBeNull();
	});

	test('names the network an Ark address of the other one belongs to', () => {
		expect(checkArkAddress(MAINNET_ARK, 'test')).toBe(
			`${describeValue(MAINNET_ARK)} is a mainnet Ark address, but the credential's environment is Development ` +
				'(test network, addresses start with tb1, m, n or 2); its Ark addresses start with tark1….',
		);
		expect(checkArkAddress(TESTNET_ARK, 'mainnet')).toMatch(
			/is a test-network Ark address, but the credential's environment is Production .*start with ark1…\.$/,
		);
	});

	test.each([
		[OFF_CURVE_ARK, /its VTXO key is not a point on the secp256k1 curve/],
		[MAINNET_ARK.slice(0, -1), /is not a valid Ark address: checksum does not match/],
		['', /^Must not be empty\. Enter the Ark address \(ark1…, about 114 characters\)/],
		[7, /^Expected an Ark address, got 7\./],
	])('refuses %p', (value, message) => {
		expect(checkArkAddress(value, 'mainnet')).toMatch(message);
	});
});

describe('checkCollateralAddress: the kind the offer takes', () => {
	test('an Arkade offer takes an Ark address, and says so to an on-chain one', () => {
		expect(checkCollateralAddress(TESTNET_ARK, 'test', 'ark')).toBeNull();
		expect(checkCollateralAddress(TESTNET_P2WPKH, 'test', 'ark')).toBe(
			`This offer takes Arkade collateral: enter an Ark address (tark1…) from your Ark wallet, not ${describeValue(TESTNET_P2WPKH)}, which is an on-chain Bitcoin address.`,
		);
		expect(checkCollateralAddress(MAINNET_P2WPKH, 'mainnet', 'ark')).toMatch(
			/^This offer takes Arkade collateral: enter an Ark address \(ark1…\)/,
		);
	});

	test('an on-chain offer takes a Bitcoin address, and says so to an Ark one', () => {
		expect(checkCollateralAddress(TESTNET_P2WPKH, 'test', 'onchain')).toBeNull();
		expect(checkCollateralAddress(TESTNET_ARK, 'test', 'onchain')).toBe(
			`This offer takes on-chain Bitcoin collateral: enter a Bitcoin address like ${TESTNET_P2WPKH}, not ${describeValue(TESTNET_ARK)}, which is an Ark address (only for Arkade offers).`,
		);
	});

	test('where the offer is not known, either valid kind passes, on the environment’s network', () => {
		expect(checkCollateralAddress(TESTNET_ARK, 'test', 'either')).toBeNull();
		expect(checkCollateralAddress(TESTNET_P2WPKH, 'test', 'either')).toBeNull();
		expect(checkCollateralAddress(MAINNET_ARK, 'any', 'either')).toBeNull();
		expect(checkCollateralAddress(TESTNET_ARK, 'mainnet', 'either')).toMatch(
			/is a test-network Ark address/,
		);
		expect(checkCollateralAddress(MAINNET_P2WPKH, 'test', 'either')).toMatch(
			/is a mainnet address, but the credential's environment is Development/,
		);
	});

	test('an address of neither kind is named for both', () => {
		expect(
			checkCollateralAddress('0x52908400098527886E0F7030069857D2E4169EE7', 'test', 'either'),
		).toMatch(
			/not a Bitcoin address \(unknown prefix\)\. For an Arkade offer, enter an Ark address \(tark1…\) instead\.$/,
		);
		expect(
			checkCollateralAddress('0x52908400098527886E0F7030069857D2E4169EE7', 'test', 'ark'),
		).toMatch(/is not a valid Ark address: not an Ark address/);
		expect(checkCollateralAddress(undefined, 'test', 'either')).toMatch(
			/^Expected a Bitcoin address/,
		);
	});
});

describe('checkStablecoinAddress', () => {
	test.each([
		['EVM (checksummed)', '0x52908400098527886E0F7030069857D2E4169EE7'],
		['EVM (lower case)', '0xde709f2102306220921060314715629080e2fb77'],
		['Starknet', '0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7'],
		['Starknet (short)', '0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d'],
		['Solana', '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV'],
		['Solana (44)', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
		[
			'Liquid confidential',
			'VJLCxh1qbdhNYD9bk8mZwYUYBSVDJhQh7G1r7CWULt7ALGHAc1fbj7HGdwLGMXhvXhZVahs33mWNM5oq',
		],
		[
			'Liquid segwit',
			'lq1qqf8er278e6nyvuwtgf39e6ewvdcnjupn9a86rzpx655y5lhkt0walu3djf9cklkxd3ryld97hu8h3xepw7sh2rlu7q45dcew5',
		],
		['Tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
		['with surrounding whitespace', '  0x52908400098527886E0F7030069857D2E4169EE7\n'],
		['exactly 20 characters', 'abcdefghijklmnopqrst'],
		['exactly 128 characters', 'a'.repeat(128)],
	])('accepts %s', (_label, value) => {
		expect(checkStablecoinAddress(value)).toBeNull();
	});

	test.each([
		[
			'',
			/^Must not be empty\. Enter a wallet address like 0x52908400098527886E0F7030069857D2E4169EE7\.$/,
		],
		['0x5290 8400098527886E0F7030069857D2E4169EE7', /contains spaces/],
		['0x52908400098527886E0F7030069857D2E4169EE7\u200b', /does not belong in an address/],
		['0x52908400098527886Е0F7030069857D2E4169EE7', /does not belong in an address/],
		['short', /^"short" is too short for a wallet address: 5 characters, at least 20\./],
		['a'.repeat(129), /^Too long for a wallet address: 129 characters, at most 128\./],
		[
			'0xZZ908400098527886E0F7030069857D2E4169EE7',
			/starts with 0x, so it must be 0x followed by up to 64 hexadecimal characters/,
		],
		[`0x${'a'.repeat(65)}`, /starts with 0x/],
		['0X52908400098527886E0F7030069857D2E4169EEG', /starts with 0x/],
		['0x-52908400098527886E0F7030069857D2E4169EE7', /starts with 0x/],
		[42, /^Expected a wallet address like 0x52908400098527886E0F7030069857D2E4169EE7, got 42\.$/],
		[null, /got null\.$/],
	])('rejects %p', (value, message) => {
		expect(checkStablecoinAddress(value)).toMatch(message);
	});
});

describe('parseJsonObject', () => {
	test.each([
		[{}, {}],
		[
			{ a: 1, nested: { b: [1, 2] } },
			{ a: 1, nested: { b: [1, 2] } },
		],
		['{"a": 1}', { a: 1 }],
		['  {"a": {"b": null}}  ', { a: { b: null } }],
		['{}', {}],
		['', {}],
		['   ', {}],
	])('accepts %p', (value, expected) => {
		expect(parseJsonObject(value)).toEqual({ value: expected });
	});

	test('accepts an object without a prototype', () => {
		const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
		expect(parseJsonObject(bare)).toEqual({ value: bare });
	});

	test.each([
		['{"a": 1', /^Not valid JSON: .*position.*\. Expected an object like \{"field": "value"\}\.$/],
		["{'a': 1}", /^Not valid JSON: .*position/],
		['{a: 1}', /^Not valid JSON: /],
		['{"a": 1,}', /^Not valid JSON: /],
		['not json', /^Not valid JSON: /],
		['[1, 2]', /^Expected a JSON object like \{"field": "value"\}, got \[1,2\]\.$/],
		['42', /^Expected a JSON object like \{"field": "value"\}, got 42\.$/],
		['"text"', /got "text"\.$/],
		['null', /got null\.$/],
		['true', /got true\.$/],
		[[1, 2], /got \[1,2\]\.$/],
		[42, /got 42\.$/],
		[null, /got null\.$/],
		[undefined, /got nothing\.$/],
		[new Date(0), /^Expected a JSON object/],
	])('rejects %p', (value, message) => {
		const result = parseJsonObject(value);
		expect('error' in result && result.error).toMatch(message);
	});

	test('keeps a "__proto__" key as plain data', () => {
		const result = parseJsonObject('{"__proto__": {"polluted": true}}');
		expect('value' in result && Object.keys(result.value)).toEqual(['__proto__']);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});

describe('checkCompressedPublicKey (borrower_pk)', () => {
	// The public keys of the private keys 1 and 2 (generator point G and 2G).
	const G = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
	const TWO_G = '02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5';

	it('accepts compressed keys on the curve, in either case and with surrounding spaces', () => {
		expect(checkCompressedPublicKey(G)).toBeNull();
		expect(checkCompressedPublicKey(TWO_G.toUpperCase())).toBeNull();
		expect(checkCompressedPublicKey(` ${'03' + G.slice(2)} `)).toBeNull();
	});

	test.each([
		['nothing', undefined, 'Expected a public key as text'],
		['a number', 2, 'Expected a public key as text'],
		['empty text', ' ', 'Must not be empty'],
		['too short', '02ab', 'has 4 characters instead of 66'],
		['not hex', `02${'g'.repeat(64)}`, 'is not hexadecimal'],
		['inner space', `${G.slice(0, 10)} ${G.slice(10)}`, 'contains spaces'],
		['the wrong prefix', `04${G.slice(2)}`, 'starts with 04 instead of 02 or 03'],
		['an uncompressed key', `04${G.slice(2)}${'0'.repeat(64)}`, 'is an uncompressed key'],
		['a point off the curve', `02${'0'.repeat(63)}5`, 'is not a point on the secp256k1 curve'],
		['x beyond the field', `02${'f'.repeat(64)}`, 'is not a point on the secp256k1 curve'],
	])('refuses %s', (_case, value, problem) => {
		const result = checkCompressedPublicKey(value);
		expect(result).toContain(problem);
		expect(result).toContain('66 hexadecimal characters starting with 02 or 03');
	});
});

describe('checkDerivationPath (borrower_derivation_path)', () => {
	test.each(["m/84'/0'/0'/0/0", 'm/84h/1h/0h/0/5', 'm/0', `m/${2 ** 31 - 1}'`])(
		'accepts %s',
		(path) => {
			expect(checkDerivationPath(path)).toBeNull();
		},
	);

	test.each([
		['no m', "84'/0'/0'", 'must start with m/'],
		['only m', 'm', 'names no child key after m'],
		['an empty step', "m/84'//0", 'where a child index like'],
		['a letter', 'm/84x/0', 'where a child index like'],
		['an index too large', `m/${2 ** 31}`, 'is larger than 2147483647'],
		['spaces', "m/84' /0", 'contains spaces'],
		['a number', 84, 'Expected a derivation path as text'],
	])('refuses %s', (_case, value, problem) => {
		expect(checkDerivationPath(value)).toContain(problem);
	});
});

describe('checkOneOf', () => {
	const loanType = checkOneOf(['StableCoin', 'Fiat']);
	it('accepts a listed value and refuses anything else, naming the choices', () => {
		expect(loanType('StableCoin')).toBeNull();
		expect(loanType(' Fiat ')).toBeNull();
		expect(loanType('stablecoin')).toBe('Expected one of StableCoin, Fiat, got "stablecoin".');
		expect(loanType({ a: 1 })).toContain('Expected one of StableCoin, Fiat');
	});
});

describe('checkLocale (User → Update)', () => {
	test.each(['en-US', 'de-DE', 'es', 'pt-BR', 'zh-Hant-TW', 'es-419'])('accepts %s', (locale) => {
		expect(checkLocale(locale)).toBeNull();
	});
	test.each([
		['de_DE', /underscore; write the tag with a dash, like de-DE/],
		['German', /not a language tag/],
		['EN-us', /not a language tag/],
		['', /Must not be empty/],
	])('refuses %j', (locale, problem) => {
		expect(checkLocale(locale)).toMatch(problem);
	});
});

describe('checkReferralCode (Account → Create With Own Key)', () => {
	test.each(['LAS-7KQ2M', 'demo'])('accepts %s', (code) =>
		expect(checkReferralCode(code)).toBeNull(),
	);
	test.each([
		['LAS 7KQ2M', /contains spaces/],
		['LAS-7KQ2M\u00e9', /does not belong/],
		['x'.repeat(65), /Too long/],
	])('refuses %j', (code, problem) => expect(checkReferralCode(code)).toMatch(problem));
});

describe('checkOwnApiKey (Account → Create With Own Key)', () => {
	const SECRET = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg';
	test.each([`lndst_sk_0a1b2c3d4e5f_${SECRET}`, `lndst_sk_0a1b2c3d4e5f_${'f'.repeat(64)}`])(
		'accepts Lendasat’s format (%#)',
		(key) => expect(checkOwnApiKey(key)).toBeNull(),
	);
	test.each([
		[`las-${SECRET}`, /does not start with lndst_sk_/],
		[`lndst_sk_0a1b2c3d4e5_${SECRET}`, /12 lower-case hexadecimal/],
		[`lndst_sk_0a1b2c3d4e5f_${SECRET.slice(0, 31)}`, /has 31 characters, not 32 to 128/],
		[`lndst_sk_0a1b2c3d4e5f_${SECRET.slice(0, 40)}!!!`, /other than letters and digits/],
		[`lndst_sk_0a1b2c3d4e5f_${SECRET}\n`.replace('\n', ' x'), /space or line break/],
	])('refuses a malformed key without repeating any of it (%#)', (key, problem) => {
		const found = checkOwnApiKey(key);
		expect(found).toMatch(problem);
		expect(found).not.toContain(SECRET.slice(0, 12));
		expect(found).not.toContain('0a1b2c3d4e5');
	});
});

describe('bank details (Contract → Send Fiat Details)', () => {
	test.each(['DE89 3704 0044 0532 0130 00', 'GB82WEST12345698765432', 'nl91abna0417164300'])(
		'accepts the IBAN %s',
		(iban) => expect(checkIban(iban)).toBeNull(),
	);
	test.each([
		['DE88 3704 0044 0532 0130 00', /wrong check digit/],
		['DE89', /not an IBAN/],
		['', /Must not be empty/],
	])('refuses the IBAN %j', (iban, problem) => expect(checkIban(iban)).toMatch(problem));
	test.each(['DEUTDEFF', 'deutdeff500', 'BOFAUS3N'])('accepts the BIC %s', (bic) =>
		expect(checkBic(bic)).toBeNull(),
	);
	test.each(['DEUTDEF', 'DEUTDEFF50', '1EUTDEFF'])('refuses the BIC %s', (bic) =>
		expect(checkBic(bic)).toMatch(/not a BIC/),
	);
	it('accepts account numbers with spaces, dashes and slashes, and refuses other characters', () => {
		expect(checkAccountNumber('000123456789')).toBeNull();
		expect(checkAccountNumber('12-3456/78 9')).toBeNull();
		expect(checkAccountNumber('123#456')).toMatch(/not an account number/);
	});
	it('takes one line of text of a limited length', () => {
		const check = checkBankText(10, 'Berlin');
		expect(check('Berlin')).toBeNull();
		expect(check('Ber\nlin')).toMatch(/line break/);
		expect(check('x'.repeat(11))).toMatch(/at most 10/);
		expect(check('  ')).toMatch(/Must not be empty\. Enter something like Berlin/);
	});
});
