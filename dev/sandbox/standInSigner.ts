/**
 * A STAND-IN FOR THE BORROWER'S EXTERNAL SIGNER — for the sandbox only. It does what a wallet does
 * with the claim or recovery PSBT (add the borrower's signature, finalize, extract the raw
 * transaction) but without any key: the "signature" is a well-formed fake that only the sandbox
 * accepts. Against Lendasat, sign with the real key behind `borrower_pk` in your own wallet.
 */
import { createHash } from 'node:crypto';

function readCompactSize(bytes: Buffer, at: number): { value: number; next: number } {
	const first = bytes[at];
	if (first < 0xfd) return { value: first, next: at + 1 };
	if (first === 0xfd) return { value: bytes.readUInt16LE(at + 1), next: at + 3 };
	if (first === 0xfe) return { value: bytes.readUInt32LE(at + 1), next: at + 5 };
	return { value: Number(bytes.readBigUInt64LE(at + 1)), next: at + 9 };
}

function compactSize(value: number): Buffer {
	if (value < 0xfd) return Buffer.from([value]);
	const buffer = Buffer.alloc(3);
	buffer[0] = 0xfd;
	buffer.writeUInt16LE(value, 1);
	return buffer;
}

/** The key-value maps of a PSBT: the global one, then one per input and one per output. */
function readMaps(psbt: Buffer): Map<number, Buffer>[] {
	if (psbt.subarray(0, 5).toString('hex') !== '70736274ff') throw new Error('not a PSBT');
	const maps: Map<number, Buffer>[] = [];
	let at = 5;
	let current = new Map<number, Buffer>();
	while (at < psbt.length) {
		const keyLength = readCompactSize(psbt, at);
		at = keyLength.next;
		if (keyLength.value === 0) {
			maps.push(current);
			current = new Map();
			continue;
		}
		const keyType = psbt[at];
		at += keyLength.value;
		const valueLength = readCompactSize(psbt, at);
		current.set(keyType, psbt.subarray(valueLength.next, valueLength.next + valueLength.value));
		at = valueLength.next + valueLength.value;
	}
	return maps;
}

function fakeSignature(label: string): Buffer {
	const part = (name: string) => {
		const bytes = createHash('sha256').update(`${label}:${name}`).digest();
		bytes[0] = (bytes[0] & 0x3f) | 0x01;
		return bytes;
	};
	return Buffer.concat([
		Buffer.from([0x30, 0x44, 0x02, 0x20]),
		part('r'),
		Buffer.from([0x02, 0x20]),
		part('s'),
		Buffer.from([0x01]),
	]);
}

/**
 * "Signs" a 2-of-3 P2WSH collateral PSBT (hex) and returns the finalized transaction in hex: each input
 * gets the witness `<empty> <sig> <sig> <witness script>`.
 */
export function standInSign(psbtHex: string): string {
	const maps = readMaps(Buffer.from(psbtHex, 'hex'));
	const unsigned = maps[0].get(0x00);
	if (!unsigned) throw new Error('the PSBT has no unsigned transaction');
	const inputCount = readCompactSize(unsigned, 4).value;
	const witnesses = Array.from({ length: inputCount }, (_, index) => {
		const script = maps[1 + index]?.get(0x05) ?? Buffer.alloc(0);
		const items = [
			Buffer.alloc(0),
			fakeSignature(`${psbtHex}:${index}:a`),
			fakeSignature(`${psbtHex}:${index}:b`),
			script,
		];
		return Buffer.concat([
			compactSize(items.length),
			...items.map((item) => Buffer.concat([compactSize(item.length), item])),
		]);
	});
	return Buffer.concat([
		unsigned.subarray(0, 4),
		Buffer.from([0x00, 0x01]),
		unsigned.subarray(4, unsigned.length - 4),
		...witnesses,
		unsigned.subarray(unsigned.length - 4),
	]).toString('hex');
}

/** The unsigned transaction inside a PSBT (hex), e.g. to show that an unsigned one is refused. */
export function unsignedTransactionOf(psbtHex: string): string {
	const unsigned = readMaps(Buffer.from(psbtHex, 'hex'))[0].get(0x00);
	if (!unsigned) throw new Error('the PSBT has no unsigned transaction');
	return unsigned.toString('hex');
}
