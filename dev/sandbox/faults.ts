/**
 * Fault injection: which request a rule hits (count-limited or probabilistic with a seeded PRNG) and
 * the answer each kind of fault gives.
 */
import { ApiError, SOMETHING_WENT_WRONG } from './errors';
import { createPrng } from './ids';
import { errorOutcome, type Outcome } from './outcome';
import type { Bad200Body, Dialect, FaultKind, FaultRule, RedirectStatus } from './types';

export const FAULT_KINDS: FaultKind[] = [
	'404',
	'500',
	'502-html',
	'503',
	'reset',
	'slow',
	'truncated-json',
	'empty-body',
	'redirect',
	'bad-200',
	'trickle',
	'hang',
	'cut-body',
	'429',
	'echo-key-error',
];
export const BAD_200_BODIES: Bad200Body[] = [
	'malformed-json',
	'empty',
	'html',
	'array',
	'error-body',
	'message-body',
	'echo-key',
];
const REDIRECT_STATUSES: RedirectStatus[] = [301, 302, 307, 308];
export const DEFAULT_SLOW_MS = 5000;
export const DEFAULT_TRICKLE_MS = 1000;
export const DEFAULT_REDIRECT_STATUS: RedirectStatus = 307;

/**
 * Kinds answered by the sandbox's streaming code in server.ts rather than by faultOutcome: they use
 * the real answer (the request is processed first) unless the rule gives a fixed `body`.
 */
export function streamsRealAnswer(rule: FaultRule): boolean {
	return (rule.kind === 'trickle' || rule.kind === 'cut-body') && rule.body === undefined;
}

interface ArmedRule {
	rule: FaultRule;
	/** Hits left; null for probabilistic rules (never used up). */
	remaining: number | null;
	/** Matching requests still to let through before the rule hits. */
	skip: number;
}

export function validateFaultRule(rule: FaultRule): string | null {
	if (!FAULT_KINDS.includes(rule.kind)) return `unknown fault kind ${String(rule.kind)}`;
	if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
		return 'probability must be between 0 and 1';
	}
	if (rule.times !== undefined && !(Number.isSafeInteger(rule.times) && rule.times >= 1)) {
		return 'times must be a positive integer';
	}
	if (rule.skip !== undefined && !(Number.isSafeInteger(rule.skip) && rule.skip >= 0)) {
		return 'skip must be a whole number from 0';
	}
	if (rule.delayMs !== undefined && !(Number.isFinite(rule.delayMs) && rule.delayMs >= 0)) {
		return 'delayMs must be a non-negative number';
	}
	return validateKindFields(rule);
}

function validateKindFields(rule: FaultRule): string | null {
	if (
		rule.status !== undefined &&
		(rule.kind !== 'redirect' || !REDIRECT_STATUSES.includes(rule.status))
	) {
		return `status is only for redirect rules and must be one of ${REDIRECT_STATUSES.join(', ')}`;
	}
	if (rule.kind === 'redirect' && (typeof rule.location !== 'string' || rule.location === '')) {
		return 'a redirect rule needs a location';
	}
	if (rule.location !== undefined && rule.kind !== 'redirect')
		return 'location is only for redirect rules';
	if (
		rule.body200 !== undefined &&
		(rule.kind !== 'bad-200' || !BAD_200_BODIES.includes(rule.body200))
	) {
		return `body200 is only for bad-200 rules and must be one of ${BAD_200_BODIES.join(', ')}`;
	}
	if (
		rule.errorStatus !== undefined &&
		(rule.kind !== 'echo-key-error' ||
			!Number.isInteger(rule.errorStatus) ||
			rule.errorStatus < 400 ||
			rule.errorStatus > 599)
	) {
		return 'errorStatus is only for echo-key-error rules and must be a whole number from 400 to 599';
	}
	if (
		rule.retryAfter !== undefined &&
		(rule.kind !== '429' || (rule.retryAfter !== null && typeof rule.retryAfter !== 'string'))
	) {
		return 'retryAfter is only for 429 rules and must be a string or null';
	}
	if (
		rule.body !== undefined &&
		((rule.kind !== 'trickle' && rule.kind !== 'cut-body') || typeof rule.body !== 'string')
	) {
		return 'body is only for trickle and cut-body rules and must be a string';
	}
	return null;
}

function pathMatches(rulePath: string | undefined, path: string): boolean {
	if (rulePath === undefined || rulePath === '' || rulePath === path) return true;
	const prefix = rulePath.endsWith('/') ? rulePath : `${rulePath}/`;
	return path.startsWith(prefix);
}

export class FaultInjector {
	private armed: ArmedRule[] = [];
	private random: () => number;

	constructor(private readonly seed: string) {
		this.random = createPrng(`${seed}:faults`);
	}

	/** Replaces the rules (used-up counters start again) and restarts the PRNG. */
	load(rules: FaultRule[]): void {
		this.armed = rules.map((rule) => ({
			rule,
			remaining: rule.probability === undefined ? (rule.times ?? 1) : null,
			skip: rule.skip ?? 0,
		}));
		this.random = createPrng(`${this.seed}:faults`);
	}

	/** The first live rule matching the request, consumed; null when none hits. */
	pick(method: string, path: string): FaultRule | null {
		for (const armed of this.armed) {
			const { rule } = armed;
			if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
			if (!pathMatches(rule.path, path)) continue;
			if (armed.skip > 0) {
				armed.skip -= 1;
				continue;
			}
			if (armed.remaining === null) {
				if (this.random() < (rule.probability ?? 0)) return rule;
				continue;
			}
			if (armed.remaining <= 0) continue;
			armed.remaining -= 1;
			return rule;
		}
		return null;
	}
}

const BAD_GATEWAY_PAGE =
	'<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n' +
	'<hr><center>sandbox-proxy</center>\r\n</body>\r\n</html>\r\n';

function internalError(dialect: Dialect): Outcome {
	return errorOutcome(
		dialect,
		new ApiError(
			500,
			'INTERNAL_ERROR',
			'The server failed to process the request (injected fault)',
			SOMETHING_WENT_WRONG,
		),
	);
}

/** What faultOutcome needs to know about the request. */
export interface FaultRequest {
	/** The request target as received: path and query string. */
	url: string;
	/** The x-api-key header ('' when absent). */
	apiKey: string;
}

const PLACEHOLDER_PAGE =
	'<!DOCTYPE html>\n<html><head><title>Welcome</title></head>\n<body><h1>It works!</h1><p>Sandbox placeholder page.</p></body></html>\n';

/** The Location of a redirect rule: an origin gets the request's path and query appended. */
export function redirectLocation(location: string, requestUrl: string): string {
	const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i;
	return origin.test(location) ? `${location.replace(/\/$/, '')}${requestUrl}` : location;
}

function bad200(variant: Bad200Body, request: FaultRequest): Outcome {
	const json = { 'content-type': 'application/json' };
	switch (variant) {
		case 'empty':
			return { status: 200, headers: json, body: '' };
		case 'html':
			return {
				status: 200,
				headers: { 'content-type': 'text/html; charset=utf-8' },
				body: PLACEHOLDER_PAGE,
			};
		case 'array':
			return { status: 200, headers: json, body: '[{"id":"a"},{"id":"b"}]' };
		case 'error-body':
			return {
				status: 200,
				headers: json,
				body: '{"error":"Internal","code":"INTERNAL","details":"x"}',
			};
		case 'message-body':
			// The live backend's error envelope, as a proxy or a bug might send it with a 200.
			return { status: 200, headers: json, body: '{"message":"Something went wrong"}' };
		case 'echo-key':
			return {
				status: 200,
				headers: json,
				body: JSON.stringify({
					id: 'echo',
					api_key: request.apiKey,
					message: `Request accepted for key ${request.apiKey}`,
				}),
			};
		default:
			return { status: 200, headers: json, body: '{"id": "abc' };
	}
}

/**
 * An error (the dialect's envelope) whose text carries the request's x-api-key as received, JSON-escaped
 * by the JSON around it, and URL-encoded: a careless server or proxy logging the key back.
 */
function echoKeyError(dialect: Dialect, status: number, request: FaultRequest): Outcome {
	const text = `Request refused for key ${request.apiKey} (key=${encodeURIComponent(request.apiKey)})`;
	return errorOutcome(dialect, new ApiError(status, 'ECHO_KEY', text, { message: text }));
}

function tooManyRequests(dialect: Dialect, retryAfter: string | null | undefined): Outcome {
	const error = new ApiError(
		429,
		'RATE_LIMITED',
		'Rate limit exceeded; retry later (injected fault)',
		{ message: 'Too Many Requests' },
	);
	const value = retryAfter === undefined ? '1' : retryAfter;
	return errorOutcome(dialect, error, value === null ? {} : { 'retry-after': value });
}

/**
 * The answer of a fault other than 'reset', 'slow', 'hang', 'trickle' and 'cut-body'. `real` is the
 * answer the request really got (for `after` rules): 'truncated-json' then cuts that body in half.
 */
export function faultOutcome(
	rule: FaultRule,
	dialect: Dialect,
	real: Outcome | null,
	request: FaultRequest,
): Outcome {
	switch (rule.kind) {
		case '404':
			// A server without this route (e.g. one with only the specification's endpoints).
			return errorOutcome(
				dialect,
				new ApiError(404, 'NOT_FOUND', 'No such endpoint (injected fault)', {
					status: 404,
					message: 'Not Found',
				}),
			);
		case '502-html':
			return {
				status: 502,
				headers: { 'content-type': 'text/html; charset=utf-8' },
				body: BAD_GATEWAY_PAGE,
			};
		case '503':
			return errorOutcome(
				dialect,
				new ApiError(
					503,
					'SERVICE_UNAVAILABLE',
					'The service is temporarily unavailable, retry later',
					{
						message: 'Service Unavailable',
					},
				),
				{ 'retry-after': '1' },
			);
		case 'truncated-json': {
			const whole = real && real.body !== '' ? real.body : internalError(dialect).body;
			return {
				status: 500,
				headers: { 'content-type': 'application/json' },
				body: whole.slice(0, Math.floor(whole.length / 2)),
			};
		}
		case 'empty-body':
			return { status: 500, headers: {}, body: '' };
		case 'redirect':
			return {
				status: rule.status ?? DEFAULT_REDIRECT_STATUS,
				headers: { location: redirectLocation(rule.location ?? '/', request.url) },
				body: '',
			};
		case 'bad-200':
			return bad200(rule.body200 ?? 'malformed-json', request);
		case '429':
			return tooManyRequests(dialect, rule.retryAfter);
		case 'echo-key-error':
			return echoKeyError(dialect, rule.errorStatus ?? 400, request);
		default:
			return internalError(dialect);
	}
}

/** The answer a 'trickle' or 'cut-body' rule sends: its fixed body, else the real answer. */
export function streamedOutcome(rule: FaultRule, real: Outcome | null): Outcome {
	if (rule.body !== undefined || real === null) {
		return {
			status: 200,
			headers: { 'content-type': 'application/json' },
			body: rule.body ?? '{}',
		};
	}
	return real;
}

/** A body a 'cut-body' rule can cut (at least 2 bytes): the answer's own, or a JSON stand-in for an empty one. */
export const CUT_BODY_STAND_IN = '{"message":"cut-body stand-in for an empty answer"}';
