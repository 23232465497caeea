/**
 * The Bitcoin the collateral routes need, with Node built-ins only: reading a raw transaction the way
 * the backend's `bitcoin::consensus::encode::deserialize_hex` does (bitcoin 0.32), its txid, and a
 * syntactically real PSBT (BIP-174) spending a contract's collateral, with its output descriptor.
 * Nothing here signs anything: the hub's "signature" in the PSBT is a well-formed stand-in.
 */
import { ECDH, createHash } from 'node:crypto';

function sha256(data: Buffer): Buffer {
	return createHash('sha256').update(data).digest();
}

function sha256d(data: Buffer): Buffer {
	return sha256(sha256(data));
}

// ---------------------------------------------------------------------------------------------
// Reading a transaction

export interface TxInput {
	/** Display (byte-reversed) hex of the spent transaction. */
	txid: string;
	vout: number;
	scriptSig: Buffer;
	sequence: number;
	witness: Buffer[];
}

export interface TxOutput {
	value: bigint;
	script: Buffer;
}

export interface Transaction {
	version: number;
	inputs: TxInput[];
	outputs: TxOutput[];
	lockTime: number;
}

class Reader {
	at = 0;

	constructor(private readonly bytes: Buffer) {}

	take(length: number): Buffer {
		if (length < 0 || this.at + length > this.bytes.length)
			throw new Error('unexpected end of data');
		const slice = this.bytes.subarray(this.at, this.at + length);
		this.at += length;
		return slice;
	}

	u8(): number {
		return this.take(1)[0];
	}

	u32(): number {
		return this.take(4).readUInt32LE(0);
	}

	u64(): bigint {
		return this.take(8).readBigUInt64LE(0);
	}

	/** CompactSize, minimal encoding required (rust-bitcoin: "non-minimal varint"). */
	varint(): number {
		const first = this.u8();
		if (first < 0xfd) return first;
		const value =
			first === 0xfd
				? BigInt(this.take(2).readUInt16LE(0))
				: first === 0xfe
					? BigInt(this.u32())
					: this.u64();
		const smallest = first === 0xfd ? 0xfdn : first === 0xfe ? 0x10000n : 0x100000000n;
		if (value < smallest) throw new Error('non-minimal varint');
		if (value > 4_000_000n) throw new Error('oversized vector allocation');
		return Number(value);
	}

	bytesWithLength(): Buffer {
		return this.take(this.varint());
	}

	get done(): boolean {
		return this.at === this.bytes.length;
	}
}

function readInputs(reader: Reader): TxInput[] {
	const count = reader.varint();
	const inputs: TxInput[] = [];
	for (let index = 0; index < count; index += 1) {
		const txid = Buffer.from(reader.take(32)).reverse().toString('hex');
		const vout = reader.u32();
		const scriptSig = reader.bytesWithLength();
		inputs.push({ txid, vout, scriptSig, sequence: reader.u32(), witness: [] });
	}
	return inputs;
}

function readOutputs(reader: Reader): TxOutput[] {
	const count = reader.varint();
	const outputs: TxOutput[] = [];
	for (let index = 0; index < count; index += 1)
		outputs.push({ value: reader.u64(), script: reader.bytesWithLength() });
	return outputs;
}

/**
 * bitcoin 0.32 `Transaction::consensus_decode` behind `deserialize_hex`: hex of even length, the whole
 * input consumed. An empty input list is read as the SegWit marker and must be followed by flag 1;
 * "witness flag set but no witnesses present" is an error. Unlike the node, rust-bitcoin accepts a
 * transaction without inputs (after the marker) or without outputs. Returns null when it fails.
 */
export function parseTransactionHex(hex: string): Transaction | null {
	if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
	const reader = new Reader(Buffer.from(hex, 'hex'));
	try {
		const version = reader.u32();
		let inputs = readInputs(reader);
		let outputs: TxOutput[];
		if (inputs.length === 0) {
			if (reader.u8() !== 1) return null;
			inputs = readInputs(reader);
			outputs = readOutputs(reader);
			for (const input of inputs) {
				const items = reader.varint();
				for (let item = 0; item < items; item += 1) input.witness.push(reader.bytesWithLength());
			}
			if (inputs.length > 0 && inputs.every((input) => input.witness.length === 0)) return null;
		} else {
			outputs = readOutputs(reader);
		}
		const lockTime = reader.u32();
		return reader.done ? { version, inputs, outputs, lockTime } : null;
	} catch {
		return null;
	}
}

function varint(value: number): Buffer {
	if (value < 0xfd) return Buffer.from([value]);
	if (value <= 0xffff) {
		const buffer = Buffer.alloc(3);
		buffer[0] = 0xfd;
		buffer.writeUInt16LE(value, 1);
		return buffer;
	}
	const buffer = Buffer.alloc(5);
	buffer[0] = 0xfe;
	buffer.writeUInt32LE(value, 1);
	return buffer;
}

function withLength(bytes: Buffer): Buffer {
	return Buffer.concat([varint(bytes.length), bytes]);
}

function u32(value: number): Buffer {
	const buffer = Buffer.alloc(4);
	buffer.writeUInt32LE(value >>> 0, 0);
	return buffer;
}

function u64(value: bigint): Buffer {
	const buffer = Buffer.alloc(8);
	buffer.writeBigUInt64LE(value, 0);
	return buffer;
}

/** The serialization without witnesses (what the txid hashes, and a PSBT's unsigned transaction). */
export function serializeWithoutWitness(tx: Transaction): Buffer {
	return Buffer.concat([
		u32(tx.version),
		varint(tx.inputs.length),
		...tx.inputs.map((input) =>
			Buffer.concat([
				Buffer.from(input.txid, 'hex').reverse(),
				u32(input.vout),
				withLength(input.scriptSig),
				u32(input.sequence),
			]),
		),
		varint(tx.outputs.length),
		...tx.outputs.map((output) => Buffer.concat([u64(output.value), withLength(output.script)])),
		u32(tx.lockTime),
	]);
}

export function txidOf(tx: Transaction): string {
	return Buffer.from(sha256d(serializeWithoutWitness(tx)))
		.reverse()
		.toString('hex');
}

// ---------------------------------------------------------------------------------------------
// Addresses and scripts

export const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

/** BIP-173's checksum polynomial over expanded human-readable part and data words. */
export function bech32Polymod(values: number[]): number {
	let checksum = 1;
	for (const value of values) {
		const top = checksum >>> 25;
		checksum = ((checksum & 0x1ffffff) << 5) ^ value;
		for (let bit = 0; bit < 5; bit += 1) if ((top >>> bit) & 1) checksum ^= BECH32_GENERATOR[bit];
	}
	return checksum >>> 0;
}

/** The bech32 checksum of a human-readable part and data words: 1 for a valid bech32 string (BIP-173). */
export function bech32Checksum(hrp: string, words: number[]): number {
	return bech32Polymod([...expandHrp(hrp), ...words]);
}

function expandHrp(hrp: string): number[] {
	return [
		...[...hrp].map((char) => char.charCodeAt(0) >> 5),
		0,
		...[...hrp].map((char) => char.charCodeAt(0) & 31),
	];
}

function toWords(bytes: Buffer): number[] {
	const words: number[] = [];
	let accumulator = 0;
	let bits = 0;
	for (const byte of bytes) {
		accumulator = (accumulator << 8) | byte;
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			words.push((accumulator >>> bits) & 31);
		}
	}
	if (bits > 0) words.push((accumulator << (5 - bits)) & 31);
	return words;
}

function fromWords(words: number[]): Buffer | null {
	const bytes: number[] = [];
	let accumulator = 0;
	let bits = 0;
	for (const word of words) {
		accumulator = ((accumulator << 5) | word) & 0xfff;
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			bytes.push((accumulator >>> bits) & 0xff);
		}
	}
	return bits >= 5 || ((accumulator << (8 - bits)) & 0xff) !== 0 ? null : Buffer.from(bytes);
}

/** A SegWit address (BIP-173 for version 0, BIP-350 after), with a valid checksum. */
export function segwitAddress(hrp: string, version: number, program: Buffer): string {
	return bech32String(hrp, [version, ...toWords(program)], version === 0 ? 'bech32' : 'bech32m');
}

/** Bytes as a bech32 or bech32m string with a valid checksum (Nostr keys, Ark addresses). */
export function bech32Encode(hrp: string, bytes: Buffer, encoding: 'bech32' | 'bech32m'): string {
	return bech32String(hrp, toWords(bytes), encoding);
}

const BECH32M_CONSTANT = 0x2bc830a3;

function bech32String(hrp: string, words: number[], encoding: 'bech32' | 'bech32m'): string {
	const constant = encoding === 'bech32' ? 1 : BECH32M_CONSTANT;
	const polymod = bech32Polymod([...expandHrp(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ constant;
	const checksum = Array.from({ length: 6 }, (_, index) => (polymod >>> (5 * (5 - index))) & 31);
	return `${hrp}1${[...words, ...checksum].map((value) => BECH32_CHARSET[value]).join('')}`;
}

/**
 * An Ark address (Arkade's ts-sdk ArkAddress.encode): bech32m of the version byte 0, the Ark server's
 * x-only key and the VTXO's taproot output key; `ark` on mainnet, `tark` on the test networks.
 */
export function arkAddress(hrp: 'ark' | 'tark', serverKey: Buffer, vtxoKey: Buffer): string {
	return bech32Encode(hrp, Buffer.concat([Buffer.from([0]), serverKey, vtxoKey]), 'bech32m');
}

/** The keys of an Ark address (ts-sdk ArkAddress.decode: bech32m, up to 1023 characters, 65 bytes), or null. */
export function decodeArkAddress(
	address: string,
): { hrp: string; serverKey: Buffer; vtxoKey: Buffer } | null {
	if (address !== address.toLowerCase() && address !== address.toUpperCase()) return null;
	const lower = address.toLowerCase();
	const separator = lower.lastIndexOf('1');
	const hrp = lower.slice(0, separator);
	if ((hrp !== 'ark' && hrp !== 'tark') || lower.length > 1023) return null;
	const words = [...lower.slice(separator + 1)].map((char) => BECH32_CHARSET.indexOf(char));
	if (words.length < 7 || words.includes(-1)) return null;
	if (bech32Checksum(hrp, words) !== BECH32M_CONSTANT) return null;
	const data = fromWords(words.slice(0, -6));
	if (!data || data.length !== 65 || data[0] !== 0) return null;
	return { hrp, serverKey: data.subarray(1, 33), vtxoKey: data.subarray(33) };
}

/** Whether 32 bytes are the x coordinate of a point on secp256k1 (an x-only key, BIP-340). */
export function isXOnlyKey(key: Buffer): boolean {
	if (key.length !== 32) return false;
	try {
		ECDH.convertKey(Buffer.concat([Buffer.from([2]), key]), 'secp256k1');
		return true;
	} catch {
		return false;
	}
}

/** An x-only key derived from a label: the first hash of `label:n` that lies on the curve (no known private key). */
export function xOnlyKeyFor(label: string): Buffer {
	for (let n = 0; ; n += 1) {
		const candidate = sha256(Buffer.from(`${label}:${n}`));
		if (isXOnlyKey(candidate)) return candidate;
	}
}

/** A signet/testnet P2WPKH address derived from a label (valid checksum, no known key). */
export function testnetAddressFor(label: string): string {
	return segwitAddress('tb', 0, sha256(Buffer.from(label)).subarray(0, 20));
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bytes with their double-SHA-256 checksum in base58 (Bitcoin's legacy addresses, Tron's addresses). */
export function base58Check(payload: Buffer): string {
	const bytes = Buffer.concat([payload, sha256(sha256(payload)).subarray(0, 4)]);
	let number = BigInt(`0x${bytes.toString('hex') || '0'}`);
	let text = '';
	while (number > 0n) {
		text = BASE58[Number(number % 58n)] + text;
		number /= 58n;
	}
	const zeros = bytes.length - bytes.toString('hex').replace(/^(00)+/, '').length / 2;
	return '1'.repeat(zeros) + text;
}

function segwitScript(address: string): Buffer | null {
	const lower = address.toLowerCase();
	const separator = lower.lastIndexOf('1');
	if (separator < 1) return null;
	const words = [...lower.slice(separator + 1)].map((char) => BECH32_CHARSET.indexOf(char));
	if (words.length < 7 || words.includes(-1)) return null;
	const version = words[0];
	const program = fromWords(words.slice(1, -6));
	if (!program || version > 16) return null;
	return Buffer.concat([
		Buffer.from([version === 0 ? 0 : 0x50 + version, program.length]),
		program,
	]);
}

function base58Script(address: string): Buffer | null {
	let number = 0n;
	for (const char of address) {
		const digit = BASE58.indexOf(char);
		if (digit < 0) return null;
		number = number * 58n + BigInt(digit);
	}
	const hex = number.toString(16).padStart(50, '0');
	if (hex.length !== 50) return null;
	const version = parseInt(hex.slice(0, 2), 16);
	const hash = Buffer.from(hex.slice(2, 42), 'hex');
	if (version === 0x00 || version === 0x6f)
		return Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), hash, Buffer.from([0x88, 0xac])]);
	if (version === 0x05 || version === 0xc4)
		return Buffer.concat([Buffer.from([0xa9, 0x14]), hash, Buffer.from([0x87])]);
	return null;
}

/**
 * The output script paying an address. The sandbox's own made-up addresses may not decode: they
 * get a P2WPKH script derived from their text, so that every contract has something to pay to.
 */
export function scriptForAddress(address: string): Buffer {
	const lower = address.toLowerCase();
	const decoded = /^(bc|tb|bcrt)1/.test(lower) ? segwitScript(address) : base58Script(address);
	return (
		decoded ??
		Buffer.concat([Buffer.from([0x00, 0x14]), sha256(Buffer.from(address)).subarray(0, 20)])
	);
}

// ---------------------------------------------------------------------------------------------
// Descriptors (BIP-380 checksum)

const DESCRIPTOR_INPUT_CHARSET =
	'0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const DESCRIPTOR_GENERATOR = [
	0xf5dee51989n,
	0xa9fdca3312n,
	0x1bab10e32dn,
	0x3706b1677an,
	0x644d626ffdn,
];

function descriptorPolymod(symbols: number[]): bigint {
	let checksum = 1n;
	for (const value of symbols) {
		const top = checksum >> 35n;
		checksum = ((checksum & 0x7ffffffffn) << 5n) ^ BigInt(value);
		for (let bit = 0; bit < 5; bit += 1)
			if ((top >> BigInt(bit)) & 1n) checksum ^= DESCRIPTOR_GENERATOR[bit];
	}
	return checksum;
}

/** The descriptor with its `#checksum`, as Bitcoin Core and rust-miniscript print it. */
export function withDescriptorChecksum(descriptor: string): string {
	const symbols: number[] = [];
	let groups: number[] = [];
	for (const char of descriptor) {
		const value = DESCRIPTOR_INPUT_CHARSET.indexOf(char);
		symbols.push(value & 31);
		groups.push(value >> 5);
		if (groups.length === 3) {
			symbols.push(groups[0] * 9 + groups[1] * 3 + groups[2]);
			groups = [];
		}
	}
	if (groups.length === 1) symbols.push(groups[0]);
	if (groups.length === 2) symbols.push(groups[0] * 3 + groups[1]);
	const checksum = descriptorPolymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
	const text = Array.from(
		{ length: 8 },
		(_, index) => BECH32_CHARSET[Number((checksum >> BigInt(5 * (7 - index))) & 31n)],
	).join('');
	return `${descriptor}#${text}`;
}

// ---------------------------------------------------------------------------------------------
// The collateral and its spending PSBT

/** OP_2 <k1> <k2> <k3> OP_3 OP_CHECKMULTISIG: the 2-of-3 escrow of a contract. */
export function multisigScript(publicKeys: string[]): Buffer {
	return Buffer.concat([
		Buffer.from([0x52]),
		...publicKeys.map((key) => Buffer.concat([Buffer.from([0x21]), Buffer.from(key, 'hex')])),
		Buffer.from([0x53, 0xae]),
	]);
}

export function p2wshScript(witnessScript: Buffer): Buffer {
	return Buffer.concat([Buffer.from([0x00, 0x20]), sha256(witnessScript)]);
}

/** A DER-shaped ECDSA signature with SIGHASH_ALL: the right form, no real signature. */
function standInSignature(label: string): Buffer {
	const part = (name: string) => {
		const bytes = sha256(Buffer.from(`${label}:${name}`));
		bytes[0] = (bytes[0] & 0x3f) | 0x01;
		return bytes;
	};
	const r = part('r');
	const s = part('s');
	return Buffer.concat([
		Buffer.from([0x30, 0x44, 0x02, 0x20]),
		r,
		Buffer.from([0x02, 0x20]),
		s,
		Buffer.from([0x01]),
	]);
}

function psbtPair(key: Buffer, value: Buffer): Buffer {
	return Buffer.concat([withLength(key), withLength(value)]);
}

export interface SpendPlan {
	/** The funding outpoint of the collateral. */
	collateralTxid: string;
	collateralVout: number;
	collateralSats: number;
	/** The three keys of the escrow, in script order; the hub's is `hubPk`. */
	publicKeys: string[];
	hubPk: string;
	outputs: { script: Buffer; sats: number }[];
	label: string;
}

/**
 * A BIP-174 PSBT (hex): the unsigned transaction, and for its one input the witness UTXO, the witness
 * script and the hub's partial signature (a stand-in); the outputs carry no fields.
 */
export function buildPsbt(plan: SpendPlan): { psbt: string; unsignedTx: Transaction } {
	const witnessScript = multisigScript(plan.publicKeys);
	const unsignedTx: Transaction = {
		version: 2,
		inputs: [
			{
				txid: plan.collateralTxid,
				vout: plan.collateralVout,
				scriptSig: Buffer.alloc(0),
				sequence: 0xfffffffd,
				witness: [],
			},
		],
		outputs: plan.outputs.map((output) => ({ value: BigInt(output.sats), script: output.script })),
		lockTime: 0,
	};
	const witnessUtxo = Buffer.concat([
		u64(BigInt(plan.collateralSats)),
		withLength(p2wshScript(witnessScript)),
	]);
	const psbt = Buffer.concat([
		Buffer.from('70736274ff', 'hex'),
		psbtPair(Buffer.from([0x00]), serializeWithoutWitness(unsignedTx)),
		Buffer.from([0x00]),
		psbtPair(Buffer.from([0x01]), witnessUtxo),
		psbtPair(
			Buffer.concat([Buffer.from([0x02]), Buffer.from(plan.hubPk, 'hex')]),
			standInSignature(plan.label),
		),
		psbtPair(Buffer.from([0x05]), witnessScript),
		Buffer.from([0x00]),
		...plan.outputs.map(() => Buffer.from([0x00])),
	]);
	return { psbt: psbt.toString('hex'), unsignedTx };
}

/** Virtual size of a spend of 2-of-3 P2WSH inputs to the given output scripts (for the miner fee). */
export function estimateVsize(inputs: number, outputScripts: Buffer[]): number {
	const outputs = outputScripts.reduce((sum, script) => sum + 8 + 1 + script.length, 0);
	// 10.5 vB of version, counts, lock time and SegWit marker; ~104.5 vB per 2-of-3 P2WSH input.
	return Math.ceil(10.5 + inputs * 104.5 + outputs);
}

// ---------------------------------------------------------------------------------------------
// PSBTs (BIP-174, version 0): reading and writing the key-value maps

export interface PsbtPair {
	key: Buffer;
	value: Buffer;
}

export interface Psbt {
	unsignedTx: Transaction;
	global: PsbtPair[];
	inputs: PsbtPair[][];
	outputs: PsbtPair[][];
}

export const PSBT_MAGIC = Buffer.from('70736274ff', 'hex');

/** PSBT input fields the sandbox uses (BIP-174, BIP-371). */
export const PSBT_IN = {
	WITNESS_UTXO: 0x01,
	PARTIAL_SIG: 0x02,
	WITNESS_SCRIPT: 0x05,
	TAP_SCRIPT_SIG: 0x14,
	TAP_LEAF_SCRIPT: 0x15,
} as const;

function readMap(reader: Reader): PsbtPair[] {
	const pairs: PsbtPair[] = [];
	for (;;) {
		const key = reader.bytesWithLength();
		if (key.length === 0) return pairs;
		if (pairs.some((pair) => pair.key.equals(key))) throw new Error('duplicate key');
		pairs.push({ key, value: reader.bytesWithLength() });
	}
}

/** rust-bitcoin's `Psbt::deserialize`, roughly: the magic, the maps, one per input and output, nothing after. Null when it fails. */
export function readPsbt(bytes: Buffer): Psbt | null {
	if (bytes.length < 5 || !bytes.subarray(0, 5).equals(PSBT_MAGIC)) return null;
	const reader = new Reader(bytes);
	try {
		reader.take(5);
		const global = readMap(reader);
		const raw = global.find((pair) => pair.key.length === 1 && pair.key[0] === 0x00)?.value;
		const unsignedTx = raw ? parseTransactionHex(raw.toString('hex')) : null;
		if (!unsignedTx || unsignedTx.inputs.some((input) => input.scriptSig.length > 0)) return null;
		const inputs = unsignedTx.inputs.map(() => readMap(reader));
		const outputs = unsignedTx.outputs.map(() => readMap(reader));
		return reader.done ? { unsignedTx, global, inputs, outputs } : null;
	} catch {
		return null;
	}
}

/** A PSBT given as text: hex, or standard base64; null for anything else. */
export function psbtFromText(text: string): { psbt: Psbt; encoding: 'hex' | 'base64' } | null {
	const hex = /^[0-9a-fA-F]+$/.test(text);
	if (!hex && !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text))
		return null;
	const psbt = readPsbt(Buffer.from(text, hex ? 'hex' : 'base64'));
	return psbt ? { psbt, encoding: hex ? 'hex' : 'base64' } : null;
}

export function writePsbt(psbt: Omit<Psbt, 'global'> & { global?: PsbtPair[] }): Buffer {
	const map = (pairs: PsbtPair[]) =>
		Buffer.concat([...pairs.map((pair) => psbtPair(pair.key, pair.value)), Buffer.from([0x00])]);
	const global = psbt.global ?? [
		{ key: Buffer.from([0x00]), value: serializeWithoutWitness(psbt.unsignedTx) },
	];
	return Buffer.concat([
		PSBT_MAGIC,
		map(global),
		...psbt.inputs.map(map),
		...psbt.outputs.map(map),
	]);
}

// ---------------------------------------------------------------------------------------------
// Taproot (BIP-341/342), as Arkade's VTXOs use it

export function taggedHash(tag: string, data: Buffer): Buffer {
	const tagHash = sha256(Buffer.from(tag));
	return sha256(Buffer.concat([tagHash, tagHash, data]));
}

const TAPSCRIPT_LEAF_VERSION = 0xc0;

/** The leaf hash of a tapscript (leaf version 0xc0). */
export function tapLeafHash(script: Buffer): Buffer {
	return taggedHash(
		'TapLeaf',
		Buffer.concat([Buffer.from([TAPSCRIPT_LEAF_VERSION]), withLength(script)]),
	);
}

/** `<k1> CHECKSIGVERIFY <k2> CHECKSIGVERIFY … <kn> CHECKSIG`: every key must sign (x-only keys). */
export function multisigTapscript(keys: Buffer[]): Buffer {
	return Buffer.concat(
		keys.map((key, index) =>
			Buffer.concat([
				Buffer.from([0x20]),
				key,
				Buffer.from([index === keys.length - 1 ? 0xac : 0xad]),
			]),
		),
	);
}

/** The x-only keys a multisig tapscript names, in order. */
export function tapscriptKeys(script: Buffer): Buffer[] {
	const keys: Buffer[] = [];
	for (let at = 0; at + 33 <= script.length && script[at] === 0x20; at += 34) {
		keys.push(script.subarray(at + 1, at + 33));
	}
	return keys;
}

export function p2trScript(outputKey: Buffer): Buffer {
	return Buffer.concat([Buffer.from([0x51, 0x20]), outputKey]);
}

/** Ark's anchor output: pay-to-anchor (P2A), zero value (fees are bumped through it). */
export const ANCHOR_OUTPUT: TxOutput = { value: 0n, script: Buffer.from('51024e73', 'hex') };

/** A PSBT input spending a taproot output through one leaf: witness UTXO and the leaf with its control block. */
export function tapscriptInputFields(
	outputKey: Buffer,
	sats: number,
	script: Buffer,
	internalKey: Buffer,
): PsbtPair[] {
	return [
		{
			key: Buffer.from([PSBT_IN.WITNESS_UTXO]),
			value: Buffer.concat([u64(BigInt(sats)), withLength(p2trScript(outputKey))]),
		},
		{
			key: Buffer.concat([
				Buffer.from([PSBT_IN.TAP_LEAF_SCRIPT, TAPSCRIPT_LEAF_VERSION]),
				internalKey,
			]),
			value: Buffer.concat([script, Buffer.from([TAPSCRIPT_LEAF_VERSION])]),
		},
	];
}

/** The tapscript of a PSBT input (its first leaf script), or undefined. */
export function leafScriptOf(input: PsbtPair[]): Buffer | undefined {
	const leaf = input.find((pair) => pair.key[0] === PSBT_IN.TAP_LEAF_SCRIPT);
	return leaf?.value.subarray(0, leaf.value.length - 1);
}

/** The key of a tap script signature: the signer's x-only key and the leaf hash (BIP-371). */
export function tapScriptSigKey(signer: Buffer, script: Buffer): Buffer {
	return Buffer.concat([Buffer.from([PSBT_IN.TAP_SCRIPT_SIG]), signer, tapLeafHash(script)]);
}

/** A 64-byte BIP-340-shaped signature made from a label: the right form, no real signature. */
export function standInSchnorrSignature(label: string): Buffer {
	return Buffer.concat([sha256(Buffer.from(`${label}:r`)), sha256(Buffer.from(`${label}:s`))]);
}
