import { KEY_TYPE_NAMES, type KeyType } from './credentials';

/** What the error mapper needs to know about one failed HTTP exchange. */
export interface ApiErrorInput {
	/** The operation as a user reads it, e.g. "Contract → Create". */
	operation: string;
	statusCode: number;
	headers?: Record<string, unknown>;
	/** The response body as received: parsed JSON, text, bytes or nothing. */
	body: unknown;
	/** The key type the operation needs, for the 401 guidance. */
	requiredKeyType?: KeyType;
	/** What a 404 means for this operation, e.g. "loan offer 5f1b…". */
	notFound?: string;
	/** Values that must never be shown (the credential's API key). */
	secrets?: string[];
	/** The operation's own reading of failures, tried before the generic one. */
	guidance?: ErrorGuidance[];
}

/**
 * An operation-specific explanation of a failure. It applies when the status matches (if given)
 * and, if `codes` or `text` are given, when the spec's code is one of `codes` or the server's
 * text (the live {message}, or the spec's error/details) matches `text`.
 */
export interface ErrorGuidance {
	statusCodes?: number[];
	codes?: string[];
	text?: RegExp;
	message: string;
	/** Follows "<operation>: " in the description. */
	hint: string;
}

export interface MappedApiError {
	message: string;
	description: string;
	httpCode: string;
	/** The machine-readable code from the body, when the server sent one. */
	code?: string;
}

/** The error fields the API may send: the specification's {error, code, details} or the live {message}. */
interface ErrorBody {
	error?: string;
	code?: string;
	details?: string;
	message?: string;
	/** A readable excerpt of a body that was not the JSON we expected. */
	excerpt?: string;
}

const EXCERPT_LENGTH = 200;

/** Lendasat's own key format, scrubbed even when we were not told the value. */
const API_KEY_PATTERN = /lndst_sk_[A-Za-z0-9_]+/g;

/** A payment card's number and security code as JSON fields (Card → Get Many's `pan`, `cvv`). */
const CARD_SECRET_FIELD_PATTERN = /("(?:pan|cvv)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;

const CODE_GUIDANCE: Record<string, { message: string; hint: string }> = {
	INVALID_AMOUNT: {
		message: 'The loan amount is outside what the offer allows',
		hint: "Choose an amount between the offer's loan_amount_min and loan_amount_max (Offer → Get shows them).",
	},
	INVALID_DURATION: {
		message: 'The loan duration is outside what the offer allows',
		hint: "Choose a duration between the offer's duration_days_min and duration_days_max.",
	},
	INVALID_LOAN_ID: {
		message: 'The loan offer ID is not valid',
		hint: 'Use the UUID of a loan offer, e.g. from Offer → Get Many.',
	},
	INVALID_EMAIL: {
		message: 'The e-mail address was rejected',
		hint: 'Use an address of the form name@example.com.',
	},
	INVALID_TIMEZONE: {
		message: 'The time zone was rejected',
		hint: 'Use an IANA time zone of the form Area/City, e.g. Europe/Berlin.',
	},
	INVALID_NAME: {
		message: 'The name was rejected',
		hint: 'Use a non-empty name of at most 100 characters.',
	},
	MISSING_FIELD: {
		message: 'A required field is missing',
		hint: 'Fill in every required parameter.',
	},
	IDEMPOTENCY_KEY_REUSED: {
		message: 'The idempotency key was already used for a different request',
		hint: 'Each contract request needs its own key: leave the key on automatic, or make the expression unique per item.',
	},
};

/**
 * Turns one failed HTTP exchange into the message and description n8n shows.
 * Pure: the same input always gives the same output, and nothing in it can throw.
 */
export function mapApiError(input: ApiErrorInput): MappedApiError {
	const body = readErrorBody(input.body);
	const scrub = (text: string) => redactSecrets(text, input.secrets ?? []);
	const serverText = describeServerAnswer(body, input.statusCode);
	const code = body.code ? scrub(body.code) : undefined;
	const guidance =
		findGuidance(
			[...(input.guidance ?? []), ...unknownIdGuidance(input.notFound)],
			input.statusCode,
			body,
		) ?? (code ? CODE_GUIDANCE[code] : undefined);
	const headline = guidance?.message ?? statusHeadline(input);
	const hint = guidance?.hint ?? statusHint(input);

	return {
		message: scrub(`${headline} (HTTP ${input.statusCode}${code ? `, ${code}` : ''})`),
		description: scrub([`${input.operation}: ${hint}`, serverText].filter(Boolean).join(' ')),
		httpCode: String(input.statusCode),
		code,
	};
}

/**
 * The live backend rarely answers 404: an unknown offer is 400 "Loan offer not found", an unknown
 * loan application 400 "Loan application does not exist", an unknown or foreign contract 500
 * "Something went wrong".
 */
function unknownIdGuidance(notFound: string | undefined): ErrorGuidance[] {
	if (!notFound) return [];
	return [
		{
			statusCodes: [400],
			text: /\bnot found\b|\bdoes not exist\b/i,
			message: `Not found: ${notFound}`,
			hint: "check the ID, and that it exists in the credential's environment.",
		},
		{
			statusCodes: [500],
			text: /^something went wrong\.?$/i,
			message: `Lendasat had an internal error — ${notFound} may not exist`,
			hint:
				"Lendasat answers this way when an ID does not exist in the credential's environment or belongs to another " +
				'account. Check the ID; if it is right and this keeps happening, contact Lendasat support.',
		},
	];
}

function findGuidance(
	guidance: ErrorGuidance[],
	statusCode: number,
	body: ErrorBody,
): ErrorGuidance | undefined {
	const texts = [body.message, body.error, body.details].filter(
		(text): text is string => typeof text === 'string',
	);
	return guidance.find((entry) => {
		if (entry.statusCodes && !entry.statusCodes.includes(statusCode)) return false;
		if (!entry.codes && !entry.text) return true;
		const codeMatches = Boolean(entry.codes && body.code && entry.codes.includes(body.code));
		const textMatches = Boolean(entry.text && texts.some((text) => entry.text?.test(text)));
		return codeMatches || textMatches;
	});
}

function statusHeadline({ statusCode, notFound }: ApiErrorInput): string {
	if (statusCode === 400) return 'Lendasat rejected the request';
	if (statusCode === 401) return 'Lendasat rejected the API key';
	if (statusCode === 403) return 'The API key is not allowed to do this';
	if (statusCode === 404) return notFound ? `Not found: ${notFound}` : 'Not found';
	if (statusCode === 409) return 'The request conflicts with an earlier one';
	if (statusCode === 415 || statusCode === 422) return 'Lendasat could not process the request';
	if (statusCode === 429) return 'Lendasat is rate limiting this API key';
	if (statusCode === 451) return 'Lendasat refuses this request for legal reasons';
	if (statusCode === 502 || statusCode === 503 || statusCode === 504) {
		return 'Lendasat is temporarily unavailable';
	}
	if (statusCode >= 500) return 'Lendasat had an internal error';
	return `Lendasat answered with an unexpected status`;
}

function statusHint({ statusCode, requiredKeyType, notFound }: ApiErrorInput): string {
	if (statusCode === 400 || statusCode === 422 || statusCode === 415) {
		return 'check the parameters against what the server said.';
	}
	if (statusCode === 401) {
		const needs = requiredKeyType
			? `this operation needs a ${KEY_TYPE_NAMES[requiredKeyType]}. `
			: '';
		return (
			`${needs}Check the credential: the key itself, its Key Type, and that its Environment is the one ` +
			'the key was issued for (development keys do not work in production and the reverse).'
		);
	}
	if (statusCode === 404) {
		return notFound
			? `check the ID, and that it exists in the credential's environment.`
			: "check the credential's environment and base URL.";
	}
	if (statusCode === 429) {
		return 'too many requests for this API key. Raise Max Retries or Max Delay under Options, or send fewer items at once.';
	}
	if (statusCode === 502 || statusCode === 503 || statusCode === 504) {
		return 'the service or a proxy in front of it is overloaded or restarting. Try again in a moment.';
	}
	if (statusCode >= 500) {
		return 'the server failed while handling the request. If it keeps happening, contact Lendasat support.';
	}
	return 'the answer was not one the node expected.';
}

function describeServerAnswer(body: ErrorBody, statusCode: number): string {
	const parts = [body.error, body.message, body.details].filter(
		(part): part is string => typeof part === 'string' && part.trim() !== '',
	);
	if (parts.length) return `Server said: "${dedupe(parts).join(' — ')}".`;
	if (body.excerpt) return `Server answered: "${body.excerpt}".`;
	return `The server sent no explanation with status ${statusCode}.`;
}

/**
 * Each thing the server said once: a part whose words all recur in a longer part says nothing more
 * ("Contract not found" beside "Contract 7a3f… not found"), nor does a repeated one.
 */
function dedupe(parts: string[]): string[] {
	const words = (part: string) => part.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
	return parts.filter((part, index) => {
		const own = words(part);
		return !parts.some((other, otherIndex) => {
			if (otherIndex === index) return false;
			const theirs = new Set(words(other));
			const covered = own.every((word) => theirs.has(word));
			// Of two parts that say the same, the first one stays.
			return covered && (theirs.size > new Set(own).size || otherIndex < index);
		});
	});
}

/** Reads whatever came back into the known error fields, or a short excerpt when it is not JSON. */
export function readErrorBody(body: unknown): ErrorBody {
	if (body === undefined || body === null || body === '') return {};
	if (body instanceof Uint8Array) return readErrorBody(new TextDecoder().decode(body));
	if (typeof body === 'string') return readErrorText(body);
	if (typeof body === 'object' && !Array.isArray(body))
		return pickErrorFields(body as Record<string, unknown>);
	return { excerpt: excerptOf(JSON.stringify(body)) };
}

function readErrorText(text: string): ErrorBody {
	const trimmed = text.trim();
	if (trimmed === '') return {};
	if (trimmed.startsWith('{')) {
		try {
			const parsed: unknown = JSON.parse(trimmed);
			if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
				return pickErrorFields(parsed as Record<string, unknown>);
			}
		} catch {
			// Truncated or broken JSON: fall through to an excerpt of the raw text.
		}
	}
	return { excerpt: excerptOf(trimmed) };
}

function pickErrorFields(object: Record<string, unknown>): ErrorBody {
	const text = (value: unknown) => (typeof value === 'string' ? excerptOf(value) : undefined);
	const fields: ErrorBody = {
		error: text(object.error),
		code: typeof object.code === 'string' ? object.code.slice(0, 64) : undefined,
		details: text(object.details),
		message: text(object.message),
	};
	if (!fields.error && !fields.details && !fields.message && !fields.code) {
		return { excerpt: excerptOf(JSON.stringify(object)) };
	}
	return fields;
}

/** Plain text of a body for a message: tags dropped, white space folded, cut to a readable length. */
export function excerptOf(text: string): string {
	const plain = text
		.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
		.replace(/<[^>]+>/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	return plain.length > EXCERPT_LENGTH ? `${plain.slice(0, EXCERPT_LENGTH)}…` : plain;
}

/**
 * Removes every known secret, anything shaped like a Lendasat key, and the values of JSON fields that
 * hold a payment card's number or security code, from a text: a secret as it is, percent-encoded or
 * JSON-escaped character by character (hexadecimal in either case), or in base64.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
	const result = patternsOf(secrets).each.reduce(
		(redacted, pattern) => redacted.replace(pattern, '[redacted]'),
		text,
	);
	return KEY_SHAPES.reduce(
		(redacted, shape) => redacted.replace(shape, '[redacted]'),
		result,
	).replace(CARD_SECRET_FIELD_PATTERN, '$1"[redacted]"');
}

/** A secret worth looking for: shorter ones are no keys or passwords, and would match everywhere. */
const isFindable = (secret: unknown): secret is string =>
	typeof secret === 'string' && secret.length >= 4;

/** Whether a text holds one of these secrets in any of the forms `redactSecrets` removes. */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
	// Every escaped form (%XX, \u00XX, \/) has a % or a \ in it. Most answers have neither, and in
	// them a secret can stand only as it is or in base64, which a plain search finds: no pattern is
	// made (an Act as Borrower key, new for each item, would have one made and run only once, slowly).
	if (!text.includes('%') && !text.includes('\\')) {
		return plainFormsOf(secrets).some((form) => text.includes(form));
	}
	return patternsOf(secrets).any?.test(text) ?? false;
}

/**
 * The forms of a list's secrets a plain search looks for (each as it is and in base64), made once
 * per list and kept with it: an item checks its answers and parameters against one list.
 */
const plainFormsOfList = new WeakMap<readonly string[], { secrets: string[]; forms: string[] }>();

function plainFormsOf(secrets: readonly string[]): string[] {
	const kept = plainFormsOfList.get(secrets);
	if (kept && sameList(kept.secrets, secrets)) return kept.forms;
	const forms = secrets.filter(isFindable).flatMap((secret) => [secret, ...base64Forms(secret)]);
	plainFormsOfList.set(secrets, { secrets: [...secrets], forms });
	return forms;
}

/** Whether a list still holds what it held when something was made from it. */
function sameList(kept: readonly string[], secrets: readonly string[]): boolean {
	return kept.length === secrets.length && kept.every((secret, index) => secret === secrets[index]);
}

interface SecretPatterns {
	/** The list they were made from, as it was then. */
	secrets: string[];
	/** One global pattern per secret long enough to be a key, in the list's order (a secret containing another is removed whole when it comes first). */
	each: RegExp[];
	/** Any of them, in one pass over a text; without the global flag, so that testing keeps no state. */
	any?: RegExp;
}

/**
 * The patterns of a list of secrets, made once per list and kept with it: making them costs far
 * more than running them, and every answer is checked.
 */
const patternsOfList = new WeakMap<readonly string[], SecretPatterns>();

function patternsOf(secrets: readonly string[]): SecretPatterns {
	const kept = patternsOfList.get(secrets);
	// A list changed since its patterns were made gets new ones.
	if (kept && sameList(kept.secrets, secrets)) return kept;
	const sources = secrets.filter(isFindable).map((secret) => secretSource(secret));
	const made: SecretPatterns = {
		secrets: [...secrets],
		each: sources.map((source) => new RegExp(source, 'g')),
		any: sources.length
			? new RegExp(sources.map((source) => `(?:${source})`).join('|'))
			: undefined,
	};
	patternsOfList.set(secrets, made);
	return made;
}

/** Lendasat's key formats, scrubbed even when we were not told the value. */
const KEY_SHAPES = [
	API_KEY_PATTERN,
	// Partner master keys (the docs' example is las-BTC21) and the legacy borrower keys.
	/\blas-[A-Za-z0-9_-]{4,}/g,
	/\bldst-acc-[0-9a-fA-F-]{8,}/g,
];

/** A secret as it is, escaped character by character, or in base64, as the source of a pattern. */
function secretSource(secret: string): string {
	const characters = [...secret].map(characterForms).join('');
	const base64 = base64Forms(secret).map(escapeRegExp);
	return [characters, ...base64].join('|');
}

/** One character as a text may carry it: itself, %XX or \u00XX with hex digits in either case, \/ for /. */
function characterForms(character: string): string {
	const code = character.codePointAt(0) ?? 0;
	const forms = [escapeRegExp(character)];
	if (code < 0x80) {
		const hex = code.toString(16).padStart(2, '0');
		forms.push(`%${eitherCase(hex)}`, `\\\\u00${eitherCase(hex)}`);
	}
	if (character === '/') forms.push('\\\\/');
	return `(?:${forms.join('|')})`;
}

function eitherCase(hex: string): string {
	return [...hex]
		.map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
		.join('');
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The secret's UTF-8 bytes in base64, standard and URL-safe, with and without padding. */
function base64Forms(secret: string): string[] {
	const bytes = Buffer.from(secret, 'utf8');
	const standard = bytes.toString('base64');
	const forms = [standard, standard.replace(/=+$/, ''), bytes.toString('base64url')];
	return [...new Set(forms)].filter((form) => form.length >= 8);
}
