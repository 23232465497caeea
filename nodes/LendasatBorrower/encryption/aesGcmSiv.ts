import { createCipheriv } from 'crypto';

import { polyval } from './polyval';

/**
 * AES-256-GCM-SIV encryption (RFC 8452), the cipher of Lendasat's bank details. Node's crypto has
 * no GCM-SIV mode (`createCipheriv('aes-256-gcm-siv', …)` is an unknown cipher), so the mode is
 * written here around the pieces Node does give: every AES block (key derivation, the tag, the
 * keystream) runs in Node's crypto as AES-ECB; POLYVAL (./polyval.ts) and the byte shuffling of
 * §4 are ours. Output: the ciphertext followed by the 16-byte tag, as RustCrypto's aes-gcm-siv
 * (which Lendasat's client uses) produces it. Only tests decrypt (test/helpers/fiatDecryption.ts).
 */

const BLOCK = 16;

function aesBlocks(key: Uint8Array, blocks: Uint8Array): Buffer {
	const cipher = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
	cipher.setAutoPadding(false);
	return Buffer.concat([cipher.update(blocks), cipher.final()]);
}

function padded(bytes: Uint8Array): Uint8Array {
	const out = new Uint8Array(Math.ceil(bytes.length / BLOCK) * BLOCK);
	out.set(bytes);
	return out;
}

/** The per-nonce authentication and encryption keys: the first 8 bytes of AES(counter ‖ nonce). */
function deriveKeys(
	key: Uint8Array,
	nonce: Uint8Array,
): { hashKey: Uint8Array; encryptionKey: Uint8Array } {
	const count = key.length === 32 ? 6 : 4;
	const inputs = Buffer.alloc(count * BLOCK);
	for (let counter = 0; counter < count; counter++) {
		inputs.writeUInt32LE(counter, counter * BLOCK);
		inputs.set(nonce, counter * BLOCK + 4);
	}
	const output = aesBlocks(key, inputs);
	const halves = Array.from({ length: count }, (_, index) =>
		output.subarray(index * BLOCK, index * BLOCK + 8),
	);
	return {
		hashKey: Buffer.concat(halves.slice(0, 2)),
		encryptionKey: Buffer.concat(halves.slice(2)),
	};
}

/** AES(encryption key, POLYVAL(aad, plaintext, lengths) ⊕ nonce, top bit cleared). */
function tagOf(
	keys: { hashKey: Uint8Array; encryptionKey: Uint8Array },
	nonce: Uint8Array,
	plaintext: Uint8Array,
	aad: Uint8Array,
): Buffer {
	const lengths = Buffer.alloc(BLOCK);
	lengths.writeBigUInt64LE(BigInt(aad.length) * 8n, 0);
	lengths.writeBigUInt64LE(BigInt(plaintext.length) * 8n, 8);
	const s = polyval(keys.hashKey, Buffer.concat([padded(aad), padded(plaintext), lengths]));
	for (let index = 0; index < nonce.length; index++) s[index] ^= nonce[index];
	s[15] &= 0x7f;
	return aesBlocks(keys.encryptionKey, s);
}

/** AES-CTR from the tag (top bit set) with its first 32 bits as a little-endian, wrapping counter. */
function ctr(encryptionKey: Uint8Array, tag: Uint8Array, input: Uint8Array): Uint8Array {
	const blocks = Math.ceil(input.length / BLOCK);
	const counters = Buffer.alloc(blocks * BLOCK);
	const first = Buffer.from(tag).readUInt32LE(0);
	for (let index = 0; index < blocks; index++) {
		counters.set(tag, index * BLOCK);
		counters[index * BLOCK + 15] |= 0x80;
		counters.writeUInt32LE((first + index) % 2 ** 32, index * BLOCK);
	}
	const stream = aesBlocks(encryptionKey, counters);
	return input.map((byte, index) => byte ^ stream[index]);
}

/** The ciphertext and its 16-byte tag. The tag is public: it travels with the ciphertext. */
export function aesGcmSivEncrypt(
	key: Uint8Array,
	nonce: Uint8Array,
	plaintext: Uint8Array,
	aad: Uint8Array = new Uint8Array(),
): Uint8Array {
	const keys = deriveKeys(key, nonce);
	const tag = tagOf(keys, nonce, plaintext, aad);
	return Buffer.concat([ctr(keys.encryptionKey, tag, plaintext), tag]);
}
