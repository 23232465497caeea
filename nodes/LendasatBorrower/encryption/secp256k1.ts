/**
 * The arithmetic of secp256k1 on public values, with BigInt: the curve's constants, points in
 * Jacobian coordinates, and the conversions to and from SEC 1 bytes. Node's crypto does key
 * generation and Diffie-Hellman itself but gives no full shared point, which ECIES needs.
 */

/** The field prime. */
export const P = 2n ** 256n - 2n ** 32n - 977n;
/** The group order. */
export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface Point {
	x: bigint;
	y: bigint;
}

export const G: Point = {
	x: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
	y: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
};

export function mod(value: bigint, modulus: bigint): bigint {
	const rest = value % modulus;
	return rest < 0n ? rest + modulus : rest;
}

export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
	let result = 1n;
	let b = mod(base, modulus);
	for (let e = exponent; e > 0n; e >>= 1n) {
		if (e & 1n) result = (result * b) % modulus;
		b = (b * b) % modulus;
	}
	return result;
}

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

/** y² = x³ + 7: the y of even or odd parity for x, or undefined when x is on no point. */
export function liftX(x: bigint, odd: boolean): Point | undefined {
	if (x <= 0n || x >= P) return undefined;
	const rhs = mod(x * x * x + 7n, P);
	// P ≡ 3 (mod 4), so a square root is rhs^((P+1)/4).
	const y = modPow(rhs, (P + 1n) / 4n, P);
	if ((y * y) % P !== rhs) return undefined;
	return { x, y: (y & 1n) === (odd ? 1n : 0n) ? y : P - y };
}

/** Whether x is the x coordinate of a point on the curve. */
export function isOnCurveX(x: bigint): boolean {
	return liftX(x, false) !== undefined;
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

export function bytesToBigInt(bytes: Uint8Array): bigint {
	return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

export function bigIntTo32Bytes(value: bigint): Uint8Array {
	const bytes = new Uint8Array(32);
	for (let index = 31, rest = value; index >= 0; index--, rest >>= 8n)
		bytes[index] = Number(rest & 0xffn);
	return bytes;
}

/** A point from its SEC 1 encoding: 33 bytes compressed or 65 bytes uncompressed. */
export function parsePoint(bytes: Uint8Array): Point | undefined {
	if (bytes.length === 33 && (bytes[0] === 2 || bytes[0] === 3))
		return liftX(bytesToBigInt(bytes.subarray(1)), bytes[0] === 3);
	if (bytes.length === 65 && bytes[0] === 4) {
		const point = { x: bytesToBigInt(bytes.subarray(1, 33)), y: bytesToBigInt(bytes.subarray(33)) };
		return mod(point.y * point.y - point.x ** 3n - 7n, P) === 0n ? point : undefined;
	}
	return undefined;
}

/** The SEC 1 encoding of a point: 65 bytes (04, x, y), or 33 (02/03, x) compressed. */
export function serializePoint(point: Point, compressed = false): Uint8Array {
	if (compressed) return Uint8Array.from([point.y & 1n ? 3 : 2, ...bigIntTo32Bytes(point.x)]);
	return Uint8Array.from([4, ...bigIntTo32Bytes(point.x), ...bigIntTo32Bytes(point.y)]);
}
