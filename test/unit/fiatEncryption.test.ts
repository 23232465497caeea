import { createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

import { G, multiply, serializePoint } from '../../dev/sandbox/curve';
import { publicKeyOf } from '../../dev/sandbox/messageSigner';
import { aesGcmSivEncrypt } from '../../nodes/LendasatBorrower/encryption/aesGcmSiv';
import { eciesEncrypt } from '../../nodes/LendasatBorrower/encryption/ecies';
import {
	encryptFiatDetails,
	type FiatDetails,
} from '../../nodes/LendasatBorrower/encryption/fiatDetails';
import { polyval } from '../../nodes/LendasatBorrower/encryption/polyval';
import { N, P, bigIntTo32Bytes, modPow } from '../../nodes/LendasatBorrower/encryption/secp256k1';
import {
	isUsablePrivateKey,
	sharedPoint,
} from '../../nodes/LendasatBorrower/encryption/sharedPoint';
import { aesGcmSivDecrypt, decryptFiatDetails, eciesDecrypt } from '../helpers/fiatDecryption';
import RFC_8452 from '../fixtures/rfc8452-vectors.json';

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Bytes handed out in order, as a test's stand-in for crypto.randomBytes. */
function scripted(...chunks: Uint8Array[]) {
	const queue = [...chunks];
	return (count: number) => {
		const next = queue.shift();
		if (!next || next.length !== count) throw new Error(`unexpected request for ${count} bytes`);
		return next;
	};
}

/** POLYVAL as RFC 8452 §3 defines it, on BigInt with branches: the reference the masked code is checked against. */
function referencePolyval(hashKey: Uint8Array, blocks: Uint8Array): string {
	const polynomial = (1n << 128n) | (1n << 127n) | (1n << 126n) | (1n << 121n) | 1n;
	const element = (bytes: Uint8Array) =>
		BigInt(`0x${toHex(Uint8Array.from(bytes).reverse()) || '0'}`);
	const h = element(hashKey);
	let sum = 0n;
	for (let at = 0; at < blocks.length; at += 16) {
		const a = sum ^ element(blocks.subarray(at, at + 16));
		let product = 0n;
		for (let bit = 0n; bit < 128n; bit++) if ((h >> bit) & 1n) product ^= a << bit;
		for (let step = 0; step < 128; step++)
			product = (product & 1n ? product ^ polynomial : product) >> 1n;
		sum = product;
	}
	return toHex(hex(sum.toString(16).padStart(32, '0')).reverse());
}

describe('AES-256-GCM-SIV (RFC 8452)', () => {
	it.each(RFC_8452.polyval)('computes POLYVAL as $name does', ({ hashKey, input, result }) => {
		expect(toHex(polyval(hex(hashKey), hex(input)))).toBe(result);
	});

	it('computes POLYVAL as the textbook definition does, for random keys and data', () => {
		for (let round = 0; round < 50; round++) {
			const hashKey = randomBytes(16);
			const blocks = randomBytes(16 * (1 + (round % 4)));
			expect(toHex(polyval(hashKey, blocks))).toBe(referencePolyval(hashKey, blocks));
		}
		const ones = hex('ff'.repeat(16));
		expect(toHex(polyval(ones, ones))).toBe(referencePolyval(ones, ones));
	});

	it.each(RFC_8452.aes256GcmSiv)('matches $name', ({ key, nonce, aad, plaintext, result }) => {
		expect(toHex(aesGcmSivEncrypt(hex(key), hex(nonce), hex(plaintext), hex(aad)))).toBe(result);
		expect(toHex(aesGcmSivDecrypt(hex(key), hex(nonce), hex(result), hex(aad))!)).toBe(plaintext);
	});

	it('refuses a ciphertext whose tag does not match', () => {
		const [key, nonce] = [hex(`01${'00'.repeat(31)}`), hex(`03${'00'.repeat(11)}`)];
		const sealed = aesGcmSivEncrypt(key, nonce, hex('0100000000000000'));
		sealed[0] ^= 1;
		expect(aesGcmSivDecrypt(key, nonce, sealed)).toBeUndefined();
	});
});

describe('ECIES as the Rust crate ecies 0.2.6 (default configuration, pure AES)', () => {
	it('derives keys with HKDF-SHA256 without salt or info, as its known vector shows', () => {
		expect(
			toHex(new Uint8Array(hkdfSync('sha256', 'secret', Buffer.alloc(0), Buffer.alloc(0), 32))),
		).toBe('2f34e5ff91ec85d53ca9b543683174d0cf550b60d5f52b24c97b386cfcf6cbbf');
	});

	it('takes AES-256-GCM with a 16-byte nonce, as its known vector shows', () => {
		const decipher = createDecipheriv(
			'aes-256-gcm',
			Buffer.alloc(32),
			hex('f3e1ba810d2c8900b11312b7c725565f'),
		);
		decipher.setAuthTag(hex('ec3b71e17c11dbe31484da9450edcf6c'));
		expect(
			Buffer.concat([decipher.update(hex('02d2ffed93b856f148b9')), decipher.final()]).toString(),
		).toBe('helloworld');
	});

	it('shares the key of its known vector (ephemeral key 2, receiver 3·G) and lays out key, nonce, tag, ciphertext', () => {
		const two = hex(`${'00'.repeat(31)}02`);
		const nonce = hex('f3e1ba810d2c8900b11312b7c725565f');
		const receiver = serializePoint(multiply(G, 3n)!, true);
		const sealed = eciesEncrypt(receiver, Buffer.from('helloworld'), scripted(two, nonce));
		expect(toHex(sealed.subarray(0, 65))).toBe(toHex(serializePoint(multiply(G, 2n)!)));
		expect(toHex(sealed.subarray(65, 81))).toBe(toHex(nonce));
		const key = hex('6f982d63e8590c9d9b5b4c1959ff80315d772edd8f60287c9361d548d5200f82');
		const decipher = createDecipheriv('aes-256-gcm', key, nonce);
		decipher.setAuthTag(sealed.subarray(81, 97));
		expect(Buffer.concat([decipher.update(sealed.subarray(97)), decipher.final()]).toString()).toBe(
			'helloworld',
		);
		expect(eciesDecrypt(hex(`${'00'.repeat(31)}03`), sealed)?.toString()).toBe('helloworld');
		expect(eciesDecrypt(hex(`${'00'.repeat(31)}04`), sealed)).toBeUndefined();
	});

	// ecies/rs src/elliptic/secp256k1.rs, known_tests::test_known_encrypted (commit ab356048), default configuration.
	const CRATE_KEY = hex('e520872701d9ec44dbac2eab85512ad14ad0c42e01de56d7b528abd8524fcb47');
	const CRATE_CIPHERTEXT = hex(
		'047be1885aeb48d4d4db0c992996725d3264784fef88c5b60782f8d0f940c213227fc3f904f846d5ec3d0fba6653754501e8ebadc421aa3892a20fef33cff0206047058a4cfb4efbeae96b2d019b4ab2edce33328748a0d008a69c8f5816b72d45bd9b5a41bb6ea0127ab23057ec6fcd',
	);

	it('opens the ciphertext the crate publishes, with its shared point from Node’s ECDH as from double-and-add', () => {
		expect(eciesDecrypt(CRATE_KEY, CRATE_CIPHERTEXT)?.toString()).toBe('hello world🌍');
		const ephemeral = CRATE_CIPHERTEXT.subarray(0, 65);
		const master = Buffer.concat([ephemeral, sharedPoint(CRATE_KEY, ephemeral)]);
		const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), Buffer.alloc(0), 32));
		const decipher = createDecipheriv('aes-256-gcm', key, CRATE_CIPHERTEXT.subarray(65, 81));
		decipher.setAuthTag(CRATE_CIPHERTEXT.subarray(81, 97));
		expect(
			Buffer.concat([decipher.update(CRATE_CIPHERTEXT.subarray(97)), decipher.final()]).toString(),
		).toBe('hello world🌍');
	});
});

describe('the shared point from Node’s ECDH (x) and a second ECDH with the key + 1 (the sign of y)', () => {
	const key = (value: bigint) => bigIntTo32Bytes(value);
	const hashed = (seed: string) => createHash('sha256').update(seed).digest();
	/** Receivers: G, 3·G, and points of unrelated keys, compressed and not. */
	const RECEIVERS = [
		1n,
		3n,
		...[0, 1, 2, 3].map((n) => BigInt(`0x${toHex(hashed(`receiver ${n}`))}`) % N),
	];

	it('equals double-and-add for the edge keys 1, 2, n − 2 and for 40 others', () => {
		const keys = [
			1n,
			2n,
			N - 2n,
			...Array.from({ length: 40 }, (_, n) => BigInt(`0x${toHex(hashed(`key ${n}`))}`) % N),
		];
		const signs = new Set<boolean>();
		for (const [index, k] of keys.entries()) {
			const receiverKey = RECEIVERS[index % RECEIVERS.length];
			const receiver = multiply(G, receiverKey)!;
			const expected = serializePoint(multiply(receiver, k)!);
			expect(toHex(sharedPoint(key(k), serializePoint(receiver, index % 2 === 0)))).toBe(
				toHex(expected),
			);
			// Whether y is the square root that (p+1)/4 gives or its negation: both must occur.
			const x = BigInt(`0x${toHex(expected.subarray(1, 33))}`);
			signs.add(
				modPow(x ** 3n + 7n, (P + 1n) / 4n, P) === BigInt(`0x${toHex(expected.subarray(33))}`),
			);
		}
		expect([...signs].sort()).toEqual([false, true]);
	});

	it('takes exactly the keys 1 … n − 2, whose successor is a key too', () => {
		expect(isUsablePrivateKey(key(0n))).toBe(false);
		expect(isUsablePrivateKey(key(1n))).toBe(true);
		expect(isUsablePrivateKey(key(N - 2n))).toBe(true);
		expect(isUsablePrivateKey(key(N - 1n))).toBe(false);
		expect(isUsablePrivateKey(key(N))).toBe(false);
		expect(isUsablePrivateKey(hex('ff'.repeat(32)))).toBe(false);
		expect(isUsablePrivateKey(hex('00'.repeat(31) + '01').subarray(1))).toBe(false);
	});

	it('has ECIES draw its ephemeral key again when the random bytes give 0 or n − 1', () => {
		const nonce = hex('f3e1ba810d2c8900b11312b7c725565f');
		const receiver = serializePoint(multiply(G, 3n)!, true);
		const sealed = eciesEncrypt(
			receiver,
			Buffer.from('helloworld'),
			scripted(key(N - 1n), key(0n), key(2n), nonce),
		);
		expect(toHex(sealed.subarray(0, 65))).toBe(toHex(serializePoint(multiply(G, 2n)!)));
		expect(eciesDecrypt(key(3n), sealed)?.toString()).toBe('helloworld');
	});

	it('refuses a public key that is no point', () => {
		expect(() => sharedPoint(key(2n), hex(`02${'00'.repeat(32)}`))).toThrow(
			'The public key is not a point on secp256k1',
		);
	});
});

describe("Lendasat's encryption of bank details", () => {
	const BORROWER_KEY = '3b1f0c2d4e6f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b';
	const LENDER_KEY = '4c2e1d3f5a7b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d';
	const DETAILS: FiatDetails = {
		iban_transfer_details: { iban: 'NL87ABNA4193835510', bic: null },
		swift_transfer_details: null,
		bank_name: 'Bank',
		bank_address: 'Street 1',
		bank_country: 'Netherlands',
		purpose_of_remittance: 'Food',
		full_name: 'Mr Bitcoin',
		address: 'Straße 2',
		city: 'Amsterdam',
		post_code: '1000',
		country: 'Netherlands',
		comments: null,
	};

	it('encrypts every field apart, opens for the borrower and for the lender alone', () => {
		const wrapper = encryptFiatDetails(
			DETAILS,
			{ borrower: hex(publicKeyOf(BORROWER_KEY)), lender: hex(publicKeyOf(LENDER_KEY)) },
			randomBytes,
		);
		expect(wrapper.details.iban_transfer_details).toEqual({
			iban: expect.stringMatching(/^[0-9a-f]{64}\$[0-9a-f]{68}$/),
			bic: null,
		});
		expect(wrapper.details.swift_transfer_details).toBeNull();
		expect(wrapper.details.comments).toBeNull();
		expect(wrapper.details.address).toMatch(/^[0-9a-f]{64}\$[0-9a-f]{50}$/);
		expect(JSON.stringify(wrapper)).not.toMatch(/NL87|Bitcoin|Amsterdam/);
		expect(wrapper.encrypted_encryption_key_borrower).toMatch(/^04[0-9a-f]{256}$/);
		expect(
			decryptFiatDetails(
				wrapper.details,
				wrapper.encrypted_encryption_key_borrower,
				hex(BORROWER_KEY),
			),
		).toEqual(DETAILS);
		expect(
			decryptFiatDetails(wrapper.details, wrapper.encrypted_encryption_key_lender, hex(LENDER_KEY)),
		).toEqual(DETAILS);
		expect(
			decryptFiatDetails(
				wrapper.details,
				wrapper.encrypted_encryption_key_lender,
				hex(BORROWER_KEY),
			),
		).toBeUndefined();
	});
});
