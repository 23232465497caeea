/**
 * secp256k1 point arithmetic for the sandbox's stand-in wallet (./messageSigner.ts) and the tests:
 * double-and-add in Jacobian coordinates with BigInt. It branches on the scalar's bits, so it is
 * NOT constant-time: it is for test keys, never for a secret that matters. The node itself has no
 * point multiplication (nodes/LendasatBorrower/encryption/sharedPoint.ts uses Node's ECDH).
 */
import {
	N,
	P,
	bigIntTo32Bytes,
	mod,
	type Point,
} from '../../nodes/LendasatBorrower/encryption/secp256k1';

export const G: Point = {
	x: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
	y: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
};

/** The inverse of a non-zero value modulo a prime, by the extended Euclidean algorithm. */
export function modInverse(value: bigint, modulus: bigint): bigint {
	let [a, b] = [mod(value, modulus), modulus];
	let [x, lastX] = [0n, 1n];
	while (b !== 0n) {
		const quotient = a / b;
		[a, b] = [b, a - quotient * b];
		[lastX, x] = [x, lastX - quotient * x];
	}
	if (a !== 1n) throw new Error('not invertible');
	return mod(lastX, modulus);
}

type Jacobian = [bigint, bigint, bigint];
const INFINITY: Jacobian = [0n, 1n, 0n];

function double([x, y, z]: Jacobian): Jacobian {
	if (z === 0n || y === 0n) return INFINITY;
	const yy = (y * y) % P;
	const s = (4n * x * yy) % P;
	const m = (3n * x * x) % P;
	const x3 = mod(m * m - 2n * s, P);
	const y3 = mod(m * (s - x3) - 8n * yy * yy, P);
	return [x3, y3, (2n * y * z) % P];
}

function add(a: Jacobian, b: Jacobian): Jacobian {
	if (a[2] === 0n) return b;
	if (b[2] === 0n) return a;
	const z1z1 = (a[2] * a[2]) % P;
	const z2z2 = (b[2] * b[2]) % P;
	const u1 = (a[0] * z2z2) % P;
	const u2 = (b[0] * z1z1) % P;
	const s1 = (a[1] * b[2] * z2z2) % P;
	const s2 = (b[1] * a[2] * z1z1) % P;
	if (u1 === u2) return s1 === s2 ? double(a) : INFINITY;
	const h = mod(u2 - u1, P);
	const r = mod(s2 - s1, P);
	const hh = (h * h) % P;
	const hhh = (h * hh) % P;
	const v = (u1 * hh) % P;
	const x3 = mod(r * r - hhh - 2n * v, P);
	const y3 = mod(r * (v - x3) - s1 * hhh, P);
	return [x3, y3, (a[2] * b[2] * h) % P];
}

function toAffine([x, y, z]: Jacobian): Point | undefined {
	if (z === 0n) return undefined;
	const zInverse = modInverse(z, P);
	const zz = (zInverse * zInverse) % P;
	return { x: (x * zz) % P, y: (y * zz * zInverse) % P };
}

/** k·point, or undefined for the point at infinity. */
export function multiply(point: Point, scalar: bigint): Point | undefined {
	let result = INFINITY;
	let addend: Jacobian = [point.x, point.y, 1n];
	for (let k = mod(scalar, N); k > 0n; k >>= 1n) {
		if (k & 1n) result = add(result, addend);
		addend = double(addend);
	}
	return toAffine(result);
}

/** a + b, either of them possibly the point at infinity (undefined). */
export function addPoints(a: Point | undefined, b: Point | undefined): Point | undefined {
	if (!a) return b;
	if (!b) return a;
	return toAffine(add([a.x, a.y, 1n], [b.x, b.y, 1n]));
}

/** The SEC 1 encoding of a point: 65 bytes (04, x, y), or 33 (02/03, x) compressed. */
export function serializePoint(point: Point, compressed = false): Uint8Array {
	if (compressed) return Uint8Array.from([point.y & 1n ? 3 : 2, ...bigIntTo32Bytes(point.x)]);
	return Uint8Array.from([4, ...bigIntTo32Bytes(point.x), ...bigIntTo32Bytes(point.y)]);
}
