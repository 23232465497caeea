import { createCipheriv, createDecipheriv, createECDH, hkdfSync } from 'crypto';

import type { RandomBytes } from '../validation/apiKeys';
import { N, bytesToBigInt, multiply, parsePoint, serializePoint, type Point } from './secp256k1';

/*
 * ECIES as the Rust crate `ecies` 0.2.6 does it with its default configuration and the "pure" AES
 * (Lendasat's client-sdk/Cargo.toml and Cargo.lock): an ephemeral secp256k1 key; the AES key is
 * HKDF-SHA256 without salt or info over the ephemeral public key and the shared point, both
 * uncompressed (65 bytes each); AES-256-GCM with a random 16-byte nonce and no associated data. The
 * ciphertext is the ephemeral public key (65 bytes), the nonce (16), the tag (16), then the
 * encrypted message.
 */

const NONCE_LENGTH = 16;
const TAG_LENGTH = 16;
const EPHEMERAL_KEY_LENGTH = 65;

/** The AES key shared by a private key and a public point: HKDF over both parties' points. */
function sharedKey(ephemeralPublic: Uint8Array, shared: Point): Buffer {
	const master = Buffer.concat([ephemeralPublic, serializePoint(shared)]);
	return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), Buffer.alloc(0), 32));
}

/** A private key in 1 … n−1 from random bytes (drawn again, rarely, until one fits). */
function ephemeralKey(random: RandomBytes): Buffer {
	for (;;) {
		const candidate = Buffer.from(random(32));
		const value = bytesToBigInt(candidate);
		if (value > 0n && value < N) return candidate;
	}
}

/** `message` encrypted to the holder of the private key behind `receiver` (33 or 65 bytes SEC 1). */
export function eciesEncrypt(
	receiver: Uint8Array,
	message: Uint8Array,
	random: RandomBytes,
): Buffer {
	const receiverPoint = parsePoint(receiver);
	if (!receiverPoint) throw new Error('The public key is not a point on secp256k1');
	const ephemeral = ephemeralKey(random);
	const ecdh = createECDH('secp256k1');
	ecdh.setPrivateKey(ephemeral);
	const ephemeralPublic = ecdh.getPublicKey();
	const shared = multiply(receiverPoint, bytesToBigInt(ephemeral));
	// OpenSSL's Diffie-Hellman gives the shared x: a check on the arithmetic that gives y as well.
	const sharedX = ecdh.computeSecret(Buffer.from(receiver));
	if (!shared || !sharedX.equals(Buffer.from(serializePoint(shared).subarray(1, 33))))
		throw new Error('The shared point could not be computed');
	const nonce = Buffer.from(random(NONCE_LENGTH));
	const cipher = createCipheriv('aes-256-gcm', sharedKey(ephemeralPublic, shared), nonce);
	const encrypted = Buffer.concat([cipher.update(message), cipher.final()]);
	return Buffer.concat([ephemeralPublic, nonce, cipher.getAuthTag(), encrypted]);
}

/** The message, or undefined when it was not encrypted to this private key. */
export function eciesDecrypt(privateKey: Uint8Array, data: Uint8Array): Buffer | undefined {
	if (data.length < EPHEMERAL_KEY_LENGTH + NONCE_LENGTH + TAG_LENGTH) return undefined;
	const ephemeralPublic = data.subarray(0, EPHEMERAL_KEY_LENGTH);
	const point = parsePoint(ephemeralPublic);
	const shared = point && multiply(point, bytesToBigInt(privateKey));
	if (!shared) return undefined;
	const nonce = data.subarray(EPHEMERAL_KEY_LENGTH, EPHEMERAL_KEY_LENGTH + NONCE_LENGTH);
	const tag = data.subarray(
		EPHEMERAL_KEY_LENGTH + NONCE_LENGTH,
		EPHEMERAL_KEY_LENGTH + NONCE_LENGTH + TAG_LENGTH,
	);
	const decipher = createDecipheriv('aes-256-gcm', sharedKey(ephemeralPublic, shared), nonce);
	decipher.setAuthTag(tag);
	try {
		return Buffer.concat([
			decipher.update(data.subarray(EPHEMERAL_KEY_LENGTH + NONCE_LENGTH + TAG_LENGTH)),
			decipher.final(),
		]);
	} catch {
		return undefined;
	}
}
