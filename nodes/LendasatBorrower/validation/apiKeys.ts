import type { ValidationProblem } from './checks';

/**
 * Lendasat's borrower API keys (hub/src/api_keys.rs): `lndst_sk_{key_id}_{secret}`, the key ID 12
 * lower-case hexadecimal characters (6 random bytes), the secret 43 letters and digits. The server
 * parses a key by splitting it at `_` into exactly four parts and looks it up by its key ID.
 */
const PREFIX = 'lndst_sk_';
const KEY_ID_BYTES = 6;
const SECRET_LENGTH = 43;
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** The largest multiple of the alphabet's size that fits a byte: higher bytes are drawn again, so no letter is likelier. */
const UNBIASED_BYTE_LIMIT = 256 - (256 % ALPHANUMERIC.length);
/** A secret shorter than this is guessable; Lendasat's own keys have 43 characters, its e2e tests 64. */
const MIN_SECRET_LENGTH = 32;
const MAX_SECRET_LENGTH = 128;

/** Random bytes, e.g. crypto.randomBytes; injectable so that a test can fix them. */
export type RandomBytes = (count: number) => Uint8Array;

/** A new key in Lendasat's format, as Lendasat's own ApiKey::generate makes one. */
export function generateApiKey(randomBytes: RandomBytes): string {
	const keyId = [...randomBytes(KEY_ID_BYTES)]
		.map((byte) => byte.toString(16).padStart(2, '0'))
		.join('');
	let secret = '';
	while (secret.length < SECRET_LENGTH) {
		for (const byte of randomBytes(SECRET_LENGTH)) {
			if (byte < UNBIASED_BYTE_LIMIT && secret.length < SECRET_LENGTH)
				secret += ALPHANUMERIC[byte % ALPHANUMERIC.length];
		}
	}
	return `${PREFIX}${keyId}_${secret}`;
}

const FORMAT = `lndst_sk_, 12 hexadecimal characters (0-9, a-f), _, and a secret of ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} letters and digits`;

/**
 * A borrower API key a user brings, in Lendasat's format. The key is a secret: no message repeats
 * any part of it.
 */
export function checkOwnApiKey(value: unknown): ValidationProblem {
	const hint = ` A key looks like ${FORMAT}. Leave the field empty and the node makes one.`;
	if (typeof value !== 'string') return `Expected the key as text.${hint}`;
	const key = value.trim();
	if (key === '') return `Must not be empty.${hint}`;
	if (/[\s\p{Cc}]/u.test(key)) return `The key contains a space or line break.${hint}`;
	if (!key.startsWith(PREFIX)) return `The key does not start with lndst_sk_.${hint}`;
	const [keyId, secret, ...rest] = key.slice(PREFIX.length).split('_');
	if (secret === undefined || rest.length > 0)
		return `The key must have exactly one _ after the key ID (Lendasat splits the key at _).${hint}`;
	if (!/^[0-9a-f]{12}$/.test(keyId))
		return `The key ID after lndst_sk_ is not 12 lower-case hexadecimal characters.${hint}`;
	if (!/^[A-Za-z0-9]*$/.test(secret))
		return `The secret after the key ID holds characters other than letters and digits.${hint}`;
	if (secret.length < MIN_SECRET_LENGTH || secret.length > MAX_SECRET_LENGTH)
		return `The secret after the key ID has ${secret.length} characters, not ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH}.${hint}`;
	return null;
}
