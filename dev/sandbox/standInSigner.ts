/**
 * A STAND-IN FOR THE BORROWER'S EXTERNAL SIGNER — for the sandbox only. It does what a wallet does
 * with the PSBTs Lendasat hands out, but without any key: the "signatures" are well-formed fakes that
 * only the sandbox accepts. Against Lendasat, sign with the real key behind `borrower_pk` in your own
 * wallet or signer.
 * - on-chain claim or recovery PSBT (hex): add the borrower's signature, finalize, extract the raw
 *   transaction (`standInSign`);
 * - Arkade PSBTs (claim-ark's hex, settle-ark's base64): add the borrower's tap script signature to
 *   every input and give the PSBT back in the same encoding, unfinalized (`standInSignArk`).
 */
import { createHash } from 'node:crypto';

import {
	leafScriptOf,
	psbtFromText,
	readPsbt,
	standInSchnorrSignature,
	tapScriptSigKey,
	tapscriptKeys,
	txidOf,
	writePsbt,
	PSBT_IN,
} from './bitcoin';

function compactSize(value: number): Buffer {
	if (value < 0xfd) return Buffer.from([value]);
	const buffer = Buffer.alloc(3);
	buffer[0] = 0xfd;
	buffer.writeUInt16LE(value, 1);
	return buffer;
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

/** The PSBT (hex) read, or the error a signer would give for something else. */
function psbtOfHex(psbtHex: string) {
	const psbt = readPsbt(Buffer.from(psbtHex, 'hex'));
	if (!psbt) throw new Error('not a PSBT');
	return psbt;
}

/**
 * "Signs" a 2-of-3 P2WSH collateral PSBT (hex) and returns the finalized transaction in hex: each input
 * gets the witness `<empty> <sig> <sig> <witness script>`.
 */
export function standInSign(psbtHex: string): string {
	const psbt = psbtOfHex(psbtHex);
	const unsigned = unsignedBytes(psbt);
	const witnesses = psbt.inputs.map((input, index) => {
		const script =
			input.find((pair) => pair.key[0] === PSBT_IN.WITNESS_SCRIPT)?.value ?? Buffer.alloc(0);
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

function unsignedBytes(psbt: ReturnType<typeof psbtOfHex>): Buffer {
	const unsigned = psbt.global.find((pair) => pair.key.length === 1 && pair.key[0] === 0x00);
	if (!unsigned) throw new Error('the PSBT has no unsigned transaction');
	return unsigned.value;
}

/** The unsigned transaction inside a PSBT (hex), e.g. to show that an unsigned one is refused. */
export function unsignedTransactionOf(psbtHex: string): string {
	return unsignedBytes(psbtOfHex(psbtHex)).toString('hex');
}

/** The stand-in signature of the borrower's key on input `index` of transaction `txid`, as the sandbox expects it. */
export function borrowerStandInSignature(txid: string, index: number, key: Buffer): Buffer {
	return standInSchnorrSignature(`borrower:${txid}:${index}:${key.toString('hex')}`);
}

/**
 * "Signs" an Arkade PSBT (hex or base64, as claim-ark and settle-ark give them): every input with a
 * tapscript gets the signature of the script's first key (the borrower's, in Lendasat's collateral
 * script), as a tap script signature (BIP-371). Returned in the encoding it came in.
 */
export function standInSignArk(text: string): string {
	const read = psbtFromText(text.trim());
	if (!read) throw new Error('not a PSBT in hex or base64');
	const { psbt, encoding } = read;
	const txid = txidOf(psbt.unsignedTx);
	const inputs = psbt.inputs.map((input, index) => {
		const script = leafScriptOf(input);
		const signer = script && tapscriptKeys(script)[0];
		if (!script || !signer) return input;
		const key = tapScriptSigKey(signer, script);
		if (input.some((pair) => pair.key.equals(key))) return input;
		return [...input, { key, value: borrowerStandInSignature(txid, index, signer) }];
	});
	return writePsbt({ ...psbt, inputs }).toString(encoding);
}
