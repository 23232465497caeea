import { createHash, createPublicKey, verify } from 'node:crypto';

import {
	publicKeyOf,
	recoverPublicKey,
	signedMessageHash,
	standInSignMessage,
} from '../../dev/sandbox/messageSigner';
import { G, multiply, serializePoint } from '../../dev/sandbox/curve';
import { N } from '../../nodes/LendasatBorrower/encryption/secp256k1';
import { readRecoverableSignature } from '../../nodes/LendasatBorrower/validation/signatures';

const PRIVATE_KEY = '5c1a3f0d2b4e6a8c9e7f1d3b5a7c9e0f2d4b6a8c0e1f3d5b7a9c1e3f5d7b9a1c';
const ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

/** A compressed key as Node's crypto takes it: SubjectPublicKeyInfo DER for secp256k1. */
function nodeKey(compressedHex: string) {
	const prefix = Buffer.from('3036301006072a8648ce3d020106052b8104000a032200', 'hex');
	return createPublicKey({
		key: Buffer.concat([prefix, Buffer.from(compressedHex, 'hex')]),
		format: 'der',
		type: 'spki',
	});
}

describe('secp256k1 arithmetic (checked against Node’s own crypto)', () => {
	it('multiplies the generator: 1·G is G, n·G is the point at infinity', () => {
		expect(multiply(G, 1n)).toEqual(G);
		expect(multiply(G, N)).toBeUndefined();
		expect(Buffer.from(serializePoint(G, true)).toString('hex')).toBe(
			'0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
		);
	});

	it('signs a Bitcoin message that OpenSSL verifies, and recovers the signing key from it', () => {
		const signature = standInSignMessage(PRIVATE_KEY, ADDRESS);
		const publicKey = publicKeyOf(PRIVATE_KEY);
		const compact = Buffer.from(signature.recoverable_signature_hex, 'hex');
		// OpenSSL hashes once more with SHA-256: given SHA-256 of the prefixed message, it checks SHA256d.
		const once = createHash('sha256')
			.update(
				Buffer.concat([
					Buffer.from('\x18Bitcoin Signed Message:\n', 'latin1'),
					Buffer.from([ADDRESS.length]),
					Buffer.from(ADDRESS),
				]),
			)
			.digest();
		expect(
			verify('sha256', once, { key: nodeKey(publicKey), dsaEncoding: 'ieee-p1363' }, compact),
		).toBe(true);
		expect(
			recoverPublicKey(signedMessageHash(ADDRESS), compact, signature.recoverable_signature_id),
		).toBe(publicKey);
		expect(
			recoverPublicKey(signedMessageHash(ADDRESS), compact, signature.recoverable_signature_id ^ 1),
		).not.toBe(publicKey);
	});
});

describe('reading a recoverable signature', () => {
	const signature = standInSignMessage(PRIVATE_KEY, ADDRESS);
	const expected = {
		compactHex: signature.recoverable_signature_hex,
		recoveryId: signature.recoverable_signature_id,
	};

	it('takes a wallet’s base64 signature, whose first byte carries the recovery ID', () => {
		expect(readRecoverableSignature(signature.base64, undefined)).toEqual(expected);
		expect(readRecoverableSignature(` ${signature.base64}\n`, expected.recoveryId)).toEqual(
			expected,
		);
		const hex = Buffer.from(signature.base64, 'base64').toString('hex');
		expect(readRecoverableSignature(hex.toUpperCase(), undefined)).toEqual(expected);
	});

	it('takes 64 bytes of hex with the recovery ID given beside it', () => {
		expect(readRecoverableSignature(expected.compactHex, expected.recoveryId)).toEqual(expected);
	});

	it.each([
		['64 bytes without a recovery ID', () => [expected.compactHex, undefined], /set Recovery ID/],
		[
			'a recovery ID that contradicts the signature',
			() => [signature.base64, (expected.recoveryId + 1) % 4],
			/carries recovery ID/,
		],
		['a DER signature', () => [`3044${'11'.repeat(68)}`, 0], /is 140 hexadecimal characters/],
		[
			'a header that is no signed-message header',
			() => [`01${'11'.repeat(64)}`, undefined],
			/not a Bitcoin signed-message header/,
		],
		['r of zero', () => [`${'00'.repeat(32)}${'11'.repeat(32)}`, 0], /out of range/],
		['s of n', () => [`${'11'.repeat(32)}${N.toString(16)}`, 0], /out of range/],
		['text', () => ['signed by me', undefined], /neither a base64 signature/],
	])('refuses %s', (_case, make, problem) => {
		const [value, recoveryId] = make() as [string, number | undefined];
		const read = readRecoverableSignature(value, recoveryId);
		expect('problem' in read && read.problem).toMatch(problem);
	});
});
