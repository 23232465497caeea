import { createCipheriv, createECDH, hkdfSync } from 'crypto';

import type { RandomBytes } from '../validation/apiKeys';
import { isUsablePrivateKey, sharedPoint } from './sharedPoint';

/*
 * ECIES encryption as the Rust crate `ecies` 0.2.6 does it with its default configuration and the
 * "pure" AES (Lendasat's client-sdk/Cargo.toml and Cargo.lock): an ephemeral secp256k1 key; the AES
 * key is HKDF-SHA256 without salt or info over the ephemeral public key and the shared point, both
 * uncompressed (65 bytes each); AES-256-GCM with a random 16-byte nonce and no associated data. The
 * ciphertext is the ephemeral public key (65 bytes), the nonce (16), the tag (16), then the
 * encrypted message. Node's crypto does the ephemeral public key, HKDF and AES-GCM; the shared
 * point's y, which Node's ECDH does not give, is ./sharedPoint.ts. Only tests decrypt
 * (test/helpers/fiatDecryption.ts).
 */

const NONCE_LENGTH = 16;

/**
 * A private key in 1 … n − 2 from random bytes, drawn again (with odds of about 2⁻¹²⁸) until one
 * fits. n − 1 is left out because sharedPoint needs k + 1 to be a key as well; that the key is
 * uniform over n − 2 values instead of n − 1 changes nothing an attacker can use.
 */
function ephemeralKey(random: RandomBytes): Uint8Array {
	for (;;) {
		const candidate = random(32);
		if (isUsablePrivateKey(candidate)) return candidate;
	}
}

/** `message` encrypted to the holder of the private key behind `receiver` (33 or 65 bytes SEC 1). */
export function eciesEncrypt(
	receiver: Uint8Array,
	message: Uint8Array,
	random: RandomBytes,
): Buffer {
	const ephemeral = ephemeralKey(random);
	const ecdh = createECDH('secp256k1');
	ecdh.setPrivateKey(ephemeral);
	const ephemeralPublic = ecdh.getPublicKey();
	const master = Buffer.concat([ephemeralPublic, sharedPoint(ephemeral, receiver)]);
	const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), Buffer.alloc(0), 32));
	const nonce = random(NONCE_LENGTH);
	const cipher = createCipheriv('aes-256-gcm', key, nonce);
	const encrypted = Buffer.concat([cipher.update(message), cipher.final()]);
	return Buffer.concat([ephemeralPublic, nonce, cipher.getAuthTag(), encrypted]);
}
