/**
 * What the borrower's and the lender's apps do with Send Fiat Details' body: open it with a private
 * key. The node only encrypts, so decryption lives here, for the tests. It is written apart from the
 * node's code where it can be: the shared point comes from the sandbox's double-and-add
 * (dev/sandbox/curve.ts), not from the node's ECDH-based sharedPoint, so every round trip checks one
 * against the other. Not constant-time: test keys only.
 */
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';

import { multiply, serializePoint } from '../../dev/sandbox/curve';
import { aesGcmSivEncrypt } from '../../nodes/LendasatBorrower/encryption/aesGcmSiv';
import type { FiatDetails } from '../../nodes/LendasatBorrower/encryption/fiatDetails';
import { bytesToBigInt, parsePoint } from '../../nodes/LendasatBorrower/encryption/secp256k1';

const BLOCK = 16;
const EPHEMERAL_KEY_LENGTH = 65;
const ECIES_NONCE_LENGTH = 16;
const TAG_LENGTH = 16;
/** Lendasat's fixed AES-GCM-SIV nonce and HKDF info for each field (client-sdk fiat_loan_details.rs). */
const FIELD_NONCE = Buffer.from('6by2d6wxps3a');
const FIELD_KEY_INFO = 'ENCRYPTION_KEY';

function aesEcb(key: Uint8Array, blocks: Uint8Array): Buffer {
	const cipher = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
	cipher.setAutoPadding(false);
	return Buffer.concat([cipher.update(blocks), cipher.final()]);
}

/**
 * AES-GCM-SIV decryption (RFC 8452 §5): the keystream from the tag, then the tag checked by
 * encrypting the plaintext again (the mode is deterministic). Undefined when the tag does not match.
 */
export function aesGcmSivDecrypt(
	key: Uint8Array,
	nonce: Uint8Array,
	sealed: Uint8Array,
	aad: Uint8Array = new Uint8Array(),
): Uint8Array | undefined {
	if (sealed.length < TAG_LENGTH) return undefined;
	const tag = Buffer.from(sealed.subarray(sealed.length - TAG_LENGTH));
	const ciphertext = sealed.subarray(0, sealed.length - TAG_LENGTH);
	const derivation = Buffer.concat(
		Array.from({ length: key.length === 32 ? 6 : 4 }, (_, counter) => {
			const block = Buffer.alloc(BLOCK);
			block.writeUInt32LE(counter);
			block.set(nonce, 4);
			return block;
		}),
	);
	const derived = aesEcb(key, derivation);
	const encryptionKey = Buffer.concat(
		Array.from({ length: derived.length / BLOCK - 2 }, (_, index) =>
			derived.subarray((index + 2) * BLOCK, (index + 2) * BLOCK + 8),
		),
	);
	const counters = Buffer.concat(
		Array.from({ length: Math.ceil(ciphertext.length / BLOCK) }, (_, index) => {
			const block = Buffer.from(tag);
			block[15] |= 0x80;
			block.writeUInt32LE((tag.readUInt32LE(0) + index) % 2 ** 32);
			return block;
		}),
	);
	const keystream = aesEcb(encryptionKey, counters);
	const plaintext = ciphertext.map((byte, index) => byte ^ keystream[index]);
	const again = Buffer.from(aesGcmSivEncrypt(key, nonce, plaintext, aad));
	return again.equals(Buffer.from(sealed)) ? plaintext : undefined;
}

/** ECIES as the Rust crate ecies 0.2.6 decrypts: undefined when it was not encrypted to this key. */
export function eciesDecrypt(privateKey: Uint8Array, data: Uint8Array): Buffer | undefined {
	if (data.length < EPHEMERAL_KEY_LENGTH + ECIES_NONCE_LENGTH + TAG_LENGTH) return undefined;
	const ephemeralPublic = data.subarray(0, EPHEMERAL_KEY_LENGTH);
	const point = parsePoint(ephemeralPublic);
	const shared = point && multiply(point, bytesToBigInt(privateKey));
	if (!shared) return undefined;
	const master = Buffer.concat([ephemeralPublic, serializePoint(shared)]);
	const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), Buffer.alloc(0), 32));
	let at = EPHEMERAL_KEY_LENGTH;
	const nonce = data.subarray(at, (at += ECIES_NONCE_LENGTH));
	const tag = data.subarray(at, (at += TAG_LENGTH));
	const decipher = createDecipheriv('aes-256-gcm', key, nonce);
	decipher.setAuthTag(tag);
	try {
		return Buffer.concat([decipher.update(data.subarray(at)), decipher.final()]);
	} catch {
		return undefined;
	}
}

function decryptField(key: Uint8Array, field: string): string | undefined {
	const [salt, sealed] = field.split('$');
	if (!salt || sealed === undefined) return undefined;
	const fieldKey = hkdfSync('sha256', key, Buffer.from(salt, 'hex'), FIELD_KEY_INFO, 32);
	const plain = aesGcmSivDecrypt(new Uint8Array(fieldKey), FIELD_NONCE, Buffer.from(sealed, 'hex'));
	return plain && Buffer.from(plain).toString('utf8');
}

/** Every text in a value decrypted, the structure (and null or absent parts) kept; undefined if one fails. */
function decryptTexts(value: unknown, key: Uint8Array): unknown {
	if (typeof value === 'string') return decryptField(key, value);
	if (value === null || typeof value !== 'object') return value;
	const plain: Record<string, unknown> = {};
	for (const [name, inner] of Object.entries(value)) {
		plain[name] = decryptTexts(inner, key);
		if (plain[name] === undefined && inner !== undefined) return undefined;
	}
	return plain;
}

/** What the holder of a private key reads: the details, or undefined when they were not encrypted to it. */
export function decryptFiatDetails(
	details: FiatDetails,
	encryptedKey: string,
	privateKey: Uint8Array,
): FiatDetails | undefined {
	const key = eciesDecrypt(privateKey, Buffer.from(encryptedKey, 'hex'));
	return key && (decryptTexts(details, key) as FiatDetails | undefined);
}
