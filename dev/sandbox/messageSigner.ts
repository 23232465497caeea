/**
 * Bitcoin signed messages for the sandbox: the hash Lendasat's backend verifies (bitcoin 0.32
 * sign_message::signed_msg_hash), public-key recovery from a compact signature (what
 * secp256k1 recover_ecdsa does in hub 0.8.2 wallet.rs is_signed_by_pk), and A STAND-IN FOR THE
 * BORROWER'S WALLET that signs a message with a private key the test holds. Against Lendasat, sign
 * with your own wallet (Bitcoin Core signmessagewithprivkey, Electrum, Sparrow): never give a
 * private key to n8n.
 */
import { createHash } from 'node:crypto';

import {
	N,
	bigIntTo32Bytes,
	bytesToBigInt,
	liftX,
	mod,
} from '../../nodes/LendasatBorrower/encryption/secp256k1';
import { G, addPoints, modInverse, multiply, serializePoint } from './curve';

const MAGIC = Buffer.from('\x18Bitcoin Signed Message:\n', 'latin1');

function sha256(data: Buffer): Buffer {
	return createHash('sha256').update(data).digest();
}

function compactSize(length: number): Buffer {
	if (length < 0xfd) return Buffer.from([length]);
	const buffer = Buffer.alloc(3);
	buffer[0] = 0xfd;
	buffer.writeUInt16LE(length, 1);
	return buffer;
}

/** SHA256d("\x18Bitcoin Signed Message:\n" || compact size || message). */
export function signedMessageHash(message: string): Buffer {
	const text = Buffer.from(message, 'utf8');
	return sha256(sha256(Buffer.concat([MAGIC, compactSize(text.length), text])));
}

/**
 * The compressed public key (hex) that made a compact signature (r‖s, 64 bytes) with recovery ID
 * 0–3 over a hash, or null when none did (SEC 1 §4.1.6).
 */
export function recoverPublicKey(hash: Buffer, compact: Buffer, recoveryId: number): string | null {
	if (compact.length !== 64 || !Number.isInteger(recoveryId) || recoveryId < 0 || recoveryId > 3)
		return null;
	const r = bytesToBigInt(compact.subarray(0, 32));
	const s = bytesToBigInt(compact.subarray(32));
	if (r === 0n || s === 0n || r >= N || s >= N) return null;
	const point = liftX(recoveryId & 2 ? r + N : r, (recoveryId & 1) === 1);
	if (!point) return null;
	const e = mod(bytesToBigInt(hash), N);
	const rInverse = modInverse(r, N);
	const key = addPoints(multiply(point, mod(s * rInverse, N)), multiply(G, mod(-e * rInverse, N)));
	return key ? Buffer.from(serializePoint(key, true)).toString('hex') : null;
}

/** The compressed public key of a private key (hex). */
export function publicKeyOf(privateKeyHex: string): string {
	const key = multiply(G, BigInt(`0x${privateKeyHex}`));
	if (!key) throw new Error('not a private key');
	return Buffer.from(serializePoint(key, true)).toString('hex');
}

export interface StandInMessageSignature {
	/** What Lendasat takes: r‖s in hex, and the recovery ID. */
	recoverable_signature_hex: string;
	recoverable_signature_id: number;
	/** What a wallet gives: header byte 31 + recovery ID (compressed key), r, s; base64. */
	base64: string;
}

/**
 * THE STAND-IN WALLET: signs a Bitcoin message with a private key (hex), low-s, with a nonce derived
 * from the key and the hash (deterministic, so runs repeat; not RFC 6979).
 */
export function standInSignMessage(
	privateKeyHex: string,
	message: string,
): StandInMessageSignature {
	const d = BigInt(`0x${privateKeyHex}`);
	const hash = signedMessageHash(message);
	const e = mod(bytesToBigInt(hash), N);
	for (let counter = 0; ; counter++) {
		const k = mod(
			bytesToBigInt(
				sha256(Buffer.concat([Buffer.from(bigIntTo32Bytes(d)), hash, Buffer.from([counter])])),
			),
			N,
		);
		const point = k === 0n ? undefined : multiply(G, k);
		if (!point) continue;
		const r = mod(point.x, N);
		let s = mod(modInverse(k, N) * (e + r * d), N);
		if (r === 0n || s === 0n) continue;
		let recoveryId = Number(point.y & 1n) | (point.x >= N ? 2 : 0);
		if (s > N / 2n) {
			s = N - s;
			recoveryId ^= 1;
		}
		const compact = Buffer.concat([
			Buffer.from(bigIntTo32Bytes(r)),
			Buffer.from(bigIntTo32Bytes(s)),
		]);
		return {
			recoverable_signature_hex: compact.toString('hex'),
			recoverable_signature_id: recoveryId,
			base64: Buffer.concat([Buffer.from([31 + recoveryId]), compact]).toString('base64'),
		};
	}
}

/**
 * What is_signed_by_pk recovers from the body's hex and ID over a message: the compressed key, or
 * null where the backend fails ("Bad signature provided"): hex that does not decode, not 64 bytes, an
 * ID outside 0–3, no key.
 */
export function messageHashAndRecover(
	message: string,
	signatureHex: string,
	recoveryId: number,
): string | null {
	if (!/^([0-9a-fA-F]{2})*$/.test(signatureHex)) return null;
	return recoverPublicKey(signedMessageHash(message), Buffer.from(signatureHex, 'hex'), recoveryId);
}
