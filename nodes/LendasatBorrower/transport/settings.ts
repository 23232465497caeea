import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

import { readRetrySettings } from './retry';
import { describeValue, toNumber } from '../validation/checks';
import { invalidParameter, itemError } from '../validation/parameters';
import type { TransportSettings } from './exchange';

/** Well under a minute: a server that has not answered in 30 s is not going to. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 30_000;
/** A few minutes for one request across all its attempts, so that a storm of 429s ends. */
export const DEFAULT_TIME_BUDGET_MS = 180_000;
/**
 * Requests of one key in flight at once; more only queue up at a rate-limited server. 32: at 1 s of
 * latency twice the throughput of 16 with 34 sockets, no cost on loopback, and a first burst against
 * a rate limit of about 32 answers 429 (64 would be about 64). See bench/RESULTS.md, scenario 5.
 */
export const DEFAULT_MAX_CONCURRENT = 32;
/** Time for a write the server may still be processing to be stored before the node looks it up. */
export const LOOKUP_SETTLE_MS = 2_000;

/** Every number the Options collection takes, with its bounds; anything else is refused, not guessed. */
const NUMBER_OPTIONS: Record<string, { label: string; min: number; max: number }> = {
	maxRetries: { label: 'Max Retries', min: 0, max: 100 },
	initialDelay: { label: 'Initial Retry Delay (Ms)', min: 0, max: 600_000 },
	maxDelay: { label: 'Max Retry Delay (Ms)', min: 0, max: 3_600_000 },
	attemptTimeout: { label: 'Timeout per Attempt (Ms)', min: 1, max: 600_000 },
	timeBudget: { label: 'Time Budget per Request (Ms)', min: 1, max: 3_600_000 },
	maxConcurrent: { label: 'Max Parallel Requests', min: 1, max: 256 },
};

const RETRY_KINDS = ['network', 'rateLimit', 'serverUnavailable'];

/**
 * The transport settings of the Options collection, each checked: a bad value names its option and
 * the item. n8n's own Request Options → Timeout, when set, is the timeout of each attempt and wins
 * over Timeout per Attempt (see n8nRequestTimeout). `defaultAttemptMs` replaces the usual default of
 * Timeout per Attempt for an operation whose server waits on another.
 */
export function readTransportSettings(
	context: IExecuteSingleFunctions | undefined,
	options: IDataObject,
	n8nTimeoutMs?: number,
	defaultAttemptMs = DEFAULT_ATTEMPT_TIMEOUT_MS,
): TransportSettings {
	const refuse = (label: string, problem: string) => {
		if (context) throw invalidParameter(context, label, problem);
	};
	for (const [name, { label, min, max }] of Object.entries(NUMBER_OPTIONS)) {
		if (options[name] === undefined) continue;
		const value = toNumber(options[name]);
		if (!Number.isInteger(value) || value < min || value > max) {
			refuse(label, `expected a whole number from ${min} to ${max}, got ${describeValue(value)}.`);
		}
	}
	if (options.retryOn !== undefined) {
		const kinds = options.retryOn;
		if (!Array.isArray(kinds) || kinds.some((kind) => !RETRY_KINDS.includes(kind as string))) {
			refuse(
				'Retry On',
				`expected a list of ${RETRY_KINDS.join(', ')}, got ${describeValue(kinds)}.`,
			);
		}
	}
	const number = (name: string, fallback: number) =>
		options[name] === undefined ? fallback : toNumber(options[name]);
	return {
		retry: readRetrySettings(options),
		attemptTimeoutMs: n8nTimeoutMs ?? number('attemptTimeout', defaultAttemptMs),
		budgetMs: number('timeBudget', DEFAULT_TIME_BUDGET_MS),
		maxConcurrent: number('maxConcurrent', DEFAULT_MAX_CONCURRENT),
		lookupSettleMs: LOOKUP_SETTLE_MS,
	};
}

/**
 * n8n's Request Options → Timeout (every declarative node shows it), when the user set one: the
 * timeout of each attempt, the whole answer included. Unset, it is undefined (n8n itself would then
 * use 300 s) and the node's own Timeout per Attempt applies.
 */
export function n8nRequestTimeout(context: IExecuteSingleFunctions): number | undefined {
	let requestOptions: unknown;
	try {
		requestOptions = context.getNodeParameter('requestOptions', {});
	} catch {
		return undefined;
	}
	const timeout = (requestOptions as IDataObject | undefined)?.timeout;
	if (timeout === undefined || timeout === null || timeout === '') return undefined;
	const value = toNumber(timeout);
	if (!Number.isInteger(value) || value < 1 || value > NUMBER_OPTIONS.attemptTimeout.max) {
		throw itemError(
			context,
			'Invalid Timeout',
			`Request Options → Timeout: expected a whole number of milliseconds from 1 to ${NUMBER_OPTIONS.attemptTimeout.max}, got ${describeValue(timeout)}.`,
		);
	}
	return value;
}
