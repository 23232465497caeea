import {
	decodeHex,
	hasPsbtMagic,
	parseBitcoinTransaction,
	PSBT_MAGIC_BASE64,
	PSBT_MAGIC_HEX,
	TransactionProblem,
	TransactionReader,
	type ParsedTransaction,
} from './bitcoin';

/** One key-value pair of a PSBT map: the key's type byte, the rest of the key, the value. */
export interface PsbtEntry {
	keyType: number;
	keyData: Uint8Array;
	value: Uint8Array;
}

/** What a PSBT (BIP-174, version 0) holds: the unsigned transaction and one map per input and output. */
export interface ParsedPsbt {
	unsignedTx: ParsedTransaction;
	global: PsbtEntry[];
	inputs: PsbtEntry[][];
	outputs: PsbtEntry[][];
}

export type PsbtEncoding = 'hex' | 'base64';

const MAGIC_LENGTH = 5;
const PSBT_GLOBAL_UNSIGNED_TX = 0x00;
const PSBT_GLOBAL_VERSION = 0xfb;

/** What BIP-174 puts after a key's type: no key data, a public key (33 or 65 bytes), or so many bytes. */
type KeyData = 'none' | 'public key' | number;
/** The key types BIP-174 defines, per map: their name and their key data. Other types pass unchecked. */
type KeyRules = Record<number, [name: string, keyData: KeyData]>;
const GLOBAL_KEYS: KeyRules = {
	[PSBT_GLOBAL_UNSIGNED_TX]: ['the unsigned transaction', 'none'],
	0x01: ['an extended public key', 78],
	[PSBT_GLOBAL_VERSION]: ['the version', 'none'],
};
const INPUT_KEYS: KeyRules = {
	0x00: ['the non-witness UTXO', 'none'],
	0x01: ['the witness UTXO', 'none'],
	0x02: ['a partial signature', 'public key'],
	0x03: ['the sighash type', 'none'],
	0x04: ['the redeem script', 'none'],
	0x05: ['the witness script', 'none'],
	0x06: ['a BIP 32 derivation', 'public key'],
	0x07: ['the final scriptSig', 'none'],
	0x08: ['the final script witness', 'none'],
	0x0a: ['a RIPEMD160 preimage', 20],
	0x0b: ['a SHA256 preimage', 32],
	0x0c: ['a HASH160 preimage', 20],
	0x0d: ['a HASH256 preimage', 32],
};
const OUTPUT_KEYS: KeyRules = {
	0x00: ['the redeem script', 'none'],
	0x01: ['the witness script', 'none'],
	0x02: ['a BIP 32 derivation', 'public key'],
};
/** Far beyond any PSBT Lendasat hands out; decoding junk beyond it is not worth the time. */
const MAX_PSBT_TEXT_LENGTH = 2_000_000;
const PSBT_HEX_PATTERN = new RegExp(`^${PSBT_MAGIC_HEX}(?:[0-9a-f]{2})+$`, 'i');
/** Standard base64 with its padding: Buffer.from(…, 'base64') takes far more (no padding, URL-safe letters), so it is checked first. */
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const RAW_TRANSACTION_NOT_PSBT =
	'this is a finished transaction, not a PSBT: give the signed PSBT itself, without finalizing or extracting it';

/**
 * A PSBT as text, in hex or base64 (white space, as in wrapped text, carries no meaning and is left
 * out), decoded to its bytes. Hex is recognised first: a PSBT in base64 always starts with cHNidP8.
 */
export function decodePsbtText(
	text: string,
): { bytes: Uint8Array; encoding: PsbtEncoding } | { error: string } {
	const compact = text.replace(/\s+/g, '');
	if (compact === '') return { error: 'it is empty' };
	if (compact.length > MAX_PSBT_TEXT_LENGTH) {
		return { error: `it is ${compact.length} characters long, far more than any PSBT` };
	}
	if (/^[0-9a-f]+$/i.test(compact)) {
		const hex = decodeHex(compact);
		return 'error' in hex
			? { error: `its hex ${hex.error}` }
			: { bytes: hex.bytes, encoding: 'hex' };
	}
	if (/^[A-Za-z0-9+/=]+$/.test(compact)) {
		if (!BASE64_PATTERN.test(compact) && !compact.startsWith(PSBT_MAGIC_BASE64)) {
			return {
				error:
					'it starts neither with 70736274ff (hex) nor with cHNidP8 (base64), as every PSBT does',
			};
		}
		if (!BASE64_PATTERN.test(compact)) {
			return {
				error: `its base64 is ${compact.length % 4 === 0 ? 'padded wrongly' : 'cut off or has a character too many (its length is not a multiple of 4)'}`,
			};
		}
		return { bytes: Uint8Array.from(Buffer.from(compact, 'base64')), encoding: 'base64' };
	}
	const bad = compact.search(/[^A-Za-z0-9+/=]/);
	return {
		error: `it is neither hex nor base64: it contains ${JSON.stringify(compact[bad])} at position ${bad + 1}`,
	};
}

/** The encoding of a PSBT's text as it stands (no white space): the magic bytes, then whole bytes. */
export function psbtEncodingOf(text: string): PsbtEncoding | undefined {
	if (PSBT_HEX_PATTERN.test(text)) return 'hex';
	if (text.startsWith(PSBT_MAGIC_BASE64) && BASE64_PATTERN.test(text)) return 'base64';
	return undefined;
}

/**
 * Parses a PSBT of version 0 (BIP-174): the magic bytes, the global map with its unsigned
 * transaction (no scriptSigs, no witnesses, at least one input and one output), then exactly one
 * map per input and per output, each key unique in its map and of the shape BIP-174 gives its type,
 * and nothing after. A raw transaction in its place is named as such. Values are not read beyond
 * the unsigned transaction: Lendasat reads the rest.
 */
export function parsePsbt(bytes: Uint8Array): ParsedPsbt | { error: string } {
	if (!hasPsbtMagic(bytes)) {
		return 'error' in parseBitcoinTransaction(bytes)
			? {
					error:
						'it does not start with the PSBT magic bytes ("psbt" and 0xff; cHNidP8 in base64, 70736274ff in hex)',
				}
			: { error: RAW_TRANSACTION_NOT_PSBT };
	}
	const reader = new TransactionReader(bytes, 'is the PSBT cut off?');
	reader.take(MAGIC_LENGTH, 'the magic bytes');
	try {
		const global = readMap(reader, 'the global map', GLOBAL_KEYS);
		const unsignedTx = readUnsignedTransaction(global);
		const inputs = unsignedTx.inputs.map((_, n) =>
			readMap(reader, `input ${n + 1}'s map`, INPUT_KEYS),
		);
		const outputs = unsignedTx.outputs.map((_, n) =>
			readMap(reader, `output ${n + 1}'s map`, OUTPUT_KEYS),
		);
		if (reader.remaining > 0) {
			throw new TransactionProblem(
				`it has ${reader.remaining} byte${reader.remaining === 1 ? '' : 's'} left after the map of its last output: a map too many, or extra data`,
			);
		}
		return { unsignedTx, global, inputs, outputs };
	} catch (error) {
		return {
			error: error instanceof TransactionProblem ? error.message : 'it could not be read as a PSBT',
		};
	}
}

/** The same for text in hex or base64, saying which encoding it was in. */
export function parsePsbtText(
	text: string,
): (ParsedPsbt & { encoding: PsbtEncoding; bytes: Uint8Array }) | { error: string } {
	const decoded = decodePsbtText(text);
	if ('error' in decoded) return decoded;
	const parsed = parsePsbt(decoded.bytes);
	return 'error' in parsed ? parsed : { ...parsed, ...decoded };
}

/** Why a key's data does not fit its type (BIP-174's tables), or undefined when it does. */
function keyDataProblem(keyType: number, keyData: Uint8Array, rules: KeyRules): string | undefined {
	const rule = rules[keyType];
	if (!rule) return undefined;
	const [name, expected] = rule;
	const fits =
		expected === 'none'
			? keyData.length === 0
			: expected === 'public key'
				? keyData.length === 33 || keyData.length === 65
				: keyData.length === expected;
	if (fits) return undefined;
	const wanted =
		expected === 'none'
			? 'none'
			: expected === 'public key'
				? 'a public key (33 or 65 bytes)'
				: `${expected} bytes`;
	return `a key of type 0x${hexByte(keyType)} (${name}) with ${keyData.length} byte${keyData.length === 1 ? '' : 's'} of key data where BIP-174 puts ${wanted}`;
}

const hexByte = (byte: number) => byte.toString(16).padStart(2, '0');

/** Key-value pairs up to the 0x00 separator that ends the map, each key checked against `rules`. */
function readMap(reader: TransactionReader, name: string, rules: KeyRules): PsbtEntry[] {
	const entries: PsbtEntry[] = [];
	const seen = new Set<string>();
	for (;;) {
		const keyLength = reader.count(`a key length in ${name}`);
		if (keyLength === 0) return entries;
		const key = reader.take(keyLength, `a key in ${name}`);
		const value = reader.take(reader.count(`a value length in ${name}`), `a value in ${name}`);
		const keyText = Array.from(key).join(',');
		if (seen.has(keyText)) {
			throw new TransactionProblem(
				`${name} holds the key of type 0x${hexByte(key[0])} twice, which BIP-174 forbids`,
			);
		}
		seen.add(keyText);
		const problem = keyDataProblem(key[0], key.subarray(1), rules);
		if (problem) throw new TransactionProblem(`${name} has ${problem}`);
		entries.push({ keyType: key[0], keyData: key.subarray(1), value });
	}
}

function readUnsignedTransaction(global: PsbtEntry[]): ParsedTransaction {
	const version = global.find((entry) => entry.keyType === PSBT_GLOBAL_VERSION);
	if (version && version.value.some((byte) => byte !== 0)) {
		throw new TransactionProblem(
			`it is a PSBT of version ${version.value[0]}; Lendasat's PSBTs are of version 0`,
		);
	}
	const entry = global.find((candidate) => candidate.keyType === PSBT_GLOBAL_UNSIGNED_TX);
	if (!entry) throw new TransactionProblem('its global map holds no unsigned transaction');
	// BIP-174's unsigned transaction never has the witness serialization, so 00 after the version is
	// an input count of 0 (or, followed by 01, the marker and flag BIP-174 forbids here).
	if (entry.value.length > 5 && entry.value[4] === 0) {
		throw new TransactionProblem(
			entry.value[5] === 1
				? 'its unsigned transaction is in the witness serialization (00 01 after the version), which BIP-174 forbids, or spends no input'
				: "its unsigned transaction spends no input; Lendasat's PSBTs spend at least one",
		);
	}
	const parsed = parseBitcoinTransaction(entry.value);
	if ('error' in parsed) {
		throw new TransactionProblem(`its unsigned transaction is not a transaction: ${parsed.error}`);
	}
	if (parsed.segwit || parsed.inputs.some((input) => input.scriptSigBytes > 0)) {
		throw new TransactionProblem(
			'its unsigned transaction carries signatures (a scriptSig or a witness), which a PSBT keeps in its input maps',
		);
	}
	return parsed;
}
