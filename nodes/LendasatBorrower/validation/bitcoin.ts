import { createHash } from 'crypto';

export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest';

export type BitcoinAddressType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'witness-unknown';

export type ParsedBitcoinAddress = { network: BitcoinNetwork; type: BitcoinAddressType };

export type Bech32Encoding = 'bech32' | 'bech32m';

export type Bech32Decoded = { hrp: string; words: number[]; encoding: Bech32Encoding };

const CHECKSUM_MISMATCH = 'checksum does not match (a character is mistyped)';
const UNKNOWN_PREFIX = 'not a Bitcoin address (unknown prefix)';
const WRONG_LENGTH = 'wrong length (a character is missing or extra)';

/**
 * Fully validates a Bitcoin address (Base58Check or Bech32/Bech32m) and tells which
 * network and output type it is for. Signet shares testnet's prefixes, so it is reported
 * as 'testnet'. The input is taken as is: surrounding whitespace is an error.
 */
export function parseBitcoinAddress(address: string): ParsedBitcoinAddress | { error: string } {
	if (address.length === 0) return { error: 'empty' };
	if (/\s/.test(address)) return { error: 'contains spaces or line breaks' };

	const notAnAddress = recognizeNonAddress(address);
	if (notAnAddress !== undefined) return { error: notAnAddress };

	const segwitHrp = segwitHrpOf(address);
	if (segwitHrp !== undefined) return parseSegwitAddress(address, segwitHrp);
	if (BASE58_ADDRESS_FIRST_CHARACTERS.includes(address[0])) return parseBase58Address(address);
	return { error: UNKNOWN_PREFIX };
}

// Things people paste into an address field that are Bitcoin-related but not an address.
const NON_ADDRESS_PATTERNS: Array<[RegExp, string]> = [
	[/^bitcoin:/i, 'a payment link (bitcoin:…), not a plain address; use only the address part'],
	[/^ln(bc|tb|bcrt)[0-9]/i, 'a Lightning invoice, not an on-chain Bitcoin address'],
	[/^[xyztuv]pub[1-9A-HJ-NP-Za-km-z]{20,}$/, 'an extended public key (xpub), not an address'],
];

function recognizeNonAddress(address: string): string | undefined {
	return NON_ADDRESS_PATTERNS.find(([pattern]) => pattern.test(address))?.[1];
}

// ---------------------------------------------------------------------------------------
// Base58Check (legacy P2PKH and P2SH addresses)

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_ADDRESS_FIRST_CHARACTERS = '13mn2';
const BASE58_ADDRESS_PAYLOAD_BYTES = 25;
// Longest 25-byte Base58 string is 35 characters; the cap keeps decoding of junk cheap.
const BASE58_MAX_ADDRESS_LENGTH = 40;

const BASE58_VERSIONS: Record<number, ParsedBitcoinAddress> = {
	0x00: { network: 'mainnet', type: 'p2pkh' },
	0x05: { network: 'mainnet', type: 'p2sh' },
	0x6f: { network: 'testnet', type: 'p2pkh' },
	0xc4: { network: 'testnet', type: 'p2sh' },
};

function parseBase58Address(address: string): ParsedBitcoinAddress | { error: string } {
	if (address.length > BASE58_MAX_ADDRESS_LENGTH) {
		return { error: `too long for a Bitcoin address (${address.length} characters)` };
	}
	const decoded = decodeBase58(address);
	if ('error' in decoded) return decoded;
	const payload = decoded.bytes;
	if (payload.length !== BASE58_ADDRESS_PAYLOAD_BYTES) {
		return { error: WRONG_LENGTH };
	}
	if (!hasValidBase58Checksum(payload)) return { error: CHECKSUM_MISMATCH };
	return BASE58_VERSIONS[payload[0]] ?? { error: UNKNOWN_PREFIX };
}

/** Decodes a Base58 string to bytes; each leading '1' stands for one leading zero byte. */
export function decodeBase58(text: string): { bytes: Uint8Array } | { error: string } {
	// Little-endian base-256 digits of the number accumulated so far.
	const digits: number[] = [];
	for (const character of text) {
		const value = BASE58_ALPHABET.indexOf(character);
		if (value < 0) return { error: describeForbiddenBase58Character(character) };
		let carry = value;
		for (let i = 0; i < digits.length; i++) {
			carry += digits[i] * 58;
			digits[i] = carry & 0xff;
			carry >>= 8;
		}
		while (carry > 0) {
			digits.push(carry & 0xff);
			carry >>= 8;
		}
	}
	const leadingZeros = text.length - text.replace(/^1+/, '').length;
	const bytes = new Uint8Array(leadingZeros + digits.length);
	digits.reverse().forEach((digit, i) => (bytes[leadingZeros + i] = digit));
	return { bytes };
}

function describeForbiddenBase58Character(character: string): string {
	if ('0OIl'.includes(character)) {
		return `contains '${character}', which never appears in this kind of address (0, O, I and l are not used)`;
	}
	return `contains a character that is not allowed: '${character}'`;
}

function hasValidBase58Checksum(payload: Uint8Array): boolean {
	const body = payload.subarray(0, payload.length - 4);
	const checksum = payload.subarray(payload.length - 4);
	const expected = doubleSha256(body).subarray(0, 4);
	return expected.every((byte, i) => byte === checksum[i]);
}

function doubleSha256(bytes: Uint8Array): Uint8Array {
	const once = createHash('sha256').update(bytes).digest();
	return new Uint8Array(createHash('sha256').update(once).digest());
}

// ---------------------------------------------------------------------------------------
// Bech32 / Bech32m (BIP-173, BIP-350) and native SegWit addresses

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const BECH32_CHECKSUM_CONSTANTS: Record<Bech32Encoding, number> = {
	bech32: 1,
	bech32m: 0x2bc830a3,
};
const BECH32_CHECKSUM_LENGTH = 6;
const BECH32_MAX_LENGTH = 90;

const SEGWIT_HRP_NETWORKS: Record<string, BitcoinNetwork> = {
	bc: 'mainnet',
	tb: 'testnet',
	bcrt: 'regtest',
};
const MAX_WITNESS_VERSION = 16;

function segwitHrpOf(address: string): string | undefined {
	const lower = address.toLowerCase();
	return Object.keys(SEGWIT_HRP_NETWORKS).find((hrp) => lower.startsWith(`${hrp}1`));
}

function parseSegwitAddress(
	address: string,
	hrp: string,
): ParsedBitcoinAddress | { error: string } {
	// Checked before decoding so a stray '1', 'b', 'i' or 'o' is named instead of being
	// misread as the separator or reported as a bad checksum.
	const forbidden = findForbiddenBech32DataCharacter(address.slice(hrp.length + 1));
	if (forbidden !== undefined) {
		return {
			error: `contains '${forbidden}', which never appears in this kind of address (1, b, i and o are not used after the prefix)`,
		};
	}
	const decoded = decodeBech32(address);
	if ('error' in decoded) return decoded;
	return interpretWitnessData(decoded, SEGWIT_HRP_NETWORKS[hrp]);
}

function findForbiddenBech32DataCharacter(data: string): string | undefined {
	return [...data].find((character) => !BECH32_CHARSET.includes(character.toLowerCase()));
}

function interpretWitnessData(
	decoded: Bech32Decoded,
	network: BitcoinNetwork,
): ParsedBitcoinAddress | { error: string } {
	if (decoded.words.length === 0) return { error: 'has no data after the prefix' };
	const version = decoded.words[0];
	if (version > MAX_WITNESS_VERSION) return { error: `unknown SegWit version (${version})` };
	if (decoded.encoding !== expectedEncodingFor(version)) {
		return {
			error:
				'checksum does not match (a character is mistyped, or the address was made by outdated software)',
		};
	}
	const program = convertBits(decoded.words.slice(1), 5, 8);
	if ('error' in program) return program;
	if (!hasValidWitnessProgramLength(version, program.values.length)) return { error: WRONG_LENGTH };
	return { network, type: witnessOutputType(version, program.values.length) };
}

function expectedEncodingFor(witnessVersion: number): Bech32Encoding {
	return witnessVersion === 0 ? 'bech32' : 'bech32m';
}

function hasValidWitnessProgramLength(version: number, length: number): boolean {
	if (version === 0) return length === 20 || length === 32;
	return length >= 2 && length <= 40;
}

function witnessOutputType(version: number, programLength: number): BitcoinAddressType {
	if (version === 0) return programLength === 20 ? 'p2wpkh' : 'p2wsh';
	if (version === 1 && programLength === 32) return 'p2tr';
	return 'witness-unknown';
}

/**
 * Decodes any Bech32 or Bech32m string (BIP-173 / BIP-350): human-readable part, 5-bit data
 * words without the checksum, and which checksum variant matched. BIP-173 allows 90 characters;
 * formats that carry more (Ark addresses) pass a larger `maxLength`.
 */
export function decodeBech32(
	text: string,
	maxLength = BECH32_MAX_LENGTH,
): Bech32Decoded | { error: string } {
	if (text.length > maxLength) {
		return { error: `too long (${text.length} characters, at most ${maxLength})` };
	}
	if (text !== text.toLowerCase() && text !== text.toUpperCase()) {
		return { error: 'mixes upper- and lower-case letters' };
	}
	const lower = text.toLowerCase();
	const separator = lower.lastIndexOf('1');
	if (separator < 1) return { error: 'missing the prefix before the separator "1"' };
	if (lower.length - separator - 1 < BECH32_CHECKSUM_LENGTH)
		return { error: 'too short (characters are missing)' };

	const hrp = lower.slice(0, separator);
	if (![...hrp].every(isBech32HrpCharacter))
		return { error: 'contains a character that is not allowed' };
	const values = [...lower.slice(separator + 1)].map((character) =>
		BECH32_CHARSET.indexOf(character),
	);
	if (values.includes(-1)) return { error: 'contains a character that is not allowed' };

	const encoding = matchingChecksumEncoding(hrp, values);
	if (encoding === undefined) return { error: CHECKSUM_MISMATCH };
	return { hrp, words: values.slice(0, -BECH32_CHECKSUM_LENGTH), encoding };
}

function isBech32HrpCharacter(character: string): boolean {
	const code = character.charCodeAt(0);
	return code >= 33 && code <= 126;
}

function matchingChecksumEncoding(hrp: string, values: number[]): Bech32Encoding | undefined {
	const residue = bech32Polymod([...expandHrp(hrp), ...values]);
	return (Object.keys(BECH32_CHECKSUM_CONSTANTS) as Bech32Encoding[]).find(
		(encoding) => BECH32_CHECKSUM_CONSTANTS[encoding] === residue,
	);
}

function expandHrp(hrp: string): number[] {
	const codes = [...hrp].map((character) => character.charCodeAt(0));
	return [...codes.map((code) => code >> 5), 0, ...codes.map((code) => code & 31)];
}

function bech32Polymod(values: number[]): number {
	let checksum = 1;
	for (const value of values) {
		const top = checksum >>> 25;
		checksum = ((checksum & 0x1ffffff) << 5) ^ value;
		BECH32_GENERATORS.forEach((generator, bit) => {
			if ((top >>> bit) & 1) checksum ^= generator;
		});
	}
	return checksum >>> 0;
}

/** Regroups bits without padding (as SegWit decoding requires): leftover bits must be fewer than `fromBits` and all zero. */
function convertBits(
	words: number[],
	fromBits: number,
	toBits: number,
): { values: number[] } | { error: string } {
	let accumulator = 0;
	let bitCount = 0;
	const values: number[] = [];
	const maxValue = (1 << toBits) - 1;
	for (const word of words) {
		accumulator = ((accumulator << fromBits) | word) & 0xffffff;
		bitCount += fromBits;
		while (bitCount >= toBits) {
			bitCount -= toBits;
			values.push((accumulator >> bitCount) & maxValue);
		}
	}
	if (bitCount >= fromBits || ((accumulator << (toBits - bitCount)) & maxValue) !== 0) {
		return { error: WRONG_LENGTH };
	}
	return { values };
}

// ---------------------------------------------------------------------------------------
// Ark addresses (Arkade's off-chain Bitcoin)

/** Which network an Ark address is for: `ark` is mainnet; every test network (signet, mutinynet, regtest) uses `tark`. */
export type ArkNetwork = 'mainnet' | 'test';

export interface ParsedArkAddress {
	network: ArkNetwork;
	version: number;
	/** The Ark server's x-only public key (hex). */
	serverKey: string;
	/** The x-only taproot output key of the VTXO the address pays to (hex). */
	vtxoTaprootKey: string;
}

const ARK_HRP_NETWORKS: Record<string, ArkNetwork> = { ark: 'mainnet', tark: 'test' };
/** Arkade's SDK decodes Ark addresses with bech32m's largest limit, not BIP-173's 90 characters. */
const ARK_ADDRESS_MAX_LENGTH = 1023;
/** A version byte, the server's 32-byte x-only key, the VTXO's 32-byte taproot key. */
const ARK_ADDRESS_BYTES = 65;
const ARK_ADDRESS_VERSION = 0;

/** Whether the text starts like an Ark address (`ark1…` or `tark1…`, either case), valid or not. */
export function looksLikeArkAddress(address: string): boolean {
	return /^t?ark1/i.test(address);
}

/**
 * Fully validates an Ark address: bech32m (BIP-350) with the prefix `ark` (mainnet) or `tark` (test
 * networks), holding exactly 65 bytes: version 0, the server's x-only key, the VTXO's taproot key.
 * Whether the keys lie on the curve is left to the caller. Surrounding whitespace is an error.
 */
export function parseArkAddress(address: string): ParsedArkAddress | { error: string } {
	if (address.length === 0) return { error: 'empty' };
	if (/\s/.test(address)) return { error: 'contains spaces or line breaks' };
	if (!looksLikeArkAddress(address)) {
		return { error: 'not an Ark address (it starts neither with ark1 nor with tark1)' };
	}
	const hrp = address.slice(0, address.indexOf('1')).toLowerCase();
	const forbidden = findForbiddenBech32DataCharacter(address.slice(hrp.length + 1));
	if (forbidden !== undefined) {
		return {
			error: `contains '${forbidden}', which never appears in this kind of address (1, b, i and o are not used after the prefix)`,
		};
	}
	const decoded = decodeBech32(address, ARK_ADDRESS_MAX_LENGTH);
	if ('error' in decoded) return decoded;
	if (decoded.encoding !== 'bech32m') {
		return {
			error:
				'checksum does not match (a character is mistyped, or it was made with bech32 where Ark uses bech32m)',
		};
	}
	const data = convertBits(decoded.words, 5, 8);
	if ('error' in data) return data;
	return interpretArkData(data.values, ARK_HRP_NETWORKS[decoded.hrp]);
}

function interpretArkData(
	bytes: number[],
	network: ArkNetwork,
): ParsedArkAddress | { error: string } {
	if (bytes.length === ARK_ADDRESS_BYTES - 1) {
		return {
			error:
				'holds 64 bytes, the early Ark address format without a version byte, which current Ark wallets no longer read; use an address your Ark wallet gives you now',
		};
	}
	if (bytes.length !== ARK_ADDRESS_BYTES) {
		return { error: `${WRONG_LENGTH}: it holds ${bytes.length} bytes instead of 65` };
	}
	if (bytes[0] !== ARK_ADDRESS_VERSION)
		return { error: `unknown Ark address version (${bytes[0]})` };
	return {
		network,
		version: bytes[0],
		serverKey: Buffer.from(bytes.slice(1, 33)).toString('hex'),
		vtxoTaprootKey: Buffer.from(bytes.slice(33, 65)).toString('hex'),
	};
}

// ---------------------------------------------------------------------------------------
// Raw transactions (consensus serialization, BIP-144 for SegWit)

/** One input of a parsed transaction. */
export interface ParsedTransactionInput {
	/** The spent output's transaction ID, as block explorers show it (byte-reversed hex). */
	previousTxid: string;
	previousVout: number;
	scriptSigBytes: number;
	sequence: number;
	/** Witness stack items (0 without SegWit). */
	witnessItems: number;
}

/** One output of a parsed transaction. */
export interface ParsedTransactionOutput {
	valueSats: bigint;
	scriptPubKeyBytes: number;
}

/** What the whole serialization of a Bitcoin transaction holds. */
export interface ParsedTransaction {
	version: number;
	segwit: boolean;
	inputs: ParsedTransactionInput[];
	outputs: ParsedTransactionOutput[];
	lockTime: number;
	sizeBytes: number;
	weight: number;
	/** Double SHA-256 of the serialization without witnesses, byte-reversed. */
	txid: string;
}

/** The start of every PSBT (BIP-174): "psbt" and 0xff. */
export const PSBT_MAGIC_HEX = '70736274ff';
const PSBT_MAGIC = Buffer.from(PSBT_MAGIC_HEX, 'hex');
/** The same five bytes in base64 (their first 7 characters), as wallets often export a PSBT. */
export const PSBT_MAGIC_BASE64 = 'cHNidP8';
export const PSBT_NOT_TRANSACTION =
	'this is a PSBT, not a signed transaction: finalize and extract it first';

/** 21 million BTC in satoshis: no output can pay more. */
const MAX_MONEY_SATS = 2_100_000_000_000_000n;
const TXID_BYTES = 32;
/** Version, input count, one input (36 + 1 + 4), output count, one output (8 + 1), lock time. */
const MIN_INPUT_BYTES = TXID_BYTES + 4 + 1 + 4;
const MIN_OUTPUT_BYTES = 8 + 1;

/** What is wrong with a serialization being read (a transaction, a PSBT), as its reader found it. */
export class TransactionProblem extends Error {}

/** Reads a serialization front to back; every read names what it reads, for the error. */
export class TransactionReader {
	offset = 0;

	/** `cutOff` is the question an early end raises, e.g. "is the hex cut off?". */
	constructor(
		readonly bytes: Uint8Array,
		private readonly cutOff = 'is the hex cut off?',
	) {}

	get remaining(): number {
		return this.bytes.length - this.offset;
	}

	take(length: number, what: string): Uint8Array {
		if (length > this.remaining) {
			const missing = length - this.remaining;
			throw new TransactionProblem(
				`ends too early: ${what} needs ${missing} more byte${missing === 1 ? '' : 's'} (${this.cutOff})`,
			);
		}
		const slice = this.bytes.subarray(this.offset, this.offset + length);
		this.offset += length;
		return slice;
	}

	byte(what: string): number {
		return this.take(1, what)[0];
	}

	uint32(what: string): number {
		const b = this.take(4, what);
		return (b[0] | (b[1] << 8) | (b[2] << 16)) + b[3] * 0x1000000;
	}

	uint64(what: string): bigint {
		const b = this.take(8, what);
		let value = 0n;
		for (let i = 7; i >= 0; i--) value = (value << 8n) | BigInt(b[i]);
		return value;
	}

	/** A CompactSize count, which must use its shortest form. */
	count(what: string): number {
		const first = this.byte(what);
		if (first < 0xfd) return first;
		const width = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
		const b = this.take(width, what);
		let value = 0n;
		for (let i = width - 1; i >= 0; i--) value = (value << 8n) | BigInt(b[i]);
		const smallest = first === 0xfd ? 0xfdn : first === 0xfe ? 0x10000n : 0x100000000n;
		if (value < smallest)
			throw new TransactionProblem(
				`${what} is not encoded in its shortest form, so this is no valid serialization`,
			);
		if (value > BigInt(this.remaining)) {
			throw new TransactionProblem(
				`${what} says ${value}, more than the ${this.remaining} bytes left could hold (${this.cutOff})`,
			);
		}
		return Number(value);
	}

	/** A count of items each at least `minBytes` long, checked against what is left before any is read. */
	itemCount(what: string, minBytes: number): number {
		const count = this.count(what);
		if (count * minBytes > this.remaining) {
			throw new TransactionProblem(
				`${what} says ${count}, more than the ${this.remaining} bytes left could hold (${this.cutOff})`,
			);
		}
		return count;
	}
}

/**
 * Parses the whole consensus serialization of a Bitcoin transaction: version, the optional SegWit
 * marker and flag, inputs, outputs, witnesses and lock time, with nothing left over. A transaction
 * needs at least one input and one output. Returns what it holds, or what is wrong with it.
 */
export function parseBitcoinTransaction(bytes: Uint8Array): ParsedTransaction | { error: string } {
	if (hasPsbtMagic(bytes)) return { error: PSBT_NOT_TRANSACTION };
	try {
		return readTransaction(new TransactionReader(bytes));
	} catch (error) {
		return {
			error:
				error instanceof TransactionProblem ? error.message : 'could not be read as a transaction',
		};
	}
}

/** The same for hex text (either case), as wallets and `bitcoin-cli` give a signed transaction. */
export function parseBitcoinTransactionHex(hex: string): ParsedTransaction | { error: string } {
	if (hex.startsWith(PSBT_MAGIC_BASE64) || hex.toLowerCase().startsWith(PSBT_MAGIC_HEX))
		return { error: PSBT_NOT_TRANSACTION };
	const bytes = decodeHex(hex);
	return 'error' in bytes ? bytes : parseBitcoinTransaction(bytes.bytes);
}

export function hasPsbtMagic(bytes: Uint8Array): boolean {
	return PSBT_MAGIC.equals(bytes.subarray(0, PSBT_MAGIC.length));
}

/** Hex text to bytes; the error names the first character that is not a hexadecimal digit. */
export function decodeHex(hex: string): { bytes: Uint8Array } | { error: string } {
	const bad = hex.search(/[^0-9a-fA-F]/);
	if (bad >= 0) {
		return {
			error: `contains ${JSON.stringify(hex[bad])} at position ${bad + 1}, which is not a hexadecimal digit (0-9, a-f)`,
		};
	}
	if (hex.length % 2 !== 0) {
		return {
			error: `has an odd number of hexadecimal digits (${hex.length}): a digit is missing or extra`,
		};
	}
	return { bytes: Uint8Array.from(Buffer.from(hex, 'hex')) };
}

function readTransaction(reader: TransactionReader): ParsedTransaction {
	const { bytes } = reader;
	const version = reader.uint32('the version');
	let segwit = false;
	let inputCount = reader.itemCount('the input count', MIN_INPUT_BYTES);
	if (inputCount === 0) {
		// A zero input count is the SegWit marker (BIP-144); the flag after it must be 1.
		const flag = reader.byte('the SegWit flag');
		if (flag !== 1)
			throw new TransactionProblem(
				`has no inputs, or a SegWit marker with flag ${flag} instead of 1`,
			);
		segwit = true;
		inputCount = reader.itemCount('the input count', MIN_INPUT_BYTES);
		if (inputCount === 0) throw new TransactionProblem('has no inputs');
	}
	const inputs: ParsedTransactionInput[] = [];
	for (let n = 1; n <= inputCount; n++) inputs.push(readInput(reader, `input ${n}`));
	const outputCount = reader.itemCount('the output count', MIN_OUTPUT_BYTES);
	if (outputCount === 0) throw new TransactionProblem('has no outputs');
	const outputs: ParsedTransactionOutput[] = [];
	for (let n = 1; n <= outputCount; n++) outputs.push(readOutput(reader, `output ${n}`));
	const strippedEnd = reader.offset;
	if (segwit) {
		for (const [index, input] of inputs.entries())
			input.witnessItems = readWitness(reader, `input ${index + 1}'s witness`);
		if (inputs.every((input) => input.witnessItems === 0)) {
			throw new TransactionProblem(
				'has the SegWit marker but no witness data, so this is no valid serialization',
			);
		}
	}
	const lockTime = reader.uint32('the lock time');
	if (reader.remaining > 0) {
		throw new TransactionProblem(
			`has ${reader.remaining} byte${reader.remaining === 1 ? '' : 's'} left after the lock time: extra data, or more than one transaction`,
		);
	}
	// Without SegWit the transaction ID covers everything; with it, everything but marker, flag and witnesses.
	const strippedForm = segwit ? withoutWitness(bytes, strippedEnd) : bytes;
	return {
		version,
		segwit,
		inputs,
		outputs,
		lockTime,
		sizeBytes: bytes.length,
		weight: strippedForm.length * 3 + bytes.length,
		txid: Buffer.from(doubleSha256(strippedForm).reverse()).toString('hex'),
	};
}

/** Version, the inputs and outputs (from the input count after marker and flag) and the lock time. */
function withoutWitness(bytes: Uint8Array, outputsEnd: number): Uint8Array {
	const middle = bytes.subarray(6, outputsEnd);
	const stripped = new Uint8Array(4 + middle.length + 4);
	stripped.set(bytes.subarray(0, 4), 0);
	stripped.set(middle, 4);
	stripped.set(bytes.subarray(bytes.length - 4), 4 + middle.length);
	return stripped;
}

function readInput(reader: TransactionReader, name: string): ParsedTransactionInput {
	const previousTxid = Buffer.from(reader.take(TXID_BYTES, `${name}'s previous transaction ID`))
		.reverse()
		.toString('hex');
	const previousVout = reader.uint32(`${name}'s output index`);
	const scriptSigBytes = reader.count(`${name}'s scriptSig length`);
	reader.take(scriptSigBytes, `${name}'s scriptSig`);
	const sequence = reader.uint32(`${name}'s sequence`);
	return { previousTxid, previousVout, scriptSigBytes, sequence, witnessItems: 0 };
}

function readOutput(reader: TransactionReader, name: string): ParsedTransactionOutput {
	const valueSats = reader.uint64(`${name}'s amount`);
	if (valueSats > MAX_MONEY_SATS) {
		throw new TransactionProblem(
			`${name} pays ${valueSats} sats, more than 21 million BTC: this is not a transaction`,
		);
	}
	const scriptPubKeyBytes = reader.count(`${name}'s script length`);
	reader.take(scriptPubKeyBytes, `${name}'s script`);
	return { valueSats, scriptPubKeyBytes };
}

function readWitness(reader: TransactionReader, name: string): number {
	const items = reader.itemCount(`${name} item count`, 1);
	for (let n = 1; n <= items; n++)
		reader.take(reader.count(`${name} item ${n} length`), `${name} item ${n}`);
	return items;
}
