import {
	decodePsbtText,
	parsePsbt,
	psbtEncodingOf,
	parsePsbtText,
	RAW_TRANSACTION_NOT_PSBT,
} from '../../nodes/LendasatBorrower/validation/psbt';
import { buildPsbt } from '../../dev/sandbox/bitcoin';
import { standInSign } from '../../dev/sandbox/standInSigner';
import { parseBitcoinTransaction } from '../../nodes/LendasatBorrower/validation/bitcoin';
import BIP_174 from '../fixtures/bip174-vectors.json';

/*
 * The node's PSBT reader (BIP-174, version 0), against BIP-174's published vectors, PSBTs built here
 * byte by byte and the sandbox's own. Every PSBT a user gives the Ark operations goes through it
 * before anything is sent.
 */

const MAGIC = '70736274ff';
const GENESIS_TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

/** A compact size of a small number, as hex. */
const size = (bytes: number) => bytes.toString(16).padStart(2, '0');
const pair = (key: string, value: string) =>
	`${size(key.length / 2)}${key}${size(value.length / 2)}${value}`;

/** A version-2 transaction with `inputs` unsigned inputs (empty scriptSigs) and one output. */
function unsignedTx(inputs = 1, scriptSig = ''): string {
	const input = `${Buffer.from(GENESIS_TXID, 'hex').reverse().toString('hex')}00000000${size(scriptSig.length / 2)}${scriptSig}ffffffff`;
	const output = `e803000000000000160014${'11'.repeat(20)}`;
	return `02000000${size(inputs)}${input.repeat(inputs)}01${output}00000000`;
}

/** A PSBT: the global map (the unsigned transaction unless given), then the maps as given. */
function psbt({
	tx = unsignedTx(),
	global = pair('00', tx),
	maps = ['00', '00'],
}: { tx?: string; global?: string; maps?: string[] } = {}): string {
	return `${MAGIC}${global}00${maps.join('')}`;
}

const errorOf = (hex: string) => {
	const parsed = parsePsbt(Buffer.from(hex, 'hex'));
	return 'error' in parsed ? parsed.error : undefined;
};

/** The sandbox's on-chain claim PSBT: witness UTXO, witness script and a hub signature on its input. */
const SANDBOX_PSBT = buildPsbt({
	collateralTxid: GENESIS_TXID,
	collateralVout: 0,
	collateralSats: 1_000_000,
	publicKeys: ['02' + '11'.repeat(32), '02' + '22'.repeat(32), '02' + '33'.repeat(32)],
	hubPk: '02' + '33'.repeat(32),
	outputs: [{ script: Buffer.from(`0014${'11'.repeat(20)}`, 'hex'), sats: 990_000 }],
	label: 'psbt-unit',
}).psbt;

describe('parsePsbt', () => {
	test('reads a minimal PSBT: the unsigned transaction and one empty map per input and output', () => {
		const parsed = parsePsbt(Buffer.from(psbt(), 'hex'));
		expect(parsed).toMatchObject({
			unsignedTx: { inputs: [{ previousTxid: GENESIS_TXID, scriptSigBytes: 0 }], segwit: false },
			inputs: [[]],
			outputs: [[]],
		});
	});

	test('reads the key-value pairs of every map, keyed by type', () => {
		const parsed = parsePsbt(Buffer.from(SANDBOX_PSBT, 'hex'));
		if ('error' in parsed) throw new Error(parsed.error);
		expect(parsed.inputs[0].map((entry) => entry.keyType)).toEqual([0x01, 0x02, 0x05]);
		expect(Buffer.from(parsed.inputs[0][1].keyData).toString('hex')).toBe(`02${'33'.repeat(32)}`);
		expect(parsed.outputs).toEqual([[]]);
	});

	test('a version 0 marker is fine, another version is not', () => {
		expect(
			errorOf(psbt({ global: pair('00', unsignedTx()) + pair('fb', '00000000') })),
		).toBeUndefined();
		expect(errorOf(psbt({ global: pair('00', unsignedTx()) + pair('fb', '02000000') }))).toBe(
			"it is a PSBT of version 2; Lendasat's PSBTs are of version 0",
		);
	});

	test.each([
		['no magic bytes', 'deadbeef', /^it does not start with the PSBT magic bytes/],
		['a raw signed transaction', standInSign(SANDBOX_PSBT), RAW_TRANSACTION_NOT_PSBT],
		['a raw unsigned transaction', unsignedTx(), RAW_TRANSACTION_NOT_PSBT],
		[
			'no unsigned transaction',
			psbt({ global: pair('fc', 'aa') }),
			'its global map holds no unsigned transaction',
		],
		[
			'an unsigned transaction that does not parse',
			psbt({ tx: `${unsignedTx()}00` }),
			/^its unsigned transaction is not a transaction: has 1 byte left after the lock time/,
		],
		[
			'a signature inside the unsigned transaction',
			psbt({ tx: unsignedTx(1, '51') }),
			'its unsigned transaction carries signatures (a scriptSig or a witness), which a PSBT keeps in its input maps',
		],
		[
			'a key twice in one map',
			psbt({ maps: [pair('0e', 'aa') + pair('0e', 'bb') + '00', '00'] }),
			"input 1's map holds the key of type 0x0e twice, which BIP-174 forbids",
		],
		[
			'a hash preimage keyed by a hash of the wrong size',
			psbt({ maps: [pair(`0b${'11'.repeat(20)}`, 'aa') + '00', '00'] }),
			"input 1's map has a key of type 0x0b (a SHA256 preimage) with 20 bytes of key data where BIP-174 puts 32 bytes",
		],
		[
			'an unsigned transaction that spends nothing',
			psbt({
				tx: `020000000002${`e803000000000000160014${'11'.repeat(20)}`.repeat(2)}00000000`,
				maps: ['00', '00'],
			}),
			"its unsigned transaction spends no input; Lendasat's PSBTs spend at least one",
		],
		[
			'a missing output map',
			psbt({ maps: ['00'] }),
			/^ends too early: a key length in output 1's map needs 1 more byte \(is the PSBT cut off\?\)$/,
		],
		[
			'a map too many',
			psbt({ maps: ['00', '00', '00'] }),
			/^it has 1 byte left after the map of its last output/,
		],
		['a value cut off', `${psbt().slice(0, 40)}`, /is the PSBT cut off\?/],
		[
			'a key length beyond the end',
			`${MAGIC}fd0010`,
			/says 4096, more than the 0 bytes left could hold/,
		],
	])('refuses %s', (_case, hex, message) => {
		expect(errorOf(hex)).toEqual(
			typeof message === 'string' ? message : expect.stringMatching(message),
		);
	});
});

describe('decodePsbtText', () => {
	const bytes = Buffer.from(SANDBOX_PSBT, 'hex');
	const base64 = bytes.toString('base64');

	test('reads hex, in either case, and base64; white space carries no meaning', () => {
		for (const [text, encoding] of [
			[SANDBOX_PSBT, 'hex'],
			[SANDBOX_PSBT.toUpperCase(), 'hex'],
			[base64, 'base64'],
			[`  ${base64.match(/.{1,76}/g)!.join('\n')}\n`, 'base64'],
		] as const) {
			const decoded = decodePsbtText(text);
			expect(decoded).toEqual({ bytes: Uint8Array.from(bytes), encoding });
		}
	});

	test.each([
		['nothing', '', 'it is empty'],
		['white space', ' \n ', 'it is empty'],
		[
			'hex with a digit too many',
			`${SANDBOX_PSBT}0`,
			/^its hex has an odd number of hexadecimal digits/,
		],
		[
			'base64 cut off',
			base64.slice(0, -1),
			'its base64 is cut off or has a character too many (its length is not a multiple of 4)',
		],
		['padding inside base64', `${base64.slice(0, -4)}A=AA`, 'its base64 is padded wrongly'],
		[
			'a character of neither',
			'cHNidP8-AAAA',
			'it is neither hex nor base64: it contains "-" at position 8',
		],
		[
			'2 MB of text',
			'x'.repeat(2_000_001),
			'it is 2000001 characters long, far more than any PSBT',
		],
	])('refuses %s', (_case, text, message) => {
		expect(decodePsbtText(text)).toEqual({
			error: typeof message === 'string' ? message : expect.stringMatching(message),
		});
	});

	test('parsePsbtText says which encoding a PSBT came in', () => {
		expect(parsePsbtText(base64)).toMatchObject({ encoding: 'base64', unsignedTx: { version: 2 } });
		expect(parsePsbtText(SANDBOX_PSBT)).toMatchObject({ encoding: 'hex' });
		expect(parsePsbtText('hello')).toEqual({
			error: expect.stringMatching(/not a PSBT|hex|base64/),
		});
	});
});

describe("psbtEncodingOf (how an answer's PSBT is recognised)", () => {
	const base64 = Buffer.from(SANDBOX_PSBT, 'hex').toString('base64');

	test.each([
		['hex', SANDBOX_PSBT, 'hex'],
		['hex in capitals', SANDBOX_PSBT.toUpperCase(), 'hex'],
		['base64', base64, 'base64'],
		['the magic alone', MAGIC, undefined],
		['hex with a digit too many', `${SANDBOX_PSBT}0`, undefined],
		['a raw transaction', unsignedTx(), undefined],
		[
			'base64 without its padding',
			Buffer.from(`${SANDBOX_PSBT}00`, 'hex').toString('base64').replace(/=+$/, ''),
			undefined,
		],
		['base64 wrapped on lines', base64.match(/.{1,76}/g)!.join('\n'), undefined],
		['URL-safe base64', base64.replace(/\+/g, '-').replace(/\//g, '_'), undefined],
	])('%s', (_case, text, encoding) => {
		expect(psbtEncodingOf(text)).toBe(encoding);
	});
});

describe("BIP-174's published test vectors (test/fixtures/bip174-vectors.json)", () => {
	const outcome = (parsed: ReturnType<typeof parsePsbt>) =>
		'error' in parsed ? { refused: parsed.error } : 'parsed';
	const vector = (name: string) => BIP_174.vectors.find((candidate) => candidate.case === name)!;

	test.each(BIP_174.vectors)('$bip174: $case', ({ hex, base64, ours }) => {
		expect(outcome(parsePsbt(Buffer.from(hex, 'hex')))).toEqual(ours);
		if (base64 !== undefined) {
			expect(decodePsbtText(base64)).toEqual({
				bytes: Uint8Array.from(Buffer.from(hex, 'hex')),
				encoding: 'base64',
			});
			expect(outcome(parsePsbtText(base64))).toEqual(ours);
		}
	});

	test('refuses every PSBT BIP-174 calls invalid, and differs from it elsewhere only with a note saying why', () => {
		for (const { bip174, ours, note, case: name } of BIP_174.vectors) {
			const refused = ours !== 'parsed';
			if (bip174 === 'invalid') expect({ name, refused }).toEqual({ name, refused: true });
			if (bip174.startsWith('valid') && refused)
				expect({ name, note }).toEqual({
					name,
					note: expect.stringMatching(/^Narrower on purpose/),
				});
		}
	});

	test("the extractor's transaction spends and pays what the finalized PSBT's does, signed", () => {
		const finalized = parsePsbt(
			Buffer.from(vector('Input finalizer: the merged PSBT finalized').hex, 'hex'),
		);
		const extracted = parseBitcoinTransaction(
			Buffer.from(vector('Transaction extractor: the finished network transaction').hex, 'hex'),
		);
		if ('error' in finalized || 'error' in extracted) throw new Error('expected both to parse');
		const spent = (tx: typeof extracted) =>
			tx.inputs.map(({ previousTxid, previousVout, sequence }) => ({
				previousTxid,
				previousVout,
				sequence,
			}));
		expect(spent(extracted)).toEqual(spent(finalized.unsignedTx));
		expect(extracted.outputs).toEqual(finalized.unsignedTx.outputs);
		expect(extracted.inputs.map((input) => input.scriptSigBytes > 0)).toEqual([true, true]);
		expect(extracted.inputs.map((input) => input.witnessItems)).toEqual([0, 4]);
	});
});
