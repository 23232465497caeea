import { createHash } from 'crypto';
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IHttpRequestMethods,
	type INode,
	type JsonObject,
} from 'n8n-workflow';

import type { Place } from './admission';
import type { Cancellation } from './cancellation';
import { sleepUnlessCancelled, stopAt, type Clock } from './clock';
import type { KeyType } from './credentials';
import { mapApiError, redactSecrets, type ErrorGuidance } from './errors';
import { rateGateFor } from './rateGate';
import type { Release, Semaphore } from './semaphore';
import {
	describeFailure,
	networkFailure,
	networkFailureInWords,
	parseRetryAfter,
	retryDelay,
	shouldRetry,
	summarizeAttempts,
	type Failure,
	type RetrySettings,
} from './retry';
import { headerText, readAnswer, type Answer, type AnswerCheck, type Expectation } from './answer';
import { originOf, type Connection } from './connection';

/** A request of the borrower API, relative to the credential's base URL. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	/** e.g. /api/contracts/7a3f…/extend */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	headers?: IDataObject;
}

/** One attempt as the HTTP client sends it. */
export interface Attempt {
	method: IHttpRequestMethods;
	url: string;
	qs: IDataObject;
	headers: IDataObject;
	/** JSON text, or nothing. */
	body?: string;
	timeoutMs: number;
	/** Aborts the attempt, body included, when the attempt's time is up or the run is cancelled. */
	signal: AbortSignal;
	/** The credential's Allowed HTTP Request Domains, for n8n's client to enforce as well. */
	allowedDomains?: string;
}

/** Sends one attempt and returns the answer whatever its status; throws only when no answer came. */
export type SendOnce = (attempt: Attempt) => Promise<Answer>;

export interface TransportSettings {
	retry: RetrySettings;
	/** The most one attempt may take, the answer's body included. */
	attemptTimeoutMs: number;
	/** The most one request may take across all its attempts and waits. */
	budgetMs: number;
	/**
	 * Requests of one key in flight at once, across everything this n8n process runs (each queue-mode
	 * worker has its own); and a run's requests on the wire at once, across its keys (`Transport.slots`).
	 */
	maxConcurrent: number;
	/** Time for a write the server may still be processing to be stored before the node looks it up. */
	lookupSettleMs: number;
}

/** Who is asking: the operation as a user reads it and how to explain its failures. */
export interface Caller {
	node: INode;
	/** e.g. "Contract → Get". */
	label: string;
	itemIndex?: number;
	requiredKeyType?: KeyType;
	/** What a 404 means, e.g. "contract 7a3f…". */
	notFound?: string;
	guidance?: ErrorGuidance[];
}

/** Everything one exchange needs; the node, the trigger, the pickers and the credential test each build one. */
export interface Transport {
	send: SendOnce;
	connection: Connection;
	caller: Caller;
	settings: TransportSettings;
	/** What every wait, deadline and jitter of the exchange is taken from. */
	clock: Clock;
	/**
	 * The slots of the run's requests on the wire, across every key its items act as (Max Parallel
	 * Requests): an attempt holds one only while it is sent, never while it waits. None: only the
	 * key's rate gate caps them (the trigger, the pickers, the credential test).
	 */
	slots?: Semaphore;
	/**
	 * The item's place among the run's items at work (transport/admission.ts): given back while the
	 * exchange waits for the key's pace or backs off. None: nothing limits the items at work.
	 */
	place?: Place;
	/**
	 * The run's cancellation: every wait of the exchange ends, the attempt on the wire is aborted, and
	 * nothing more is sent.
	 */
	cancelled?: Cancellation;
}

export interface RequestPolicy {
	/**
	 * Whether the request may be sent again after it may have reached the server. Reads may;
	 * a write only where its operation makes repeating it safe.
	 */
	repeatable?: boolean;
	/** The caller handles a possibly processed write itself (looks it up) and says what it did. */
	resolvesUnsafeRetries?: boolean;
	/** What else a usable answer must hold; an answer without it is an error, never an item. */
	check?: AnswerCheck;
	/**
	 * When the request's time budget began, when before the call: an item's first request counts
	 * the item's wait for its place among the run's items at work (`Place.waitedSince`).
	 */
	budgetFrom?: number;
}

/** The most time left that leastAttemptMs asks for before a request starts. */
const MIN_ATTEMPT_MS = 1_000;

/**
 * The least time left in which a request is still started. A write is not started with too little
 * time left: its timeout would only make its fate unknown. Nor is a read with less than a tenth of
 * its budget (and less than MIN_ATTEMPT_MS): it would only load a server that is the bottleneck
 * already, as when thousands of a run's items waited for their places until their budgets were
 * nearly gone, each to send one read that times out at once.
 */
function leastAttemptMs(repeatable: boolean, settings: TransportSettings): number {
	const least = Math.min(MIN_ATTEMPT_MS, settings.attemptTimeoutMs);
	return repeatable ? Math.max(1, Math.min(least, settings.budgetMs / 10)) : least;
}

/** How far the server's clock may differ from n8n's when a lookup judges what was written since a request. */
export const CLOCK_ALLOWANCE_MS = 10 * 60_000;

/**
 * Whether a failed write may have been carried out all the same: a 5xx, a connection that broke
 * after the request went out, or a success answer the node refused (its shape, or it held the key).
 */
export function mayHaveBeenProcessed(error: unknown): boolean {
	const failure = failureOf(error);
	if (failure)
		return failure.kind === 'http' ? failure.statusCode >= 500 : failure.requestReachedServer;
	return answeredSuccess(error);
}

/** An answer with a success status that the transport refused (its shape, or it echoed the key). */
export function answeredSuccess(error: unknown): boolean {
	return (
		!failureOf(error) && error instanceof NodeApiError && /^2\d\d$/.test(String(error.httpCode))
	);
}

/** The value or the error of a call, for callers that decide what to do with an error outside a catch clause. */
export async function settle<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
	try {
		return { value: await promise };
	} catch (error) {
		return { error };
	}
}

/** The error with `note` added to its description (what the caller did or what to do next). */
export function withNote<T>(error: T, note: string): T {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.description = [error.description, note].filter(Boolean).join(' ');
	}
	return error;
}

const FAILURE = Symbol('lendasat.failure');

/** The HTTP or network failure behind an error the transport threw, if it carries one. */
export function failureOf(error: unknown): Failure | undefined {
	return error && typeof error === 'object'
		? (error as { [FAILURE]?: Failure })[FAILURE]
		: undefined;
}

function carrying<T extends object>(error: T, failure: Failure): T {
	Object.defineProperty(error, FAILURE, { value: failure, enumerable: false, configurable: true });
	return error;
}

/**
 * The one way a request reaches Lendasat. It paces the key's requests and caps their connections,
 * gives each attempt a deadline (body included), never follows a redirect (the key must not reach
 * another host), retries what may be retried within the time budget, checks that a successful
 * answer has the expected shape, and maps every failure to an error that names the operation and
 * shows no secret. Returns the parsed body.
 */
export async function exchange(
	transport: Transport,
	request: ApiRequest,
	expect: Expectation,
	policy: RequestPolicy = {},
): Promise<unknown> {
	const { connection, caller, settings, clock, cancelled } = transport;
	const gate = rateGateFor(keyIdentity(connection), clock);
	const repeatable = policy.repeatable ?? isRead(request.method);
	const attempt = attemptOf(connection, request, settings);
	const budgetEndsAt = (policy.budgetFrom ?? clock.now()) + settings.budgetMs;
	const leastTimeoutMs = leastAttemptMs(repeatable, settings);
	// The item waited for its place behind the run's other items until its budget was (nearly) gone.
	if (policy.budgetFrom !== undefined && budgetEndsAt - clock.now() < leastTimeoutMs)
		throw noSlot(transport);
	const failures: Failure[] = [];
	let lastAnswer: Answer | undefined;
	const outOfTime = (error: () => Error): Error =>
		failures.length
			? finalError(transport, lastAnswer, failures, { unsafe: false, outOfTime: true })
			: error();

	for (;;) {
		if (cancelled?.aborted) throw cancelledError(caller, failures);
		let waitedForKey = false;
		const ticket = await gate
			.acquire(settings.maxConcurrent, budgetEndsAt, cancelled, () => {
				waitedForKey = true;
				transport.place?.stepAside();
			})
			.finally(() => transport.place?.stepBack());
		if (cancelled?.aborted) {
			if (ticket) gate.release();
			throw cancelledError(caller, failures);
		}
		// The pace the server allows (after its 429s) would start this attempt only after the budget,
		// or with too little of it left; or, with no wait for the key, the run's other items had used
		// up the budget while this one waited for its place.
		if (!ticket || budgetEndsAt - clock.now() < leastTimeoutMs) {
			if (ticket) gate.release();
			throw outOfTime(() => (ticket && !waitedForKey ? noSlot(transport) : waitedOut(transport)));
		}
		const slot = await slotFor(transport, budgetEndsAt - leastTimeoutMs);
		const timeoutMs = Math.min(settings.attemptTimeoutMs, budgetEndsAt - clock.now());
		if (!slot || cancelled?.aborted || timeoutMs < leastTimeoutMs) {
			slot?.();
			gate.release();
			if (cancelled?.aborted) throw cancelledError(caller, failures);
			throw outOfTime(() => noSlot(transport));
		}
		const outcome = await attemptOnce(transport, { ...attempt, timeoutMs }).finally(() => {
			slot();
			gate.release();
		});
		if ('cancelled' in outcome) throw cancelledError(caller, failures, 'sending');
		if ('answer' in outcome) {
			const { answer } = outcome;
			if (answer.statusCode >= 300 && answer.statusCode < 400)
				throw redirectRefused(transport, answer);
			if (answer.statusCode < 300) {
				gate.recordSuccess();
				return readAnswer(answer, expect, {
					...caller,
					secrets: connection.secrets,
					check: policy.check,
				});
			}
			lastAnswer = answer;
		} else {
			lastAnswer = undefined;
		}
		const failure =
			'answer' in outcome ? httpFailureOf(outcome.answer, clock.now()) : outcome.failure;
		failures.push(failure);
		const rateLimited = failure.kind === 'http' && failure.statusCode === 429;
		const retryAfterMs = failure.kind === 'http' ? failure.retryAfterMs : undefined;
		// A 429 waits the server's Retry-After; only without one (or with 0) does this request's own
		// backoff stand in. The gate hears of it and paces the key's other requests accordingly.
		const wait =
			rateLimited && retryAfterMs
				? Math.min(settings.retry.maxDelayMs, retryAfterMs)
				: retryDelay(failures.length, settings.retry, retryAfterMs, clock.random);
		if (rateLimited) gate.recordRateLimited(ticket, wait);
		const retry = shouldRetry(failure, settings.retry, failures.length - 1, repeatable);
		if (!retry || wait >= budgetEndsAt - clock.now()) {
			const unsafe =
				!policy.resolvesUnsafeRetries &&
				!retry &&
				shouldRetry(failure, settings.retry, failures.length - 1, true);
			throw finalError(transport, lastAnswer, failures, { unsafe, outOfTime: retry });
		}
		await aside(transport.place, sleepUnlessCancelled(clock, wait, cancelled));
	}
}

/** Waits for `wait` with the item's place among the run's items at work given back meanwhile. */
export async function aside<T>(place: Place | undefined, wait: Promise<T>): Promise<T> {
	place?.stepAside();
	try {
		return await wait;
	} finally {
		place?.stepBack();
	}
}

/**
 * A slot of the run's requests on the wire, or undefined when none comes free before `until` or the
 * run is cancelled. Without slots of a run, a release that does nothing.
 */
async function slotFor(transport: Transport, until: number): Promise<Release | undefined> {
	const { slots, settings, clock, cancelled } = transport;
	if (!slots) return () => {};
	return await slots.take(settings.maxConcurrent, stopAt(clock, until, cancelled));
}

/**
 * One attempt within its deadline: the answer whatever its status, the failure when none came, or
 * `cancelled` when the run's cancellation aborted it.
 */
async function attemptOnce(
	transport: Transport,
	attempt: Omit<Attempt, 'signal'>,
): Promise<{ answer: Answer } | { failure: Failure } | { cancelled: true }> {
	const { signal, unwatch } = attemptSignal(transport, attempt.timeoutMs);
	try {
		return { answer: await transport.send({ ...attempt, signal }) };
	} catch (error) {
		if (transport.cancelled?.aborted) return { cancelled: true };
		return {
			failure: signal.aborted
				? networkFailure('ETIMEDOUT')
				: (networkFailureOf(error) ?? unexplained(transport, error)),
		};
	} finally {
		unwatch();
	}
}

/**
 * The signal that ends an attempt: its deadline's, and in a run that can be cancelled also the
 * cancellation's. A run that cannot (n8n gives a declarative node no cancel signal) costs no more
 * than the deadline's timer.
 */
function attemptSignal(
	transport: Transport,
	timeoutMs: number,
): { signal: AbortSignal; unwatch: () => void } {
	const { clock, cancelled } = transport;
	if (!cancelled?.canBeCancelled) return { signal: clock.timeout(timeoutMs), unwatch: () => {} };
	const controller = new AbortController();
	const unwatch = stopAt(clock, clock.now() + timeoutMs, cancelled)(() => controller.abort());
	return { signal: controller.signal, unwatch };
}

function httpFailureOf(answer: Answer, now: number): Failure {
	return {
		kind: 'http',
		statusCode: answer.statusCode,
		retryAfterMs: parseRetryAfter(headerText(answer.headers, 'retry-after'), now),
	};
}

/**
 * One attempt and its raw answer, whatever the status, for the credential test, which reads the
 * status itself: the same deadline and the same client, nothing followed, secrets already redacted.
 */
export async function probe(
	transport: Transport,
	request: ApiRequest,
): Promise<{ answer: Answer } | { failure: Failure }> {
	const { connection, settings } = transport;
	const outcome = await attemptOnce(transport, attemptOf(connection, request, settings)).catch(
		() => ({ failure: networkFailure('EUNKNOWN') }),
	);
	if ('answer' in outcome)
		return {
			answer: { ...outcome.answer, text: redactSecrets(outcome.answer.text, connection.secrets) },
		};
	// A credential test's transport has no run to be cancelled.
	return 'failure' in outcome ? outcome : { failure: networkFailure('EUNKNOWN') };
}

/** Every turn this request could have had lay beyond its time budget: the key is being held back. */
function waitedOut(transport: Transport): NodeOperationError {
	const { caller, settings } = transport;
	return new NodeOperationError(
		caller.node,
		'Lendasat is rate limiting this API key: no turn within the time budget',
		{
			itemIndex: caller.itemIndex,
			description: `${caller.label}: other requests of this key were answered 429, and the pace Lendasat allows would have sent this one only after its time budget of ${seconds(settings.budgetMs)}. Nothing was sent. Send fewer items at once, or raise Time Budget per Request under Options.`,
		},
	);
}

/** The run's other requests held every slot of Max Parallel Requests for as long as this one's time budget allowed. */
function noSlot(transport: Transport): NodeOperationError {
	const { caller, settings } = transport;
	return new NodeOperationError(
		caller.node,
		'Max Parallel Requests reached: no request slot came free within the time budget',
		{
			itemIndex: caller.itemIndex,
			description: `${caller.label}: the other requests of this run kept all ${settings.maxConcurrent} slots of Max Parallel Requests busy until this request's time budget of ${seconds(settings.budgetMs)} ran out. Nothing was sent. Send fewer items at once, or raise Max Parallel Requests or Time Budget per Request under Options.`,
		},
	);
}

/**
 * The run was cancelled while the request waited, or while it was `sending` (it was aborted then): it
 * gives up, and sends nothing more.
 */
export function cancelledError(
	caller: Caller,
	failures: Failure[] = [],
	when: 'waiting' | 'sending' = 'waiting',
): NodeOperationError {
	const before = failures.length ? ` It had made ${summarizeAttempts(failures)}.` : '';
	const what =
		when === 'sending'
			? 'while this request was being sent: it was aborted, so whether Lendasat received it is unknown, and nothing more was sent.'
			: 'while this request waited; nothing more was sent.';
	return new NodeOperationError(caller.node, 'The execution was cancelled', {
		itemIndex: caller.itemIndex,
		description: `${caller.label}: the execution was cancelled ${what}${before}`,
	});
}

function isRead(method: string): boolean {
	return method === 'GET' || method === 'HEAD';
}

function attemptOf(
	connection: Connection,
	request: ApiRequest,
	settings: TransportSettings,
): Omit<Attempt, 'signal'> {
	const headers: IDataObject = {
		Accept: 'application/json',
		...request.headers,
		'x-api-key': connection.apiKey,
	};
	if (request.body !== undefined) headers['Content-Type'] = 'application/json';
	return {
		method: request.method,
		url: `${connection.baseUrl}${request.path}`,
		qs: request.qs ?? {},
		headers,
		body: request.body === undefined ? undefined : JSON.stringify(request.body),
		timeoutMs: settings.attemptTimeoutMs,
		...(connection.allowedDomains ? { allowedDomains: connection.allowedDomains } : {}),
	};
}

/**
 * The key sent and the server it goes to, the key identified by a hash, never stored: one rate gate
 * per identity, and whatever an operation shares between items is shared only within one.
 */
export function keyIdentity(connection: Connection): string {
	let identity = identities.get(connection);
	if (identity === undefined) {
		identity = `${connection.baseUrl} ${createHash('sha256').update(connection.apiKey).digest('hex').slice(0, 16)}`;
		identities.set(connection, identity);
	}
	return identity;
}

/** Each connection's identity, hashed once: the items of a run share their connection (a connection is never changed). */
const identities = new WeakMap<Connection, string>();

/** The network error code behind an error of the HTTP client, as a failure, if it is one. */
function networkFailureOf(error: unknown): Failure | undefined {
	const code = networkCodeOf(error);
	return code ? networkFailure(code) : undefined;
}

function networkCodeOf(error: unknown, depth = 0): string | undefined {
	if (!error || typeof error !== 'object' || depth > 4) return undefined;
	const candidate = error as { code?: unknown; cause?: unknown; message?: unknown };
	if (
		typeof candidate.code === 'string' &&
		/^E[A-Z_]+$|^UND_ERR/.test(candidate.code) &&
		candidate.code !== 'ERR_CANCELED'
	) {
		return candidate.code === 'ERR_BAD_RESPONSE' || candidate.code === 'ERR_STREAM_PREMATURE_CLOSE'
			? 'ECONNRESET'
			: candidate.code;
	}
	if (
		typeof candidate.message === 'string' &&
		/socket hang up|aborted|premature close/i.test(candidate.message)
	) {
		return 'ECONNRESET';
	}
	return networkCodeOf(candidate.cause, depth + 1);
}

/** Anything else the client threw (the execution was cancelled, a bug): re-created from its words alone. */
function unexplained(transport: Transport, error: unknown): never {
	const { caller, connection } = transport;
	const { message } = error as { message?: unknown };
	throw new NodeOperationError(
		caller.node,
		redactSecrets(String(message ?? 'Unknown error'), connection.secrets),
		{
			itemIndex: caller.itemIndex,
			description: `${caller.label}: the request to ${connection.shownBaseUrl} did not complete.`,
		},
	);
}

function redirectRefused(transport: Transport, answer: Answer): NodeApiError {
	const { caller, connection } = transport;
	const location = headerText(answer.headers, 'location');
	const target = location ? originOf(location, connection.baseUrl) : 'an address it did not name';
	const sameHost = target === originOf(connection.baseUrl);
	return new NodeApiError(caller.node, { httpCode: String(answer.statusCode) } as JsonObject, {
		message: redactSecrets(
			`Lendasat answered with a redirect to ${target} (HTTP ${answer.statusCode})`,
			connection.secrets,
		),
		description: redactSecrets(
			`${caller.label}: the node follows no redirect, so that the API key is never sent anywhere but the credential's base URL (${connection.shownBaseUrl}). ` +
				(sameHost
					? 'The server moved this address: check the base URL for a missing or extra path.'
					: `Nothing was sent to ${target}. If that is where the API now lives, change the credential's base URL.`),
			connection.secrets,
		),
		httpCode: String(answer.statusCode),
		itemIndex: caller.itemIndex,
	});
}

/** "180 s", "1.5 s" */
function seconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
}

/** The error the user sees once retrying is over: what the last answer meant, and what every attempt got. */
function finalError(
	transport: Transport,
	answer: Answer | undefined,
	failures: Failure[],
	how: { unsafe: boolean; outOfTime: boolean },
): NodeApiError {
	const { caller, connection, settings } = transport;
	const last = failures[failures.length - 1];
	const notes = [
		failures.length > 1 ? `Gave up after ${summarizeAttempts(failures)}.` : '',
		how.outOfTime
			? `The time budget of ${seconds(settings.budgetMs)} for this request ran out.`
			: '',
		how.unsafe
			? 'Not retried: the request may already have been processed, and repeating it could duplicate it.'
			: '',
	].filter(Boolean);
	const scrub = (text: string) => redactSecrets(text, connection.secrets);
	if (answer && last.kind === 'http') {
		const mapped = mapApiError({
			operation: caller.label,
			statusCode: answer.statusCode,
			headers: answer.headers,
			body: redactSecrets(answer.text, connection.secrets),
			requiredKeyType: caller.requiredKeyType,
			notFound: caller.notFound,
			guidance: caller.guidance,
			secrets: connection.secrets,
		});
		const error = new NodeApiError(
			caller.node,
			{ httpCode: mapped.httpCode, code: mapped.code ?? null } as JsonObject,
			{
				message:
					failures.length > 1
						? `${mapped.message} — ${failures.length} attempts made`
						: mapped.message,
				description: scrub([mapped.description, ...notes].join(' ')),
				httpCode: mapped.httpCode,
				itemIndex: caller.itemIndex,
			},
		);
		return carrying(error, last);
	}
	// The message names the failure in words only: n8n replaces a message naming a network code with its own.
	const error = new NodeApiError(
		caller.node,
		{ networkError: last.kind === 'network' ? last.code : 'unknown' } as JsonObject,
		{
			message: `Could not get an answer from Lendasat: ${last.kind === 'network' ? networkFailureInWords(last.code) : describeFailure(last)}`,
			description: scrub(
				[
					`${caller.label}: the request to ${connection.shownBaseUrl} failed (${describeFailure(last)}).`,
					...notes,
					"Check the credential's environment or base URL, and that the host is reachable from n8n.",
				].join(' '),
			),
			itemIndex: caller.itemIndex,
		},
	);
	return carrying(error, last);
}
