import {
	backoffDelay,
	DEFAULT_RETRY_SETTINGS,
	networkFailure,
	parseRetryAfter,
	readRetrySettings,
	retryDelay,
	shouldRetry,
	summarizeAttempts,
	type Failure,
} from '../../nodes/LendasatBorrower/transport/retry';
import { optionsCollection } from '../../nodes/LendasatBorrower/descriptions/options';

const settings = DEFAULT_RETRY_SETTINGS;
const http = (statusCode: number): Failure => ({ kind: 'http', statusCode });

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-11-21T10:00:00Z');

	it('reads delay-seconds', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter(' 0 ', now)).toBe(0);
		expect(parseRetryAfter('1.5', now)).toBe(1500);
		expect(parseRetryAfter(['2'], now)).toBe(2000);
	});

	it('reads an HTTP date, relative to now and never negative', () => {
		expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('Sat, 21 Nov 2026 09:59:00 GMT', now)).toBe(0);
	});

	it('ignores what it cannot read', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('-5', now)).toBeUndefined();
	});
});

describe('backoffDelay', () => {
	it('doubles per retry with equal jitter, capped by the maximum delay', () => {
		expect(backoffDelay(1, settings, () => 0)).toBe(250);
		expect(backoffDelay(1, settings, () => 1)).toBe(500);
		expect(backoffDelay(3, settings, () => 0)).toBe(1000);
		expect(backoffDelay(3, settings, () => 1)).toBe(2000);
		expect(backoffDelay(20, settings, () => 1)).toBe(30_000);
		expect(backoffDelay(20, settings, () => 0)).toBe(15_000);
	});
});

describe('retryDelay', () => {
	it("honours the server's Retry-After, capped by the maximum delay", () => {
		expect(retryDelay(1, settings, 4000, () => 0)).toBe(4000);
		expect(retryDelay(1, settings, 120_000, () => 0)).toBe(30_000);
		expect(retryDelay(2, settings, undefined, () => 0)).toBe(500);
	});

	it('takes a Retry-After of 0 or a past date as a minimum: the backoff still applies', () => {
		expect(retryDelay(1, settings, 0, () => 0)).toBe(250);
		expect(retryDelay(3, settings, 0, () => 1)).toBe(2000);
		expect(retryDelay(3, settings, 100, () => 0)).toBe(1000);
	});
});

describe('shouldRetry', () => {
	it('retries 429 for any request, because the server did not process it', () => {
		expect(shouldRetry(http(429), settings, 0, false)).toBe(true);
	});

	it('retries 502/503/504 and resets only when repeating cannot duplicate', () => {
		for (const status of [502, 503, 504]) {
			expect(shouldRetry(http(status), settings, 0, true)).toBe(true);
			expect(shouldRetry(http(status), settings, 0, false)).toBe(false);
		}
		expect(shouldRetry(networkFailure('ECONNRESET'), settings, 0, true)).toBe(true);
		expect(shouldRetry(networkFailure('ECONNRESET'), settings, 0, false)).toBe(false);
	});

	it('retries a refused connection even for a create: nothing reached the server', () => {
		expect(shouldRetry(networkFailure('ECONNREFUSED'), settings, 0, false)).toBe(true);
	});

	it('never retries client errors, 500, or unknown network errors', () => {
		for (const status of [400, 401, 404, 422, 500])
			expect(shouldRetry(http(status), settings, 0, true)).toBe(false);
		expect(shouldRetry(networkFailure('ENOTFOUND'), settings, 0, true)).toBe(false);
	});

	it('stops after the maximum number of retries', () => {
		expect(shouldRetry(http(429), settings, settings.maxRetries - 1, true)).toBe(true);
		expect(shouldRetry(http(429), settings, settings.maxRetries, true)).toBe(false);
	});

	it('retries only the kinds the user chose', () => {
		const onlyNetwork = { ...settings, retryOn: ['network' as const] };
		expect(shouldRetry(http(429), onlyNetwork, 0, true)).toBe(false);
		expect(shouldRetry(networkFailure('ETIMEDOUT'), onlyNetwork, 0, true)).toBe(true);
	});
});

describe('readRetrySettings', () => {
	it('falls back to the defaults, which are the Options collection defaults', () => {
		expect(readRetrySettings({})).toEqual(DEFAULT_RETRY_SETTINGS);
		const defaults = Object.fromEntries(
			(optionsCollection.options as Array<{ name: string; default: unknown }>).map((option) => [
				option.name,
				option.default,
			]),
		);
		expect(readRetrySettings(defaults)).toEqual(DEFAULT_RETRY_SETTINGS);
	});

	it('clamps values and keeps the maximum delay at least the initial delay', () => {
		expect(
			readRetrySettings({
				maxRetries: -3,
				initialDelay: 2000,
				maxDelay: 10,
				retryOn: ['rateLimit', 'bogus'],
			}),
		).toEqual({
			maxRetries: 0,
			initialDelayMs: 2000,
			maxDelayMs: 2000,
			retryOn: ['rateLimit'],
		});
	});
});

describe('summarizeAttempts', () => {
	it('lists every attempt and why it failed', () => {
		expect(summarizeAttempts([http(503), http(503), networkFailure('ECONNRESET')])).toBe(
			'3 attempts: HTTP 503, HTTP 503, connection reset (ECONNRESET)',
		);
	});
});

describe('networkFailure: whether the request may have reached the server', () => {
	it.each([
		['ECONNREFUSED', false],
		['EAI_AGAIN', false],
		['ENOTFOUND', false],
		['ECONNRESET', true],
		['ETIMEDOUT', true],
	])('%s → reached the server: %s', (code, reached) => {
		expect(networkFailure(code)).toMatchObject({ requestReachedServer: reached });
	});
});
