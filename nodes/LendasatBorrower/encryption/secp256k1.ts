/**
 * secp256k1's constants and its points as SEC 1 bytes, with BigInt: reading and checking the public
 * keys the node is given (is x on the curve; a compressed key's y). liftX, isOnCurveX and
 * parsePoint branch on their input and are for PUBLIC values only. ./sharedPoint.ts, the one
 * computation on a secret point, also uses modPow (its branches follow the exponent alone, which
 * it fixes) and the byte conversions (a loop over all 32 bytes, without branches). The node has no
 * point multiplication of its own.
 */

/** The field prime. */
export const P = 2n ** 256n - 2n ** 32n - 977n;
/** The group order. */
export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface Point {
	x: bigint;
	y: bigint;
}

export function mod(value: bigint, modulus: bigint): bigint {
	const rest = value % modulus;
	return rest < 0n ? rest + modulus : rest;
}

/** base^exponent by square-and-multiply: for a base that is not negative, which steps run depends on the exponent alone. */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
	let result = 1n;
	let b = mod(base, modulus);
	for (let e = exponent; e > 0n; e >>= 1n) {
		if (e & 1n) result = (result * b) % modulus;
		b = (b * b) % modulus;
	}
	return result;
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
		const inField = point.x < P && point.y < P;
		return inField && mod(point.y * point.y - point.x ** 3n - 7n, P) === 0n ? point : undefined;
	}
	return undefined;
}
