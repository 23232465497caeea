import { N, bytesToBigInt } from '../encryption/secp256k1';
import { describeValue, type ValidationProblem } from './checks';

/**
 * A recoverable ECDSA signature of a Bitcoin signed message, in the two forms wallets give it:
 * - 65 bytes, base64 (or hex): a header byte 27–42, then r and s: what Bitcoin Core's signmessage and
 *   signmessagewithprivkey, Electrum and Sparrow return. The header carries the recovery ID.
 * - 64 bytes in hex, r then s ("compact"), with the recovery ID 0–3 beside it: what Lendasat's own
 *   wallet sends as recoverable_signature_hex and recoverable_signature_id.
 */
export interface RecoverableSignature {
	/** r and s, 128 lower-case hexadecimal characters. */
	compactHex: string;
	recoveryId: number;
}

const HEADER_MIN = 27;
const HEADER_MAX = 42;
const BASE64_PATTERN = /^[A-Za-z0-9+/]{87}=$/;
const EXAMPLE =
	'the base64 signature a wallet gives (88 characters, e.g. from Bitcoin Core signmessagewithprivkey), or 128 hexadecimal characters (r and s) with Recovery ID set';

/**
 * The signature and its recovery ID, or what is wrong. `recoveryId` is the Recovery ID parameter: a
 * number 0–3, or undefined when the signature is to carry it.
 */
export function readRecoverableSignature(
	value: unknown,
	recoveryId: number | undefined,
): RecoverableSignature | { problem: string } {
	if (typeof value !== 'string')
		return { problem: `Expected ${EXAMPLE}, got ${describeValue(value)}.` };
	const text = value.replace(/\s+/g, '');
	if (text === '') return { problem: `Must not be empty. Enter ${EXAMPLE}.` };
	const bytes = bytesOf(text);
	if ('problem' in bytes) return bytes;
	if (bytes.value.length === 64) {
		if (recoveryId === undefined) {
			return {
				problem:
					'A 64-byte signature (128 hexadecimal characters) does not carry its recovery ID: set Recovery ID to the 0–3 your signer gave with it.',
			};
		}
		return withRange(bytes.value, recoveryId);
	}
	const header = bytes.value[0];
	if (header < HEADER_MIN || header > HEADER_MAX) {
		return {
			problem: `The first byte of a 65-byte signature is ${header}, not a Bitcoin signed-message header (27 to 42). Enter ${EXAMPLE}.`,
		};
	}
	const carried = (header - HEADER_MIN) & 3;
	if (recoveryId !== undefined && recoveryId !== carried) {
		return {
			problem: `The signature carries recovery ID ${carried}, but Recovery ID is set to ${recoveryId}: set Recovery ID to Included in the Signature.`,
		};
	}
	return withRange(bytes.value.subarray(1), carried);
}

function bytesOf(text: string): { value: Uint8Array } | { problem: string } {
	if (/^[0-9a-fA-F]+$/.test(text)) {
		if (text.length === 128 || text.length === 130)
			return { value: Uint8Array.from(Buffer.from(text, 'hex')) };
		return {
			problem: `${describeValue(text)} is ${text.length} hexadecimal characters; a signature is 128 (r and s) or 130 (with its header byte). Enter ${EXAMPLE}.`,
		};
	}
	if (BASE64_PATTERN.test(text)) return { value: Uint8Array.from(Buffer.from(text, 'base64')) };
	return {
		problem: `${describeValue(text)} is neither a base64 signature of 65 bytes nor a hexadecimal one. Enter ${EXAMPLE}.`,
	};
}

/** r and s must each lie in 1 … n−1, or no key can have made the signature. */
function withRange(rs: Uint8Array, recoveryId: number): RecoverableSignature | { problem: string } {
	const r = bytesToBigInt(rs.subarray(0, 32));
	const s = bytesToBigInt(rs.subarray(32, 64));
	if (r === 0n || s === 0n || r >= N || s >= N)
		return {
			problem:
				'This is not a valid signature: its r or s value is out of range (zero or too large).',
		};
	return { compactHex: Buffer.from(rs).toString('hex'), recoveryId };
}

/** The Recovery ID parameter: one of 0–3, or undefined for "Included in the Signature". */
export function checkRecoveryId(value: unknown): ValidationProblem {
	if (value === INCLUDED_IN_SIGNATURE || value === undefined || value === '') return null;
	const id = typeof value === 'string' ? Number(value.trim()) : value;
	if (typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= 3) return null;
	return `Expected 0, 1, 2 or 3 (or Included in the Signature), got ${describeValue(value)}.`;
}

/** The Recovery ID option for a signature that carries it (65 bytes). */
export const INCLUDED_IN_SIGNATURE = 'included';

export function recoveryIdOf(value: unknown): number | undefined {
	if (value === INCLUDED_IN_SIGNATURE || value === undefined || value === '') return undefined;
	return Number(typeof value === 'string' ? value.trim() : value);
}
