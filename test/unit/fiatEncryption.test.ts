import { createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

import { publicKeyOf } from '../../dev/sandbox/messageSigner';
import {
	aesGcmSivDecrypt,
	aesGcmSivEncrypt,
	polyval,
} from '../../nodes/LendasatBorrower/encryption/aesGcmSiv';
import { eciesDecrypt, eciesEncrypt } from '../../nodes/LendasatBorrower/encryption/ecies';
import {
	decryptFiatDetails,
	encryptFiatDetails,
	type FiatDetails,
} from '../../nodes/LendasatBorrower/encryption/fiatDetails';
import { G, multiply, serializePoint } from '../../nodes/LendasatBorrower/encryption/secp256k1';

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

describe('AES-256-GCM-SIV (RFC 8452)', () => {
	it('computes POLYVAL as Appendix A does', () => {
		expect(
			toHex(
				polyval(
					hex('25629347589242761d31f826ba4b757b'),
					hex('4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362'),
				),
			),
		).toBe('f7a3b47b846119fae5b7866cf5e5b77e');
	});

	const KEY = hex(`01${'00'.repeat(31)}`);
	const NONCE = hex(`03${'00'.repeat(11)}`);
	it.each([
		['', '', '07f5f4169bbf55a8400cd47ea6fd400f'],
		['', '0100000000000000', 'c2ef328e5c71c83b843122130f7364b761e0b97427e3df28'],
		[
			'',
			'0100000000000000000000000000000002000000000000000000000000000000',
			'4a6a9db4c8c6549201b9edb53006cba821ec9cf850948a7c86c68ac7539d027fe819e63abcd020b006a976397632eb5d',
		],
		['01', '020000000000000000000000', '163d6f9cc1b346cd453a2e4cc1a4a19ae800941ccdc57cc8413c277f'],
		[
			'010000000000000000000000000000000200',
			'0300000000000000000000000000000004000000',
			'43dd0163cdb48f9fe3212bf61b201976067f342bb879ad976d8242acc188ab59cabfe307',
		],
	])('matches Appendix C.2 (aad %s, plaintext %s)', (aad, plaintext, sealed) => {
		expect(toHex(aesGcmSivEncrypt(KEY, NONCE, hex(plaintext), hex(aad)))).toBe(sealed);
		expect(toHex(aesGcmSivDecrypt(KEY, NONCE, hex(sealed), hex(aad))!)).toBe(plaintext);
	});

	it('refuses a ciphertext whose tag does not match', () => {
		const sealed = aesGcmSivEncrypt(KEY, NONCE, hex('0100000000000000'));
		sealed[0] ^= 1;
		expect(aesGcmSivDecrypt(KEY, NONCE, sealed)).toBeUndefined();
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
