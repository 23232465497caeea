import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

import {
	isSealedKey,
	openSealedKey,
	sealingSecretProblem,
	sealKey,
	SEALED_KEY_PREFIX,
} from '../../nodes/LendasatBorrower/encryption/sealedKeys';
import { requireConnection } from '../../nodes/LendasatBorrower/transport/connection';
import { redactSecrets } from '../../nodes/LendasatBorrower/transport/errors';
import { holdsLendasatKey } from '../../nodes/LendasatBorrower/validation/checks';
import { seededRandom } from '../helpers/seededRandom';

const SECRET = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const OTHER_SECRET = '5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9';
const KEY = 'lndst_sk_0123456789ab_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg';
const CANNOT_OPEN =
	"It could not be opened with this credential's Key Sealing Secret: it was sealed with another secret, or altered.";

/** Bytes 0, 1, 2, … : a nonce that is the same every run. */
const counting = (count: number) => Uint8Array.from({ length: count }, (_, index) => index);
/** Random bytes that are the same every run. */
function seededBytes(seed: number) {
	const next = seededRandom(seed);
	return (count: number) => Uint8Array.from({ length: count }, () => Math.floor(next() * 256));
}

const payloadOf = (sealed: string) => Buffer.from(sealed.slice(SEALED_KEY_PREFIX.length), 'base64');
const sealedFrom = (payload: Buffer) =>
	SEALED_KEY_PREFIX + payload.toString('base64').replace(/=+$/, '');
/** The sealed form with one bit of byte `at` of its payload flipped. */
function flipped(sealed: string, at: number): string {
	const payload = payloadOf(sealed);
	payload[at] ^= 0x01;
	return sealedFrom(payload);
}

describe('a key sealed with the Key Sealing Secret', () => {
	it('opens with the same secret to the very key, and the sealed form holds nothing of it', () => {
		const sealed = sealKey(KEY, SECRET, randomBytes);

		expect(sealed.startsWith('lendasat-sealed:v1:')).toBe(true);
		expect(openSealedKey(sealed, SECRET)).toEqual({ key: KEY });
		expect(sealed).not.toContain(KEY);
		expect(sealed).not.toContain(KEY.slice(-20));
		expect(sealed).not.toContain(SECRET);
	});

	it('is AES-256-GCM under HKDF-SHA256 of the secret, the nonce first, the tag last, the prefix authenticated', () => {
		const sealed = sealKey(KEY, SECRET, counting);
		const payload = payloadOf(sealed);
		const key = Buffer.from(
			hkdfSync('sha256', SECRET, 'n8n-nodes-lendasat', 'sealed borrower API key v1', 32),
		);
		const decipher = createDecipheriv('aes-256-gcm', key, payload.subarray(0, 12));
		decipher.setAAD(Buffer.from('lendasat-sealed:v1:'));
		decipher.setAuthTag(payload.subarray(payload.length - 16));

		expect(payload.subarray(0, 12)).toEqual(Buffer.from(counting(12)));
		expect(payload.length).toBe(12 + KEY.length + 16);
		expect(
			Buffer.concat([decipher.update(payload.subarray(12, -16)), decipher.final()]).toString(),
		).toBe(KEY);
	});

	it('is the same for the same nonce, and differs with each random nonce', () => {
		expect(sealKey(KEY, SECRET, counting)).toBe(sealKey(KEY, SECRET, counting));
		const forms = new Set(Array.from({ length: 20 }, () => sealKey(KEY, SECRET, randomBytes)));
		expect(forms.size).toBe(20);
	});

	it('opens a key sealed by this version, as partners have it stored', () => {
		// Sealed once with SECRET and the nonce 00 01 … 0b; a later version must still open it.
		const stored =
			'lendasat-sealed:v1:AAECAwQFBgcICQoLMJ4yHV9G3pTzwHIlZk86QNngc5hLzkuD8Ha7gyIJn1bSBR22VE5D+n5M5Im+YdcaFg4ulcfOl6eRll9Rs+U2JkMZeCzbtGDoJCLqcNQwsRwm';

		expect(openSealedKey(stored, SECRET)).toEqual({ key: KEY });
		expect(sealKey(KEY, SECRET, counting)).toBe(stored);
	});

	it('ignores white space around the secret and the sealed form, as pasted', () => {
		const sealed = sealKey(`  ${KEY}\n`, ` ${SECRET}\n`, randomBytes);
		expect(openSealedKey(`\n${sealed}  `, SECRET)).toEqual({ key: KEY });
	});
});

describe('a sealed key that cannot be opened fails closed, saying why without the key or the secret', () => {
	const sealed = sealKey(KEY, SECRET, counting);
	const payloadLength = payloadOf(sealed).length;

	it.each([
		['the nonce', 0],
		['the nonce', 11],
		['the ciphertext', 12],
		['the ciphertext', payloadLength - 17],
		['the tag', payloadLength - 16],
		['the tag', payloadLength - 1],
	])('one bit of %s (byte %i) changed', (_part, at) => {
		expect(openSealedKey(flipped(sealed, at), SECRET)).toEqual({ problem: CANNOT_OPEN });
	});

	it.each([
		['cut short by one byte', (payload: Buffer) => payload.subarray(0, -1)],
		['cut to the nonce and tag', (payload: Buffer) => payload.subarray(0, 28)],
		['cut to nothing', (payload: Buffer) => payload.subarray(0, 0)],
		['one byte longer', (payload: Buffer) => Buffer.concat([payload, Buffer.from([0])])],
	])('%s', (_change, change) => {
		expect(openSealedKey(sealedFrom(change(payloadOf(sealed))), SECRET)).toEqual({
			problem: CANNOT_OPEN,
		});
	});

	it('a character that is not base64, or base64 that does not encode its bytes exactly', () => {
		// 12 + 64 + 16 = 92 bytes are 123 characters: the last one carries 4 bits and 2 spare ones.
		const short = sealKey(KEY.slice(0, -1), SECRET, counting);
		const body = short.slice(SEALED_KEY_PREFIX.length);
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
		const spareBitSet = alphabet[alphabet.indexOf(body.slice(-1)) ^ 1];
		expect(Buffer.from(`${body.slice(0, -1)}${spareBitSet}`, 'base64')).toEqual(payloadOf(short));
		for (const altered of [
			`${SEALED_KEY_PREFIX}${body.slice(0, -1)}${spareBitSet}`,
			`${SEALED_KEY_PREFIX}${body.slice(0, 10)}-${body.slice(11)}`,
			`${SEALED_KEY_PREFIX}${body.slice(0, 10)} ${body.slice(11)}`,
			`${SEALED_KEY_PREFIX}${body}=`,
		]) {
			expect(openSealedKey(altered, SECRET)).toEqual({ problem: CANNOT_OPEN });
		}
		expect(openSealedKey(short, SECRET)).toEqual({ key: KEY.slice(0, -1) });
	});

	it('another secret', () => {
		expect(openSealedKey(sealed, OTHER_SECRET)).toEqual({ problem: CANNOT_OPEN });
		expect(openSealedKey(sealed, `${SECRET}x`)).toEqual({ problem: CANNOT_OPEN });
	});

	it('another version: the prefix is authenticated too', () => {
		const v2 = sealed.replace('lendasat-sealed:v1:', 'lendasat-sealed:v2:');
		const problem =
			'It is not sealed in the form this node opens (lendasat-sealed:v1:…): it was made by another version of the node, or altered.';

		expect(isSealedKey(v2)).toBe(true);
		expect(openSealedKey(v2, SECRET)).toEqual({ problem });
		expect(openSealedKey('lendasat-sealed:', SECRET)).toEqual({ problem });
		// Sealed with the same secret and nonce but the v2 prefix authenticated, then given the v1 prefix.
		const underOtherPrefix = sealedWithAad(KEY, 'lendasat-sealed:v2:');
		expect(openSealedKey(underOtherPrefix, SECRET)).toEqual({ problem: CANNOT_OPEN });
	});
});

/** KEY sealed as v1 would be, but with `aad` authenticated instead of the v1 prefix. */
function sealedWithAad(key: string, aad: string): string {
	const nonce = Buffer.from(counting(12));
	const cipher = createCipheriv(
		'aes-256-gcm',
		Buffer.from(hkdfSync('sha256', SECRET, 'n8n-nodes-lendasat', 'sealed borrower API key v1', 32)),
		nonce,
	);
	cipher.setAAD(Buffer.from(aad));
	const body = Buffer.concat([nonce, cipher.update(key), cipher.final(), cipher.getAuthTag()]);
	return sealedFrom(body);
}

describe('the Key Sealing Secret', () => {
	it('is refused when missing or shorter than 32 characters, never repeated', () => {
		const short = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d'; // 31 characters
		const none = 'The credential has no Key Sealing Secret.';
		expect([undefined, '', '   ', 42].map(sealingSecretProblem)).toEqual([none, none, none, none]);
		const tooShort = "The credential's Key Sealing Secret is shorter than 32 characters.";
		expect(sealingSecretProblem(short)).toBe(tooShort);
		expect(sealingSecretProblem(` ${short} `)).toBe(tooShort);
		expect(sealingSecretProblem(`${short}e`)).toBeUndefined();
		expect(sealingSecretProblem(SECRET)).toBeUndefined();
	});
});

describe('a sealed key is not shaped like a Lendasat key', () => {
	it('neither the prefix nor any sealed form is flagged or redacted as a key', () => {
		const bytes = seededBytes(25);
		expect(holdsLendasatKey(SEALED_KEY_PREFIX)).toBe(false);
		for (let round = 0; round < 2000; round += 1) {
			const sealed = sealKey(KEY, SECRET, bytes);
			expect(sealed).toMatch(/^lendasat-sealed:v1:[A-Za-z0-9+/]+$/);
			expect(holdsLendasatKey(sealed)).toBe(false);
			expect(redactSecrets(sealed, [])).toBe(sealed);
		}
	});

	it('while the plain key it holds is', () => {
		expect(holdsLendasatKey(KEY)).toBe(true);
		expect(isSealedKey(KEY)).toBe(false);
	});
});

describe('the connection of an item acting with a sealed key', () => {
	const node = { name: 'Lendasat', typeVersion: 1.1, type: 'lendasatBorrower', parameters: {} };
	const asker = {
		node: node as never,
		label: 'Contract → Get Many',
		keyType: 'borrower' as const,
		itemIndex: 3,
	};
	const master = {
		environment: 'custom',
		baseUrl: 'http://127.0.0.1:7337',
		keyType: 'master',
		apiKey: 'las-partner-master-1',
		sealingSecret: SECRET,
	};
	const sealed = sealKey(KEY, SECRET, counting);

	it('sends the opened key as a Borrower Key; the opened key and the secret are redacted like the keys', () => {
		const connection = requireConnection(master, { ...asker, actAs: sealed });

		expect(connection).toMatchObject({ apiKey: KEY, keyType: 'borrower', actingAsBorrower: true });
		expect(
			redactSecrets(`${KEY} ${SECRET} ${encodeURIComponent(SECRET)}`, connection.secrets),
		).toBe('[redacted] [redacted] [redacted]');
	});

	it('the credential own connection keeps the secret among its secrets too', () => {
		const connection = requireConnection(
			{ ...master, keyType: 'borrower', apiKey: 'lndst_sk_0123456789ab_own' },
			{ ...asker },
		);
		expect(redactSecrets(`a ${SECRET} b`, connection.secrets)).toBe('a [redacted] b');
	});

	it.each([
		[
			'sealed with another secret',
			{ ...master, sealingSecret: OTHER_SECRET },
			'Cannot open the sealed key in Act as Borrower (API Key) [item 3]',
			`Contract → Get Many: Act as Borrower (API Key): ${CANNOT_OPEN} Nothing was sent.`,
		],
		[
			'a credential without a Key Sealing Secret',
			{ ...master, sealingSecret: '' },
			"The credential's Key Sealing Secret cannot be used [item 3]",
			'Contract → Get Many: The credential has no Key Sealing Secret. Act as Borrower (API Key) holds a sealed key, which opens only with the Key Sealing Secret it was sealed with: enter that secret in the credential. Nothing was sent.',
		],
		[
			'a credential whose Key Sealing Secret is too short',
			{ ...master, sealingSecret: SECRET.slice(0, 31) },
			"The credential's Key Sealing Secret cannot be used [item 3]",
			"Contract → Get Many: The credential's Key Sealing Secret is shorter than 32 characters. Act as Borrower (API Key) holds a sealed key, which opens only with the Key Sealing Secret it was sealed with: enter that secret in the credential. Nothing was sent.",
		],
	])(
		'%s: refused, naming the item, without the key or the secret',
		(_case, credential, message, description) => {
			let thrown: unknown;
			try {
				requireConnection(credential, { ...asker, actAs: sealed });
			} catch (error) {
				thrown = error;
			}
			expect(thrown).toMatchObject({ message, description });
			const shown = JSON.stringify({
				message,
				description: (thrown as Error & { description: string }).description,
			});
			for (const secret of [KEY, SECRET, OTHER_SECRET, SECRET.slice(0, 31)]) {
				expect(shown).not.toContain(secret);
			}
		},
	);
});
