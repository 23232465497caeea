import {
	decodeBase58,
	decodeBech32,
	parseArkAddress,
	parseBitcoinAddress,
	parseBitcoinTransaction,
	parseBitcoinTransactionHex,
	type BitcoinAddressType,
	type BitcoinNetwork,
	type ParsedTransaction,
} from '../../nodes/LendasatBorrower/validation/bitcoin';
import {
	checkFeeRate,
	checkSignedTransaction,
	checkTxid,
} from '../../nodes/LendasatBorrower/validation/checks';
import {
	arkAddress,
	bech32Encode,
	buildPsbt,
	parseTransactionHex,
	txidOf,
} from '../../dev/sandbox/bitcoin';
import { standInSign, unsignedTransactionOf } from '../../dev/sandbox/standInSigner';

// Test vectors copied from BIP-173 and BIP-350
// (https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki, …/bip-0350.mediawiki).

const BIP173_VALID_BECH32 = [
	'A12UEL5L',
	'a12uel5l',
	'an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs',
	'abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw',
	'11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j',
	'split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w',
	'?1ezyfcl',
];

const BIP350_VALID_BECH32M = [
	'A1LQFN3A',
	'a1lqfn3a',
	'an83characterlonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber11sg7hg6',
	'abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx',
	'11llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllludsr8',
	'split1checkupstagehandshakeupstreamerranterredcaperredlc445v',
	'?1v759aa',
];

const BIP173_INVALID_BECH32: Array<[string, string]> = [
	['\x201nwldj5', 'HRP character out of range'],
	['\x7f1axkwrx', 'HRP character out of range'],
	['\x801eym55h', 'HRP character out of range'],
	[
		'an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx',
		'overall max length exceeded',
	],
	['pzry9x0s0muk', 'No separator character'],
	['1pzry9x0s0muk', 'Empty HRP'],
	['x1b4n0q5v', 'Invalid data character'],
	['li1dgmt3', 'Too short checksum'],
	['de1lg7wt\xff', 'Invalid character in checksum'],
	['A1G7SGD8', 'checksum calculated with uppercase form of HRP'],
	['10a06t8', 'empty HRP'],
	['1qzzfhee', 'empty HRP'],
];

const BIP350_INVALID_BECH32M: Array<[string, string]> = [
	['\x201xj0phk', 'HRP character out of range'],
	['\x7f1g6xzxy', 'HRP character out of range'],
	['\x801vctc34', 'HRP character out of range'],
	[
		'an84characterslonghumanreadablepartthatcontainsthetheexcludedcharactersbioandnumber11d6pts4',
		'overall max length exceeded',
	],
	['qyrz8wqd2c9m', 'No separator character'],
	['1qyrz8wqd2c9m', 'Empty HRP'],
	['y1b0jsk6g', 'Invalid data character'],
	['lt1igcx5c0', 'Invalid data character'],
	['in1muywd', 'Too short checksum'],
	['mm1crxm3i', 'Invalid character in checksum'],
	['au1s5cgom', 'Invalid character in checksum'],
	['M1VUXWEZ', 'checksum calculated with uppercase form of HRP'],
	['16plkw9', 'empty HRP'],
	['1p2gdwpf', 'empty HRP'],
];

// [address, scriptPubKey hex] from BIP-350 (BIP-173's v0 vectors are included there).
const BIP350_VALID_ADDRESSES: Array<[string, string]> = [
	['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
	[
		'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
		'00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
	],
	[
		'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
		'5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
	],
	['BC1SW50QGDZ25J', '6002751e'],
	['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323'],
	[
		'tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy',
		'0020000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
	],
	[
		'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
		'5120000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433',
	],
	[
		'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
		'512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
	],
];

const BIP350_INVALID_ADDRESSES: Array<[string, string]> = [
	['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'Invalid human-readable part'],
	['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'Bech32 instead of Bech32m'],
	['tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf', 'Bech32 instead of Bech32m'],
	['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', 'Bech32 instead of Bech32m'],
	['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'Bech32m instead of Bech32'],
	['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', 'Bech32m instead of Bech32'],
	[
		'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4',
		'Invalid character in checksum',
	],
	['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'Invalid witness version'],
	['bc1pw5dgrnzv', 'Invalid program length (1 byte)'],
	[
		'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav',
		'Invalid program length (41 bytes)',
	],
	['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'Invalid program length for witness version 0'],
	['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'Mixed case'],
	[
		'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf',
		'zero padding of more than 4 bits',
	],
	[
		'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j',
		'Non-zero padding in 8-to-5 conversion',
	],
	['bc1gmk9yu', 'Empty data section'],
];

const BIP173_INVALID_ADDRESSES: Array<[string, string]> = [
	['tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty', 'Invalid human-readable part'],
	['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'Invalid checksum'],
	['BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2', 'Invalid witness version'],
	['bc1rw5uspcuh', 'Invalid program length'],
	[
		'bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90',
		'Invalid program length',
	],
	['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'Invalid program length for witness version 0'],
	['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7', 'Mixed case'],
	['bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du', 'zero padding of more than 4 bits'],
	[
		'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv',
		'Non-zero padding in 8-to-5 conversion',
	],
	['bc1gmk9yu', 'Empty data section'],
];

// Valid under BIP-173, but BIP-350 requires Bech32m for witness v1+.
const BIP173_V1_PLUS_ADDRESSES_NOW_INVALID = [
	'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx',
	'BC1SW50QA3JX3S',
	'bc1zw508d6qejxtdg4y5r3zarvaryvg6kdaj',
];

type Expected = { network: BitcoinNetwork; type: BitcoinAddressType };

const WELL_KNOWN_ADDRESSES: Array<[string, Expected]> = [
	['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', { network: 'mainnet', type: 'p2pkh' }],
	['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', { network: 'mainnet', type: 'p2pkh' }],
	['1111111111111111111114oLvT2', { network: 'mainnet', type: 'p2pkh' }],
	['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', { network: 'mainnet', type: 'p2sh' }],
	['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', { network: 'testnet', type: 'p2pkh' }],
	['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', { network: 'testnet', type: 'p2sh' }],
	['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', { network: 'mainnet', type: 'p2wpkh' }],
	['BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ', { network: 'mainnet', type: 'p2wpkh' }],
	['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', { network: 'testnet', type: 'p2wpkh' }],
	['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', { network: 'regtest', type: 'p2wpkh' }],
	[
		'bcrt1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqjsgj9x',
		{ network: 'regtest', type: 'p2wsh' },
	],
	[
		'bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6',
		{ network: 'regtest', type: 'p2tr' },
	],
];

function typeOfScriptPubKey(hex: string): BitcoinAddressType {
	if (hex.startsWith('0014') && hex.length === 44) return 'p2wpkh';
	if (hex.startsWith('0020') && hex.length === 68) return 'p2wsh';
	if (hex.startsWith('5120') && hex.length === 68) return 'p2tr';
	return 'witness-unknown';
}

function errorOf(address: string): string | undefined {
	const result = parseBitcoinAddress(address);
	return 'error' in result ? result.error : undefined;
}

/** Every string that differs from `text` in exactly one position, using characters from `alphabet`. */
function singleSubstitutions(text: string, alphabet: string): string[] {
	const variants: string[] = [];
	for (let i = 0; i < text.length; i++) {
		for (const replacement of alphabet) {
			if (replacement !== text[i])
				variants.push(text.slice(0, i) + replacement + text.slice(i + 1));
		}
	}
	return variants;
}

describe('decodeBech32', () => {
	test.each(BIP173_VALID_BECH32)('BIP-173 valid Bech32 %s', (text) => {
		const result = decodeBech32(text);
		expect(result).toMatchObject({
			encoding: 'bech32',
			hrp: text.slice(0, text.lastIndexOf('1')).toLowerCase(),
		});
	});

	test.each(BIP350_VALID_BECH32M)('BIP-350 valid Bech32m %s', (text) => {
		expect(decodeBech32(text)).toMatchObject({ encoding: 'bech32m' });
	});

	test.each([...BIP173_VALID_BECH32, ...BIP350_VALID_BECH32M])(
		'flipping one data bit breaks %s',
		(text) => {
			const position = text.lastIndexOf('1') + 1;
			const flipped =
				text.slice(0, position) +
				String.fromCharCode(text.charCodeAt(position) ^ 1) +
				text.slice(position + 1);
			expect(decodeBech32(flipped)).toHaveProperty('error');
		},
	);

	test.each([...BIP173_INVALID_BECH32, ...BIP350_INVALID_BECH32M])('invalid %j (%s)', (text) => {
		expect(decodeBech32(text)).toHaveProperty('error');
	});

	test('returns the data words without the checksum', () => {
		const result = decodeBech32('abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw');
		expect(result).toEqual({
			hrp: 'abcdef',
			encoding: 'bech32',
			words: Array.from({ length: 32 }, (_, i) => i),
		});
	});
});

describe('decodeBase58', () => {
	test.each([
		['', ''],
		['1', '00'],
		['11', '0000'],
		['2', '01'],
		['z', '39'],
		['21', '3a'],
		['5Q', 'ff'],
		['5R', '0100'],
		['LUw', '010000'],
		['1112', '00000001'],
	])('%j decodes to %s', (text, hex) => {
		const result = decodeBase58(text);
		expect('bytes' in result && Buffer.from(result.bytes).toString('hex')).toBe(hex);
	});

	test.each(['0', 'O', 'I', 'l', '+', ' '])('rejects %j', (character) => {
		expect(decodeBase58(`1A${character}B`)).toHaveProperty('error');
	});
});

describe('parseBitcoinAddress', () => {
	describe('BIP-350 valid segwit addresses', () => {
		test.each(BIP350_VALID_ADDRESSES)('%s', (address, scriptPubKey) => {
			const network = address.toLowerCase().startsWith('bc1') ? 'mainnet' : 'testnet';
			expect(parseBitcoinAddress(address)).toEqual({
				network,
				type: typeOfScriptPubKey(scriptPubKey),
			});
		});
	});

	describe('BIP-350 and BIP-173 invalid segwit addresses', () => {
		test.each([...BIP350_INVALID_ADDRESSES, ...BIP173_INVALID_ADDRESSES])('%s (%s)', (address) => {
			expect(errorOf(address)).toEqual(expect.any(String));
		});

		test.each(BIP173_V1_PLUS_ADDRESSES_NOW_INVALID)(
			'BIP-173 v1+ address with a Bech32 checksum %s',
			(address) => {
				expect(errorOf(address)).toMatch(/checksum does not match/);
			},
		);
	});

	describe('well-known addresses', () => {
		test.each(WELL_KNOWN_ADDRESSES)('%s', (address, expected) => {
			expect(parseBitcoinAddress(address)).toEqual(expected);
		});
	});

	describe('single mistyped character', () => {
		test.each([
			['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', 'checksum does not match (a character is mistyped)'],
			['1A1zP1eP5QGefi2DMPTfTL5SLmv7DjvfNa', 'checksum does not match (a character is mistyped)'],
			['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLz', 'checksum does not match (a character is mistyped)'],
			['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfm', 'checksum does not match (a character is mistyped)'],
			['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vd', 'checksum does not match (a character is mistyped)'],
			[
				'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp',
				'checksum does not match (a character is mistyped)',
			],
			[
				'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5ndq',
				'checksum does not match (a character is mistyped)',
			],
			[
				'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsz',
				'checksum does not match (a character is mistyped)',
			],
			['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfN0', expect.stringContaining("contains '0'")],
			['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNl', expect.stringContaining("contains 'l'")],
			['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdb', expect.stringContaining("contains 'b'")],
			['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdo', expect.stringContaining("contains 'o'")],
			['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5md1', expect.stringContaining("contains '1'")],
		])('%s', (address, error) => {
			expect(errorOf(address)).toEqual(error);
		});

		test.each([
			'1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
			'3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
			'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
		])('every single substitution of %s is rejected', (address) => {
			const accepted = singleSubstitutions(
				address,
				'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz',
			).filter((variant) => errorOf(variant) === undefined);
			expect(accepted).toEqual([]);
		});

		test.each([
			'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
			'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
			'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
		])('every single substitution of %s is rejected', (address) => {
			const accepted = singleSubstitutions(address, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l').filter(
				(variant) => errorOf(variant) === undefined,
			);
			expect(accepted).toEqual([]);
		});

		test('a missing character is rejected', () => {
			expect(errorOf('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfN')).toEqual(expect.any(String));
			expect(errorOf('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5md')).toEqual(expect.any(String));
			expect(errorOf('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdqq')).toEqual(expect.any(String));
		});
	});

	describe('things that are not addresses', () => {
		test.each([
			['', 'empty'],
			[' 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'contains spaces or line breaks'],
			['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq\n', 'contains spaces or line breaks'],
			['bc1qar0srrr7xfkvy5l643 lydnw9re59gtzzwf5mdq', 'contains spaces or line breaks'],
			['0x52908400098527886E0F7030069857D2E4169EE7', 'not a Bitcoin address (unknown prefix)'],
			['LM2WMpR1Rp6j3Sa59cMXMs1SPzj9eXpGc1', 'not a Bitcoin address (unknown prefix)'],
			['ltc1qg82fj8q9zx7ry7awzgx2wn6lyt9lz2dxj6m7vr', 'not a Bitcoin address (unknown prefix)'],
			['hello world', 'contains spaces or line breaks'],
			['Bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'mixes upper- and lower-case letters'],
			[
				'bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
				expect.stringContaining('payment link'),
			],
			[
				'lnbc10u1p3pj257pp5yztkwjcz5ftl5laxkav23zmzekaw37zk6kmv80pk4xaev5qhtz7q',
				expect.stringContaining('Lightning invoice'),
			],
			[
				'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz',
				expect.stringContaining('extended public key'),
			],
			['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa1A1zP1eP5QG', expect.stringContaining('too long')],
			['13RJa7YdZQz3JHotw6gx1sco2AAPDrMZM', 'wrong length (a character is missing or extra)'],
			['1p8KevEo5z2dqhHVZQ6v6D6s8PRnAtbespV', 'wrong length (a character is missing or extra)'],
		])('%j', (address, error) => {
			expect(errorOf(address)).toEqual(error);
		});

		// Correct Base58Check payloads whose first letter looks like Bitcoin's but whose version byte is not.
		test.each([
			['3bhtTogLd9e23v2WNJ7Ejc3hu8zDKLQfRe', 0x06],
			['mSrcs6gJTuq96zXWuvkPAeMXMbnKGWbUok', 0x6e],
			['2NTG6XYcNEc9NFhf43Rj7MZ2y7VCP8yoKHo', 0xc5],
		])('%s (version byte %d) is an unknown prefix', (address) => {
			expect(errorOf(address)).toBe('not a Bitcoin address (unknown prefix)');
		});

		test('v0 address with the wrong checksum variant mentions the checksum', () => {
			expect(errorOf('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh')).toBe(
				'checksum does not match (a character is mistyped, or the address was made by outdated software)',
			);
		});

		test.each([
			['bc1zw508d6qejxtdg4y5r3zarvary0c5xw7k0w7t5p', 'witness v2, 20 bytes'],
			['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kj9wkru', 'witness v1, 20 bytes'],
			['bc1sqqqqkfw08p', 'witness v16, 2 bytes'],
		])('future witness program %s (%s) parses as witness-unknown', (address) => {
			expect(parseBitcoinAddress(address)).toEqual({ network: 'mainnet', type: 'witness-unknown' });
		});

		test.each([
			['bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqj9pecr', 'v0 with 21 bytes'],
			['bc130xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq7zws8r', 'version 17'],
		])('%s (%s) is rejected', (address) => {
			expect(errorOf(address)).toEqual(expect.any(String));
		});
	});
});

// ---------------------------------------------------------------------------------------------
// Raw transactions

/** The genesis block's coinbase transaction and its well-known txid. */
const GENESIS_COINBASE =
	'01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d6573203033' +
	'2f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff01' +
	'00f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384d' +
	'f7ba0b8d578a4c702b6bf11d5fac00000000';
const GENESIS_TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

/** BIP-143's native P2WPKH example, signed: one legacy input (scriptSig) and one SegWit input (witness). */
const BIP143_SIGNED =
	'01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b' +
	'02742fa9d754cd3bebf337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede944ccf4ecbab4cc618ef3ed01eeffffffef51' +
	'e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f' +
	'85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7d30c' +
	'80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476' +
	'c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeeb357511000000';

const KEY = (n: number) => `02${String(n).repeat(64).slice(0, 64)}`;

/** A claim-like PSBT from the sandbox's builder: one 2-of-3 P2WSH input, two outputs. */
function samplePsbt(): string {
	return buildPsbt({
		collateralTxid: GENESIS_TXID,
		collateralVout: 0,
		collateralSats: 1_000_000,
		publicKeys: [KEY(1), KEY(2), KEY(3)],
		hubPk: KEY(3),
		outputs: [
			{ script: Buffer.from(`0014${'11'.repeat(20)}`, 'hex'), sats: 980_000 },
			{ script: Buffer.from(`0014${'22'.repeat(20)}`, 'hex'), sats: 10_000 },
		],
		label: 'unit',
	}).psbt;
}

function parsed(hex: string): ParsedTransaction {
	const result = parseBitcoinTransactionHex(hex);
	if ('error' in result) throw new Error(`expected a transaction, got: ${result.error}`);
	return result;
}

function problemOf(hex: string): string {
	const result = parseBitcoinTransactionHex(hex);
	if (!('error' in result)) throw new Error('expected an error');
	return result.error;
}

/** Hex of a CompactSize, little-endian. */
const varint = (value: number) =>
	value < 0xfd
		? value.toString(16).padStart(2, '0')
		: `fd${value.toString(16).padStart(4, '0').match(/../g)?.reverse().join('')}`;

// Ark addresses: the vectors are Arkade's documented keys encoded with BIP-350's Python reference
// encoder, checked here against the sandbox's encoder, which also makes the malformed ones.

/** Bytes to a bech32m (or bech32) string: 8-to-5 bits with padding, then the checksum. */
const encodeBech32 = (hrp: string, bytes: number[], encoding: 'bech32' | 'bech32m' = 'bech32m') =>
	bech32Encode(hrp, Buffer.from(bytes), encoding);

const hexBytes = (hex: string) => Array.from(Buffer.from(hex, 'hex'));
/** The keys of Arkade's documentation example (arkdev.info docs/developers/address.md). */
const ARK_SERVER_KEY = '33ffb3dee353b1a9ebe4ced64b946238d0a4ac364f275d771da6ad2445d07ae0';
const ARK_VTXO_KEY = '25a43cecfa0e1b1a4f72d64ad15f4cfa7a84d0723e8511c969aa543638ea9967';
const arkPayload = (version = 0, server = ARK_SERVER_KEY, vtxo = ARK_VTXO_KEY) => [
	version,
	...hexBytes(server),
	...hexBytes(vtxo),
];
const MAINNET_ARK = encodeBech32('ark', arkPayload());
const TESTNET_ARK = encodeBech32('tark', arkPayload());
/** The documentation's own example: the early format, server key and P2TR key without a version byte. */
const DOCUMENTED_EARLY_ARK =
	'ark1x0lm8hhr2wc6n6lyemtyh9rz8rg2ftpkfun46aca56kjg3ws0tsztfpuanaquxc6faedvjk3tax0575y6perapg3e95654pk8r4fjec4q8efp';

describe('parseArkAddress', () => {
	test('the vectors are what the reference encoder and the sandbox make of the keys', () => {
		expect(MAINNET_ARK).toBe(
			'ark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqfdy8nk05rsmrf8h94j26905e7n6sng8y059z8ykn2j5xcuw4xt8ngt9rw',
		);
		const keys = [Buffer.from(ARK_SERVER_KEY, 'hex'), Buffer.from(ARK_VTXO_KEY, 'hex')] as const;
		expect(arkAddress('ark', ...keys)).toBe(MAINNET_ARK);
		expect(arkAddress('tark', ...keys)).toBe(TESTNET_ARK);
		expect(MAINNET_ARK).toHaveLength(114);
	});

	test.each([
		[MAINNET_ARK, 'mainnet'],
		[TESTNET_ARK, 'test'],
		[MAINNET_ARK.toUpperCase(), 'mainnet'],
	] as const)('reads %s', (address, network) => {
		expect(parseArkAddress(address)).toEqual({
			network,
			version: 0,
			serverKey: ARK_SERVER_KEY,
			vtxoTaprootKey: ARK_VTXO_KEY,
		});
	});

	test('allows the length Arkade allows (1023), not BIP-173’s 90, and no more', () => {
		expect(decodeBech32(MAINNET_ARK)).toEqual({ error: 'too long (114 characters, at most 90)' });
		const tooLong = encodeBech32('ark', [...arkPayload(), ...new Array(600).fill(0)]);
		expect(tooLong.length).toBeGreaterThan(1023);
		expect(parseArkAddress(tooLong)).toEqual({
			error: `too long (${tooLong.length} characters, at most 1023)`,
		});
	});

	test("refuses the documentation's 64-byte example, saying it is the early format", () => {
		expect(decodeBech32(DOCUMENTED_EARLY_ARK, 1023)).toMatchObject({ encoding: 'bech32m' });
		expect(parseArkAddress(DOCUMENTED_EARLY_ARK)).toEqual({
			error: expect.stringMatching(
				/^holds 64 bytes, the early Ark address format without a version byte/,
			),
		});
	});

	const flipped = (address: string, at: number) =>
		address.slice(0, at) + (address[at] === 'q' ? 'p' : 'q') + address.slice(at + 1);

	test.each([
		['', 'empty'],
		[` ${MAINNET_ARK}`, 'contains spaces or line breaks'],
		[
			'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
			'not an Ark address (it starts neither with ark1 nor with tark1)',
		],
		[
			encodeBech32('bark', arkPayload()),
			'not an Ark address (it starts neither with ark1 nor with tark1)',
		],
		[flipped(MAINNET_ARK, 40), 'checksum does not match (a character is mistyped)'],
		[
			encodeBech32('ark', arkPayload(), 'bech32'),
			'checksum does not match (a character is mistyped, or it was made with bech32 where Ark uses bech32m)',
		],
		[
			`${MAINNET_ARK.slice(0, 30)}${MAINNET_ARK[30].toUpperCase()}${MAINNET_ARK.slice(31)}`,
			'mixes upper- and lower-case letters',
		],
		[
			`${MAINNET_ARK.slice(0, 30)}b${MAINNET_ARK.slice(31)}`,
			"contains 'b', which never appears in this kind of address (1, b, i and o are not used after the prefix)",
		],
		[
			encodeBech32('ark', [...arkPayload(), 7]),
			'wrong length (a character is missing or extra): it holds 66 bytes instead of 65',
		],
		[
			encodeBech32('ark', arkPayload().slice(0, 33)),
			'wrong length (a character is missing or extra): it holds 33 bytes instead of 65',
		],
		[encodeBech32('ark', arkPayload(1)), 'unknown Ark address version (1)'],
	])('%j: %s', (address, error) => {
		expect(parseArkAddress(address)).toEqual({ error });
	});

	test('a deleted character breaks the checksum', () => {
		const short = MAINNET_ARK.slice(0, 50) + MAINNET_ARK.slice(51);
		expect(parseArkAddress(short)).toEqual({ error: expect.stringMatching(/checksum|length/) });
	});
});

describe('parseBitcoinTransaction', () => {
	test('reads the genesis coinbase: version, one input, one output, lock time, and its txid', () => {
		const tx = parsed(GENESIS_COINBASE);
		expect(tx).toMatchObject({
			version: 1,
			segwit: false,
			lockTime: 0,
			txid: GENESIS_TXID,
			sizeBytes: GENESIS_COINBASE.length / 2,
		});
		expect(tx.inputs).toEqual([
			{
				previousTxid: '0'.repeat(64),
				previousVout: 0xffffffff,
				scriptSigBytes: 77,
				sequence: 0xffffffff,
				witnessItems: 0,
			},
		]);
		expect(tx.outputs).toEqual([{ valueSats: 5_000_000_000n, scriptPubKeyBytes: 67 }]);
		expect(tx.weight).toBe(4 * tx.sizeBytes);
	});

	test('takes upper-case hex as well', () => {
		expect(parsed(GENESIS_COINBASE.toUpperCase()).txid).toBe(GENESIS_TXID);
	});

	test("reads BIP-143's signed SegWit example: marker and flag, two inputs, witnesses, lock time", () => {
		const tx = parsed(BIP143_SIGNED);
		expect(tx.segwit).toBe(true);
		expect(tx.version).toBe(1);
		expect(tx.lockTime).toBe(17);
		expect(tx.inputs.map((input) => [input.scriptSigBytes, input.witnessItems])).toEqual([
			[73, 0],
			[0, 2],
		]);
		expect(tx.outputs.map((output) => output.valueSats)).toEqual([112_340_000n, 223_450_000n]);
		expect(tx.weight).toBeLessThan(4 * tx.sizeBytes);
	});

	test('gives a SegWit transaction the txid of its serialization without witnesses (as the sandbox computes it)', () => {
		const signed = standInSign(samplePsbt());
		const stripped = unsignedTransactionOf(samplePsbt());
		const tx = parsed(signed);
		expect(tx.segwit).toBe(true);
		expect(tx.inputs[0]).toMatchObject({
			previousTxid: GENESIS_TXID,
			previousVout: 0,
			scriptSigBytes: 0,
			witnessItems: 4,
		});
		expect(tx.txid).toBe(parsed(stripped).txid);
		const sandboxTx = parseTransactionHex(signed);
		expect(sandboxTx && txidOf(sandboxTx)).toBe(tx.txid);
		// weight = 3 × stripped size + total size
		expect(tx.weight).toBe(3 * (stripped.length / 2) + signed.length / 2);
	});

	test('refuses a PSBT, in hex and in base64, with the message that says what to do', () => {
		const psbt = samplePsbt();
		const message = 'this is a PSBT, not a signed transaction: finalize and extract it first';
		expect(problemOf(psbt)).toBe(message);
		expect(problemOf(psbt.toUpperCase())).toBe(message);
		expect(problemOf(Buffer.from(psbt, 'hex').toString('base64'))).toBe(message);
		expect(parseBitcoinTransaction(Buffer.from(psbt, 'hex'))).toEqual({ error: message });
	});

	test('refuses every truncation of a transaction, naming the part that is cut off', () => {
		for (let length = 0; length < GENESIS_COINBASE.length; length += 2) {
			expect(parseBitcoinTransactionHex(GENESIS_COINBASE.slice(0, length))).toEqual({
				error: expect.stringMatching(/ends too early|more than the \d+ bytes left/),
			});
		}
		expect(problemOf(GENESIS_COINBASE.slice(0, -2))).toBe(
			'ends too early: the lock time needs 1 more byte (is the hex cut off?)',
		);
		expect(problemOf(GENESIS_COINBASE.slice(0, 150))).toBe(
			"ends too early: input 1's scriptSig needs 44 more bytes (is the hex cut off?)",
		);
		expect(problemOf(GENESIS_COINBASE.slice(0, -10))).toBe(
			"ends too early: output 1's script needs 1 more byte (is the hex cut off?)",
		);
		const signed = standInSign(samplePsbt());
		for (let length = 0; length < signed.length; length += 2) {
			expect('error' in parseBitcoinTransactionHex(signed.slice(0, length))).toBe(true);
		}
	});

	test('refuses data after the lock time: the whole serialization must be one transaction', () => {
		expect(problemOf(`${GENESIS_COINBASE}00`)).toBe(
			'has 1 byte left after the lock time: extra data, or more than one transaction',
		);
		expect(problemOf(GENESIS_COINBASE + GENESIS_COINBASE)).toMatch(
			/^has 204 bytes left after the lock time/,
		);
	});

	test.each([
		['an odd number of digits', `${GENESIS_COINBASE}0`, /odd number of hexadecimal digits/],
		[
			'a character that is not hex',
			`zz${GENESIS_COINBASE}`,
			/contains "z" at position 1, which is not a hexadecimal digit/,
		],
		['nothing', '', /ends too early: the version needs 4 more bytes/],
		[
			'a SegWit marker with flag 2',
			`0100000000020000000000`,
			/SegWit marker with flag 2 instead of 1/,
		],
		[
			'no inputs after the SegWit marker',
			`01000000000100010000000000000000000000000000`,
			/has no inputs/,
		],
		[
			'no outputs',
			`01000000${`01${'00'.repeat(32)}00000000` + '00' + 'ffffffff'}00` + '00000000',
			/has no outputs/,
		],
		[
			'a count that is not in its shortest form',
			`01000000fd0100${'00'.repeat(32)}0000000000ffffffff0100000000000000000000000000`,
			/the input count is not encoded in its shortest form/,
		],
		[
			'an input count far beyond the data',
			`01000000fe00ca9a3b${'00'.repeat(60)}`,
			/the input count says 1000000000, more than the 60 bytes left could hold/,
		],
		[
			'an output paying more than 21 million BTC',
			`01000000${`01${'00'.repeat(32)}0000000000ffffffff`}01${'ff'.repeat(8)}0000000000`,
			/output 1 pays 18446744073709551615 sats, more than 21 million BTC/,
		],
	])('refuses %s', (_case, hex, problem) => {
		expect(problemOf(hex)).toMatch(problem);
	});

	test('refuses a SegWit transaction whose witnesses are all empty', () => {
		const stripped = unsignedTransactionOf(samplePsbt());
		// version, marker and flag, inputs and outputs, one empty witness per input, lock time
		const emptyWitness = `${stripped.slice(0, 8)}0001${stripped.slice(8, -8)}00${stripped.slice(-8)}`;
		expect(problemOf(emptyWitness)).toBe(
			'has the SegWit marker but no witness data, so this is no valid serialization',
		);
	});

	test('reads a script longer than 252 bytes (a three-byte count)', () => {
		const script = '6a'.repeat(300);
		const hex = `01000000${`01${'00'.repeat(32)}00000000` + '00' + 'ffffffff'}01${'00'.repeat(8)}${varint(300)}${script}00000000`;
		expect(parsed(hex).outputs[0].scriptPubKeyBytes).toBe(300);
	});
});

describe('checkSignedTransaction', () => {
	test('accepts a signed transaction, SegWit or not', () => {
		expect(checkSignedTransaction(standInSign(samplePsbt()))).toBeNull();
		expect(checkSignedTransaction(BIP143_SIGNED)).toBeNull();
		expect(checkSignedTransaction(`  ${GENESIS_COINBASE}\n`)).toBeNull();
	});

	test('refuses a PSBT with the specific message', () => {
		expect(checkSignedTransaction(samplePsbt())).toContain(
			'this is a PSBT, not a signed transaction: finalize and extract it first',
		);
		expect(checkSignedTransaction(Buffer.from(samplePsbt(), 'hex').toString('base64'))).toContain(
			'this is a PSBT',
		);
	});

	test('refuses the unsigned transaction of a PSBT: its input carries no signature', () => {
		expect(checkSignedTransaction(unsignedTransactionOf(samplePsbt()))).toMatch(
			/is a transaction, but not a signed one: Its input carries no signature .*key behind borrower_pk/,
		);
	});

	test.each([
		['a number', 42, /Expected a transaction in hex, got 42/],
		['empty text', '  ', /Must not be empty/],
		['a 0x prefix', `0x${GENESIS_COINBASE}`, /starts with 0x/],
		[
			'a truncated transaction',
			GENESIS_COINBASE.slice(0, -2),
			/is not a Bitcoin transaction \(ends too early: the lock time needs 1 more byte/,
		],
		['garbage', 'deadbeef', /is not a Bitcoin transaction \(ends too early/],
		[
			'more than any relayed transaction',
			'ab'.repeat(400_001),
			/larger than any transaction Bitcoin nodes relay/,
		],
	])('refuses %s', (_case, value, problem) => {
		expect(checkSignedTransaction(value)).toMatch(problem);
	});

	test('accepts hex wrapped over lines or indented, as terminals and wallets copy it', () => {
		expect(
			checkSignedTransaction(
				`  ${GENESIS_COINBASE.slice(0, 100)}\n\t${GENESIS_COINBASE.slice(100)}\r\n`,
			),
		).toBeNull();
	});
});

describe('checkTxid', () => {
	test.each([GENESIS_TXID, GENESIS_TXID.toUpperCase(), ` ${GENESIS_TXID} `])(
		'accepts %s',
		(value) => {
			expect(checkTxid(value)).toBeNull();
		},
	);

	test.each([
		['empty', '', /Must not be empty/],
		['63 characters', GENESIS_TXID.slice(1), /has 63 characters instead of 64/],
		['65 characters', `${GENESIS_TXID}0`, /has 65 characters instead of 64/],
		['a 0x prefix', `0x${GENESIS_TXID}`, /starts with 0x, like an Ethereum hash/],
		['a character that is not hex', `${GENESIS_TXID.slice(1)}g`, /is not hexadecimal/],
		['a space inside', `${GENESIS_TXID.slice(0, 10)} ${GENESIS_TXID.slice(10)}`, /contains spaces/],
		['a whole transaction', GENESIS_COINBASE, /is a whole transaction \(204 bytes\), not its ID/],
		['a number', 12, /Expected a transaction ID as text/],
	])('refuses %s', (_case, value, problem) => {
		expect(checkTxid(value)).toMatch(problem);
	});
});

describe('checkFeeRate', () => {
	test.each([1, 5, '12', 10_000])('accepts %s', (value) => {
		expect(checkFeeRate(value)).toBeNull();
	});

	test.each([
		['zero', 0, /at least 1 sat\/vB/],
		['a negative rate', -3, /at least 1 sat\/vB/],
		['a fraction', 1.5, /whole number of sat\/vB/],
		['text that is no number', 'fast', /Expected a whole number of sat\/vB/],
		['empty text', '', /Must not be empty/],
		['a total fee typed as a rate', 25_000, /at most 10000 sat\/vB.*not the total fee/],
	])('refuses %s', (_case, value, problem) => {
		expect(checkFeeRate(value)).toMatch(problem);
	});
});
