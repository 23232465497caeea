/**
 * POLYVAL (RFC 8452 §3), the hash of AES-GCM-SIV. Written by hand because Node's crypto has no
 * AES-GCM-SIV and exposes no POLYVAL or GHASH of its own.
 *
 * The hash key and the hashed data are secret, so the code takes the same steps whatever they hold:
 * no branch and no table index depends on a secret bit. Each bit selects through a mask (0 or
 * 0xffff) that is ANDed in, both in the carry-less multiplication and in the reduction. Elements are
 * kept as eight 16-bit limbs so that every intermediate value stays a small integer (a V8 Smi):
 * with 32-bit words, a value at or above 2³¹ would be a heap number, a different and slower path in
 * V8 taken depending on the value. For the same reason a mask is made as 0 − bit, never as −bit:
 * −0 (what -(0) gives) is a heap number too.
 */

const BLOCK = 16;
/** 16-bit limbs of a 128-bit element, least significant first (bit i of limb j is x^(16j+i)). */
const LIMBS = 8;
/** x^127 + x^126 + x^121 in limb 7: the middle terms of x^128 + x^127 + x^126 + x^121 + 1. */
const POLYNOMIAL_LIMB_7 = 0x8000 | 0x4000 | 0x0200;

/** A block of 16 bytes (little-endian, as RFC 8452 reads them) as limbs. */
function limbsOf(bytes: Uint8Array, at: number): Uint16Array {
	const limbs = new Uint16Array(LIMBS);
	for (let j = 0; j < LIMBS; j++) limbs[j] = bytes[at + 2 * j] | (bytes[at + 2 * j + 1] << 8);
	return limbs;
}

/** a·b·x⁻¹²⁸ modulo x^128 + x^127 + x^126 + x^121 + 1, POLYVAL's dot. */
function dot(a: Uint16Array, b: Uint16Array): Uint16Array {
	const product = new Uint16Array(2 * LIMBS);
	const shifted = new Uint16Array(2 * LIMBS);
	shifted.set(a);
	// Carry-less a·b: for each of b's 128 bits, a·x^bit is XORed in under that bit's mask.
	for (let bit = 0; bit < 128; bit++) {
		const mask = 0 - ((b[bit >> 4] >> (bit & 15)) & 1);
		for (let j = 0; j < 2 * LIMBS; j++) product[j] ^= shifted[j] & mask;
		for (let j = 2 * LIMBS - 1; j > 0; j--) shifted[j] = (shifted[j] << 1) | (shifted[j - 1] >> 15);
		shifted[0] <<= 1;
	}
	// Times x⁻¹²⁸: 128 times, add the polynomial under the mask of the lowest bit, then divide by x.
	for (let step = 0; step < 128; step++) {
		const mask = 0 - (product[0] & 1);
		product[0] ^= mask & 1;
		product[LIMBS - 1] ^= mask & POLYNOMIAL_LIMB_7;
		product[LIMBS] ^= mask & 1;
		for (let j = 0; j < 2 * LIMBS - 1; j++)
			product[j] = (product[j] >> 1) | ((product[j + 1] & 1) << 15);
		product[2 * LIMBS - 1] >>= 1;
	}
	return product.subarray(0, LIMBS);
}

/** POLYVAL(H, X₁ … Xₙ) over whole blocks: S = (S ⊕ Xᵢ)·H·x⁻¹²⁸ from S = 0. */
export function polyval(hashKey: Uint8Array, blocks: Uint8Array): Uint8Array {
	const h = limbsOf(hashKey, 0);
	let sum: Uint16Array = new Uint16Array(LIMBS);
	for (let at = 0; at < blocks.length; at += BLOCK) {
		const block = limbsOf(blocks, at);
		for (let j = 0; j < LIMBS; j++) block[j] ^= sum[j];
		sum = dot(block, h);
	}
	const out = new Uint8Array(BLOCK);
	for (let j = 0; j < LIMBS; j++) {
		out[2 * j] = sum[j] & 0xff;
		out[2 * j + 1] = sum[j] >> 8;
	}
	return out;
}
