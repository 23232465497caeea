/**
 * Per-key fixed-window rate limiting. A rate of N ≥ 1 allows floor(N) requests per 1-second window;
 * a rate below 1 allows one request per ceil(1/N) seconds, counted from the request that opened the
 * window (not from the epoch, so a test's requests never straddle a window edge by chance).
 */
import type { RateLimitConfig } from './types';

interface Window {
	start: number;
	count: number;
}

export interface RateDecision {
	/** When the caller's window frees up (epoch ms). */
	retryAt: number;
}

function windowShape(config: RateLimitConfig): { length: number; allowance: number } {
	const rate = config.requestsPerSecond;
	if (rate >= 1) return { length: 1000, allowance: Math.floor(rate) };
	return { length: Math.ceil(1000 / rate), allowance: 1 };
}

export class RateLimiter {
	private readonly windows = new Map<string, Window>();

	/**
	 * Counts the request; a decision when it is over the limit, null when it may proceed. During a
	 * storm (`stormUntilMs`) nothing is counted and every request is over the limit, as if its window
	 * were already full.
	 */
	check(apiKey: string, config: RateLimitConfig, nowMs: number): RateDecision | null {
		const { length, allowance } = windowShape(config);
		if (config.stormUntilMs !== undefined && nowMs < config.stormUntilMs) {
			return { retryAt: Math.floor(nowMs / length) * length + length };
		}
		let window = this.windows.get(apiKey);
		const start =
			config.requestsPerSecond >= 1
				? Math.floor(nowMs / length) * length
				: window && nowMs < window.start + length
					? window.start
					: nowMs;
		if (!window || window.start !== start) {
			window = { start, count: 0 };
			this.windows.set(apiKey, window);
		}
		window.count += 1;
		return window.count > allowance ? { retryAt: start + length } : null;
	}

	clear(): void {
		this.windows.clear();
	}
}

/** The Retry-After header in the configured form, or null when it should be left out. */
export function retryAfterHeader(
	config: RateLimitConfig,
	decision: RateDecision,
	nowMs: number,
): string | null {
	const form = config.retryAfter ?? 'seconds';
	if (form === 'none') return null;
	if (form === 'http-date')
		return new Date(Math.ceil(decision.retryAt / 1000) * 1000).toUTCString();
	return String(Math.max(1, Math.ceil((decision.retryAt - nowMs) / 1000)));
}
