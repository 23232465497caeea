import { createCipheriv, createDecipheriv, hkdfSync } from 'crypto';

import type { RandomBytes } from '../validation/apiKeys';

/*
 * A borrower's API key sealed with the Key Sealing Secret of the Lendasat credential, so that a
 * partner's store and n8n's saved executions hold only the sealed form:
 *   lendasat-sealed:v1:<base64 of nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)>
 * AES-256-GCM under HKDF-SHA256(secret) with a fixed salt and info, a random nonce per seal, and the
 * prefix as associated data, so that a form altered anywhere (the version included) does not open.
 * The base64 is the standard alphabet without padding: it has neither "-" nor "_", so no sealed key
 * can ever hold one of the shapes of a Lendasat key (lndst_sk_, las-, ldst-acc-) that the node
 * refuses in text and redacts from messages.
 */

/** What every sealed form starts with, whatever its version. */
export const SEALED_KEY_MARK = 'lendasat-sealed:';
export const SEALED_KEY_PREFIX = `${SEALED_KEY_MARK}v1:`;
/** The shortest Key Sealing Secret accepted: `openssl rand -hex 32` gives 64 characters. */
export const MIN_SEALING_SECRET_LENGTH = 32;

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = 'n8n-nodes-lendasat';
const HKDF_INFO = 'sealed borrower API key v1';
const BASE64 = /^[A-Za-z0-9+/]+$/;

const CANNOT_OPEN =
	"It could not be opened with this credential's Key Sealing Secret: it was sealed with another secret, or altered.";
const OTHER_VERSION = `It is not sealed in the form this node opens (${SEALED_KEY_PREFIX}…): it was made by another version of the node, or altered.`;

/** Whether a text is a sealed key (of any version): it is opened, never sent as it is. */
export function isSealedKey(text: string): boolean {
	return text.trim().startsWith(SEALED_KEY_MARK);
}

/** Whether a text holds a sealed key anywhere in it. */
export function holdsSealedKey(text: string): boolean {
	return text.includes(SEALED_KEY_MARK);
}

/** What is wrong with a Key Sealing Secret, or undefined. No message repeats any part of it. */
export function sealingSecretProblem(secret: unknown): string | undefined {
	const text = typeof secret === 'string' ? secret.trim() : '';
	if (text === '') return 'The credential has no Key Sealing Secret.';
	if (text.length < MIN_SEALING_SECRET_LENGTH) {
		return `The credential's Key Sealing Secret is shorter than ${MIN_SEALING_SECRET_LENGTH} characters.`;
	}
	return undefined;
}

/** The key `secret` seals with: the same secret (white space around it ignored) always gives the same key. */
function sealingKeyOf(secret: string): Buffer {
	return Buffer.from(hkdfSync('sha256', secret.trim(), HKDF_SALT, HKDF_INFO, 32));
}

/** `apiKey` (trimmed) sealed with `secret`, which must have passed sealingSecretProblem. */
export function sealKey(apiKey: string, secret: string, randomBytes: RandomBytes): string {
	const nonce = Buffer.from(randomBytes(NONCE_BYTES));
	const cipher = createCipheriv('aes-256-gcm', sealingKeyOf(secret), nonce, {
		authTagLength: TAG_BYTES,
	});
	cipher.setAAD(Buffer.from(SEALED_KEY_PREFIX));
	const sealed = Buffer.concat([
		nonce,
		cipher.update(apiKey.trim(), 'utf8'),
		cipher.final(),
		cipher.getAuthTag(),
	]);
	return SEALED_KEY_PREFIX + sealed.toString('base64').replace(/=+$/, '');
}

/**
 * The key in a sealed form, or why it cannot be opened: altered anywhere, cut short, sealed with
 * another secret or in another version's form. Nothing of the key or the secret is in the problem.
 */
export function openSealedKey(
	sealed: string,
	secret: string,
): { key: string } | { problem: string } {
	const text = sealed.trim();
	if (!text.startsWith(SEALED_KEY_PREFIX)) return { problem: OTHER_VERSION };
	const payload = text.slice(SEALED_KEY_PREFIX.length);
	if (!BASE64.test(payload)) return { problem: CANNOT_OPEN };
	const bytes = Buffer.from(payload, 'base64');
	// Base64 that decodes to these bytes but is not their encoding was altered (its last character's spare bits).
	if (bytes.toString('base64').replace(/=+$/, '') !== payload) return { problem: CANNOT_OPEN };
	if (bytes.length <= NONCE_BYTES + TAG_BYTES) return { problem: CANNOT_OPEN };
	const decipher = createDecipheriv(
		'aes-256-gcm',
		sealingKeyOf(secret),
		bytes.subarray(0, NONCE_BYTES),
		{ authTagLength: TAG_BYTES },
	);
	decipher.setAAD(Buffer.from(SEALED_KEY_PREFIX));
	decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
	try {
		const key = Buffer.concat([
			decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
			decipher.final(),
		]).toString('utf8');
		return { key };
	} catch {
		return { problem: CANNOT_OPEN };
	}
}
