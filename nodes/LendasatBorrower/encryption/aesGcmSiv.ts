import { createCipheriv, timingSafeEqual } from 'crypto';

/**
 * AES-256-GCM-SIV (RFC 8452), which Node's crypto does not offer, built on its AES block cipher:
 * per-nonce keys, POLYVAL over the associated data and the plaintext, the tag as the counter of
 * AES-CTR. Output and input are the ciphertext followed by the 16-byte tag, as RustCrypto's
 * aes-gcm-siv (which Lendasat's client uses) produces it.
 */

const BLOCK = 16;
/** x^128 + x^127 + x^126 + x^121 + 1, POLYVAL's field polynomial (bit i = coefficient of x^i). */
const POLYNOMIAL = (1n << 128n) | (1n << 127n) | (1n << 126n) | (1n << 121n) | 1n;

function littleEndian(bytes: Uint8Array): bigint {
	let value = 0n;
	for (let index = bytes.length - 1; index >= 0; index--)
		value = (value << 8n) | BigInt(bytes[index]);
	return value;
}

function littleEndianBytes(value: bigint, length: number): Uint8Array {
	const bytes = new Uint8Array(length);
	for (let index = 0, rest = value; index < length; index++, rest >>= 8n)
		bytes[index] = Number(rest & 0xffn);
	return bytes;
}

/** a·b·x⁻¹²⁸ in POLYVAL's field. */
function dot(a: bigint, b: bigint): bigint {
	let product = 0n;
	for (let bit = 0n, rest = b; rest > 0n; bit++, rest >>= 1n) if (rest & 1n) product ^= a << bit;
	for (let step = 0; step < 128; step++) {
		if (product & 1n) product ^= POLYNOMIAL;
		product >>= 1n;
	}
	return product;
}

/** POLYVAL(H, X₁ … Xₙ) over whole blocks. */
export function polyval(hashKey: Uint8Array, blocks: Uint8Array): Uint8Array {
	const h = littleEndian(hashKey);
	let sum = 0n;
	for (let at = 0; at < blocks.length; at += BLOCK)
		sum = dot(sum ^ littleEndian(blocks.subarray(at, at + BLOCK)), h);
	return littleEndianBytes(sum, BLOCK);
}

function aesBlocks(key: Uint8Array, blocks: Uint8Array): Uint8Array {
	const cipher = createCipheriv(`aes-${key.length * 8}-ecb`, key, null);
	cipher.setAutoPadding(false);
	return new Uint8Array(Buffer.concat([cipher.update(blocks), cipher.final()]));
}

function padded(bytes: Uint8Array): Uint8Array {
	const out = new Uint8Array(Math.ceil(bytes.length / BLOCK) * BLOCK);
	out.set(bytes);
	return out;
}

/** The per-nonce authentication and encryption keys (RFC 8452 §4). */
function deriveKeys(
	key: Uint8Array,
	nonce: Uint8Array,
): { hashKey: Uint8Array; encryptionKey: Uint8Array } {
	const count = key.length === 32 ? 6 : 4;
	const inputs = new Uint8Array(count * BLOCK);
	for (let counter = 0; counter < count; counter++) {
		inputs.set(littleEndianBytes(BigInt(counter), 4), counter * BLOCK);
		inputs.set(nonce, counter * BLOCK + 4);
	}
	const output = aesBlocks(key, inputs);
	const halves = Array.from({ length: count }, (_, index) =>
		output.subarray(index * BLOCK, index * BLOCK + 8),
	);
	return {
		hashKey: Uint8Array.from([...halves[0], ...halves[1]]),
		encryptionKey: Uint8Array.from(halves.slice(2).flatMap((half) => [...half])),
	};
}

function tagOf(
	keys: { hashKey: Uint8Array; encryptionKey: Uint8Array },
	nonce: Uint8Array,
	plaintext: Uint8Array,
	aad: Uint8Array,
): Uint8Array {
	const lengths = Uint8Array.from([
		...littleEndianBytes(BigInt(aad.length) * 8n, 8),
		...littleEndianBytes(BigInt(plaintext.length) * 8n, 8),
	]);
	const s = polyval(
		keys.hashKey,
		Uint8Array.from([...padded(aad), ...padded(plaintext), ...lengths]),
	);
	for (let index = 0; index < nonce.length; index++) s[index] ^= nonce[index];
	s[15] &= 0x7f;
	return aesBlocks(keys.encryptionKey, s);
}

/** AES-CTR with the first 32 bits of the counter block as a little-endian counter. */
function ctr(encryptionKey: Uint8Array, tag: Uint8Array, input: Uint8Array): Uint8Array {
	const blocks = Math.ceil(input.length / BLOCK);
	const counters = new Uint8Array(blocks * BLOCK);
	const first = Number(littleEndian(tag.subarray(0, 4)));
	for (let index = 0; index < blocks; index++) {
		counters.set(tag, index * BLOCK);
		counters[index * BLOCK + 15] |= 0x80;
		counters.set(littleEndianBytes(BigInt((first + index) % 2 ** 32), 4), index * BLOCK);
	}
	const stream = aesBlocks(encryptionKey, counters);
	return input.map((byte, index) => byte ^ stream[index]);
}

export function aesGcmSivEncrypt(
	key: Uint8Array,
	nonce: Uint8Array,
	plaintext: Uint8Array,
	aad: Uint8Array = new Uint8Array(),
): Uint8Array {
	const keys = deriveKeys(key, nonce);
	const tag = tagOf(keys, nonce, plaintext, aad);
	return Uint8Array.from([...ctr(keys.encryptionKey, tag, plaintext), ...tag]);
}

/** The plaintext, or undefined when the tag does not match. */
export function aesGcmSivDecrypt(
	key: Uint8Array,
	nonce: Uint8Array,
	sealed: Uint8Array,
	aad: Uint8Array = new Uint8Array(),
): Uint8Array | undefined {
	if (sealed.length < BLOCK) return undefined;
	const keys = deriveKeys(key, nonce);
	const tag = sealed.subarray(sealed.length - BLOCK);
	const plaintext = ctr(keys.encryptionKey, tag, sealed.subarray(0, sealed.length - BLOCK));
	const expected = tagOf(keys, nonce, plaintext, aad);
	return timingSafeEqual(expected, tag) ? plaintext : undefined;
}
