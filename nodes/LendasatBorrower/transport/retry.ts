/** The kinds of failure a user can ask the node to retry. */
export type RetryableFailure = 'rateLimit' | 'serverUnavailable' | 'network';

export interface RetrySettings {
	/** Retries after the first attempt; 0 turns retrying off. */
	maxRetries: number;
	initialDelayMs: number;
	maxDelayMs: number;
	retryOn: RetryableFailure[];
}

/**
 * Chosen so that a burst of a thousand items against a rate-limited API completes without
 * the user touching anything: the shared pacing absorbs most 429s, the retries absorb the rest.
 */
export const DEFAULT_RETRY_SETTINGS: RetrySettings = {
	maxRetries: 8,
	initialDelayMs: 500,
	maxDelayMs: 30_000,
	retryOn: ['network', 'rateLimit', 'serverUnavailable'],
};

/** A failure as the retry loop sees it. */
export type Failure =
	| { kind: 'http'; statusCode: number; retryAfterMs?: number }
	| { kind: 'network'; code: string; requestReachedServer: boolean };

const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

/** Network errors where the request may or may not have reached the server. */
const TRANSIENT_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ETIMEDOUT',
	'ECONNABORTED',
	'EPIPE',
	'ESOCKETTIMEDOUT',
	'UND_ERR_SOCKET',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/** Network errors raised before any byte was sent: safe to retry even for a non-idempotent request. */
const NOT_SENT_NETWORK_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN']);

/** The host name did not resolve: nothing was sent, and trying again will not help. */
const UNRESOLVED_HOST_CODES = new Set(['ENOTFOUND']);

export function isRetryableNetworkCode(code: string): boolean {
	return TRANSIENT_NETWORK_CODES.has(code) || NOT_SENT_NETWORK_CODES.has(code);
}

export function networkFailure(code: string): Failure {
	const notSent = NOT_SENT_NETWORK_CODES.has(code) || UNRESOLVED_HOST_CODES.has(code);
	return { kind: 'network', code, requestReachedServer: !notSent };
}

/** Which retryable kind a failure is, or undefined when it must not be retried at all. */
export function retryableKind(failure: Failure): RetryableFailure | undefined {
	if (failure.kind === 'network')
		return isRetryableNetworkCode(failure.code) ? 'network' : undefined;
	if (failure.statusCode === 429) return 'rateLimit';
	if (UNAVAILABLE_STATUSES.has(failure.statusCode)) return 'serverUnavailable';
	return undefined;
}

/**
 * Whether to try again. A 429 means the request was not processed, and a refused connection
 * never reached the server, so both are safe for any request. Anything else may have been
 * processed already, so it is retried only when repeating the request cannot duplicate its effect.
 */
export function shouldRetry(
	failure: Failure,
	settings: RetrySettings,
	retriesDone: number,
	repeatable: boolean,
): boolean {
	const kind = retryableKind(failure);
	if (!kind || !settings.retryOn.includes(kind) || retriesDone >= settings.maxRetries) return false;
	if (kind === 'rateLimit') return true;
	if (failure.kind === 'network' && !failure.requestReachedServer) return true;
	return repeatable;
}

/**
 * Exponential backoff with "equal jitter": half the exponential step is kept, the other half is
 * random, so concurrent retries spread out but none retries immediately.
 */
export function backoffDelay(
	retryNumber: number,
	settings: RetrySettings,
	random = Math.random,
): number {
	const exponential = settings.initialDelayMs * 2 ** Math.max(0, retryNumber - 1);
	const capped = Math.min(settings.maxDelayMs, exponential);
	return Math.round(capped / 2 + (random() * capped) / 2);
}

/**
 * The wait before the next attempt: the backoff, or the server's Retry-After when it asks for longer,
 * capped by the maximum delay. A Retry-After of 0 or a date in the past is a minimum, never a
 * reason to try again at once.
 */
export function retryDelay(
	retryNumber: number,
	settings: RetrySettings,
	retryAfterMs: number | undefined,
	random = Math.random,
): number {
	const backoff = backoffDelay(retryNumber, settings, random);
	return Math.min(settings.maxDelayMs, Math.max(backoff, retryAfterMs ?? 0));
}

/**
 * Retry-After in both of its forms (RFC 9110): delay-seconds or an HTTP date.
 * Returns milliseconds from now, or undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: unknown, nowMs: number): number | undefined {
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const trimmed = String(text).trim();
	if (trimmed === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	// An HTTP date names its month; without this, Date.parse would read "-5" as a year.
	if (!/[A-Za-z]{3}/.test(trimmed)) return undefined;
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}

/** Settings from the node's Options collection, falling back to the defaults and clamped to sane bounds. */
export function readRetrySettings(options: {
	maxRetries?: unknown;
	initialDelay?: unknown;
	maxDelay?: unknown;
	retryOn?: unknown;
}): RetrySettings {
	const whole = (value: unknown, fallback: number, min: number, max: number) => {
		const number = typeof value === 'number' ? value : Number(value);
		if (value === undefined || value === '' || !Number.isFinite(number)) return fallback;
		return Math.min(max, Math.max(min, Math.round(number)));
	};
	const initialDelayMs = whole(
		options.initialDelay,
		DEFAULT_RETRY_SETTINGS.initialDelayMs,
		0,
		600_000,
	);
	return {
		maxRetries: whole(options.maxRetries, DEFAULT_RETRY_SETTINGS.maxRetries, 0, 100),
		initialDelayMs,
		maxDelayMs: Math.max(
			initialDelayMs,
			whole(options.maxDelay, DEFAULT_RETRY_SETTINGS.maxDelayMs, 0, 3_600_000),
		),
		retryOn: Array.isArray(options.retryOn)
			? options.retryOn.filter((kind): kind is RetryableFailure =>
					['rateLimit', 'serverUnavailable', 'network'].includes(kind as string),
				)
			: DEFAULT_RETRY_SETTINGS.retryOn,
	};
}

/** "connection reset (ECONNRESET)", "HTTP 503" */
export function describeFailure(failure: Failure): string {
	if (failure.kind === 'network') return `${networkFailureInWords(failure.code)} (${failure.code})`;
	return `HTTP ${failure.statusCode}`;
}

/**
 * The words alone, for an error message: n8n replaces any message that contains a network error
 * code with its own generic sentence, so the code itself goes in the description.
 */
export function networkFailureInWords(code: string): string {
	return NETWORK_CODE_WORDS[code] ?? 'network error';
}

const NETWORK_CODE_WORDS: Record<string, string> = {
	ECONNRESET: 'connection reset',
	ECONNREFUSED: 'connection refused',
	ETIMEDOUT: 'timed out',
	ECONNABORTED: 'timed out',
	ESOCKETTIMEDOUT: 'timed out',
	EPIPE: 'connection closed while sending',
	ENOTFOUND: 'host not found',
	EAI_AGAIN: 'DNS lookup failed',
};

/** "3 attempts: HTTP 503, HTTP 503, connection reset (ECONNRESET)" */
export function summarizeAttempts(failures: Failure[]): string {
	const attempts = failures.length === 1 ? '1 attempt' : `${failures.length} attempts`;
	return `${attempts}: ${failures.map(describeFailure).join(', ')}`;
}
