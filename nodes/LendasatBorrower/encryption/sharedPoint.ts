import { createECDH } from 'crypto';

import { N, P, bigIntTo32Bytes, bytesToBigInt, modPow, parsePoint } from './secp256k1';

/*
 * ECIES's shared point S = k·R in full (k a secret key, R a public key): the Rust crate `ecies`
 * hashes S uncompressed, x and y. Node's ECDH (OpenSSL) computes k·R but gives only its x, so y is
 * found here, without a point multiplication of our own:
 *   1. x(S) = ECDH(k, R) and x(S + R) = ECDH(k + 1, R), both in Node's crypto;
 *   2. y₀ = (x(S)³ + 7)^((p+1)/4) (p ≡ 3 mod 4): S is (x(S), y₀) or (x(S), −y₀);
 *   3. for S + R, λ = (y − yR)/(x − xR) and x(S + R) = λ² − x − xR, so the right y satisfies
 *      A = −2·y·yR with A = (x(S+R) + x + xR)(x − xR)² − y₀² − yR². With c = 2·y₀·yR (never 0:
 *      no point of secp256k1 has y = 0) that makes t = (A + 2c)/c equal to 1 when y = y₀ and 3 when
 *      y = −y₀, and y = y₀·(2 − t). The same holds when S = R (k = 1): both sides are then 0 for
 *      y = yR alone. k = n − 1 is excluded (isUsablePrivateKey): k + 1 = n is no key, and S + R is
 *      the point at infinity.
 *
 * On the secret: in this code no branch and no table index depends on k or on S. k + 1 is a
 * byte-wise carry through all 32 bytes; y is chosen by multiplying by 1 or p − 1, not by an `if`.
 * V8's BigInt arithmetic, which steps 2 and 3 use, is NOT guaranteed constant-time: its time can
 * depend on the operands' lengths (leading zero words) and, in division, on their digits, and
 * nothing in JavaScript can change that. What this code does about it: one fixed sequence of
 * additions, multiplications and remainders modulo p whatever the secret; both exponentiations
 * with fixed public exponents (the same squarings and multiplications for every base); no
 * intermediate that is 0 for one choice of y and not for the other (t is 1 or 3, not 0 or 1). The
 * checks at the end fail only on a bug, so in a normal run they take one path.
 */

/** n − 2, the largest private key whose successor is a private key too, as 32 big-endian bytes. */
const LARGEST_KEY = bigIntTo32Bytes(N - 2n);
const SQUARE_ROOT_EXPONENT = (P + 1n) / 4n;
const INVERSE_EXPONENT = P - 2n;

/**
 * Whether 32 bytes are a private key k that sharedPoint takes: 1 ≤ k ≤ n − 2. Every byte is read,
 * whatever they hold (the comparison is a borrow carried through all of them).
 */
export function isUsablePrivateKey(key: Uint8Array): boolean {
	if (key.length !== 32) return false;
	let any = 0;
	let borrow = 0;
	for (let index = 31; index >= 0; index--) {
		any |= key[index];
		borrow = ((LARGEST_KEY[index] - key[index] - borrow) >> 8) & 1;
	}
	return ((any + 255) >> 8) - borrow === 1;
}

/** k + 1 for 32 big-endian bytes, the carry taken through every byte. */
function plusOne(key: Uint8Array): Uint8Array {
	const next = new Uint8Array(32);
	let carry = 1;
	for (let index = 31; index >= 0; index--) {
		const sum = key[index] + carry;
		next[index] = sum & 0xff;
		carry = sum >> 8;
	}
	return next;
}

/** x(k·R) by Node's ECDH (OpenSSL). */
function ecdhX(privateKey: Uint8Array, publicKey: Uint8Array): Buffer {
	const ecdh = createECDH('secp256k1');
	ecdh.setPrivateKey(privateKey);
	return ecdh.computeSecret(publicKey);
}

/**
 * k·R as 65 bytes (04, x, y), for a private key k (32 bytes, 1 … n − 2, see isUsablePrivateKey)
 * and a public key R (SEC 1, 33 or 65 bytes).
 */
export function sharedPoint(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
	const r = parsePoint(publicKey);
	if (!r) throw new Error('The public key is not a point on secp256k1');
	const xBytes = ecdhX(privateKey, publicKey);
	const x = bytesToBigInt(xBytes);
	const sumX = bytesToBigInt(ecdhX(plusOne(privateKey), publicKey));
	const ySquared = (((x * x) % P) * x + 7n) % P;
	const y0 = modPow(ySquared, SQUARE_ROOT_EXPONENT, P);
	const dx = (x + P - r.x) % P;
	const a = (((sumX + x + r.x) * ((dx * dx) % P)) % P) + 2n * P - ySquared - ((r.y * r.y) % P);
	const c = (2n * y0 * r.y) % P;
	const t = (((a + 2n * c) % P) * modPow(c, INVERSE_EXPONENT, P)) % P;
	const y = (y0 * (P + 2n - t)) % P;
	if ((y0 * y0) % P !== ySquared || ((t + P - 1n) * (t + P - 3n)) % P !== 0n)
		throw new Error('The shared point could not be computed');
	return Uint8Array.from([4, ...xBytes, ...bigIntTo32Bytes(y)]);
}
