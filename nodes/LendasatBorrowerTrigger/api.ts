import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type IN8nHttpFullResponse,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import {
	borrowerRequestError,
	getWithCredential,
	rebuiltError,
	unreachableError,
} from '../LendasatBorrower/shared/credentialRequest';
import { baseUrlOf, CREDENTIAL_TYPE, KEY_TYPE_NAMES, keyTypeOf } from '../LendasatBorrower/shared/credentials';
import {
	parseRetryAfter,
	retryDelay,
	shouldRetry,
	summarizeAttempts,
	type Failure,
	type RetrySettings,
} from '../LendasatBorrower/shared/retry';
import { networkFailureOf } from '../LendasatBorrower/transport/exchange';
import { isRecord } from '../LendasatBorrower/shared/validation';

/**
 * A poll has a time budget and n8n polls again soon anyway, so a failing request is retried
 * only briefly; when that is not enough the poll fails and leaves its state untouched.
 */
const POLL_RETRY_SETTINGS: RetrySettings = {
	maxRetries: 2,
	initialDelayMs: 500,
	maxDelayMs: 5_000,
	retryOn: ['rateLimit', 'serverUnavailable', 'network'],
};

/** The page/limit envelope of GET /api/contracts and GET /api/notifications. */
export interface Page {
	data: IDataObject[];
	totalPages?: number;
}

/** One authenticated GET, retried briefly on 429, 502–504 and network errors. */
export async function getJson(
	context: IPollFunctions,
	label: string,
	path: string,
	qs: IDataObject = {},
): Promise<unknown> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const apiKey = String(credentials.apiKey ?? '');
	const baseUrl = baseUrlOf(credentials);
	requireBorrowerKey(context, label, keyTypeOf(credentials));
	const failures: Failure[] = [];

	for (;;) {
		let response: IN8nHttpFullResponse;
		try {
			response = await getWithCredential(context, `${baseUrl}${path}`, qs);
		} catch (error) {
			const failure = networkFailureOf(error);
			if (!failure) throw rebuiltError(context.getNode(), error, apiKey);
			failures.push(failure);
			if (!(await waitBeforeRetry(failures))) throw networkError(context, label, baseUrl, failures, apiKey);
			continue;
		}
		if (response.statusCode < 400) return response.body;
		failures.push({
			kind: 'http',
			statusCode: response.statusCode,
			retryAfterMs: parseRetryAfter(response.headers?.['retry-after'], Date.now()),
		});
		if (!(await waitBeforeRetry(failures))) throw httpError(context, label, response, failures, apiKey);
	}
}

/** GET of one page of a page/limit listing, checked to be the envelope the API documents. */
export async function getPage(
	context: IPollFunctions,
	label: string,
	path: string,
	qs: IDataObject,
): Promise<Page> {
	const body = await getJson(context, label, path, qs);
	const envelope = body as { data?: unknown; total_pages?: unknown } | null;
	if (!envelope || typeof envelope !== 'object' || !Array.isArray(envelope.data)) {
		throw unreadableAnswer(context, label, 'a page of the form {data: [...], page, limit, total, total_pages}');
	}
	return {
		data: envelope.data.filter(isRecord),
		totalPages: typeof envelope.total_pages === 'number' ? envelope.total_pages : undefined,
	};
}

/** GET of an unpaginated list (GET /api/offers). */
export async function getList(
	context: IPollFunctions,
	label: string,
	path: string,
	qs: IDataObject,
): Promise<IDataObject[]> {
	const body = await getJson(context, label, path, qs);
	if (!Array.isArray(body)) throw unreadableAnswer(context, label, 'a list');
	return body.filter(isRecord);
}

/** Waits before the next attempt and returns true, or returns false when the failure must not be retried. */
async function waitBeforeRetry(failures: Failure[]): Promise<boolean> {
	const last = failures[failures.length - 1];
	if (!shouldRetry(last, POLL_RETRY_SETTINGS, failures.length - 1, true)) return false;
	await sleep(
		retryDelay(failures.length, POLL_RETRY_SETTINGS, last.kind === 'http' ? last.retryAfterMs : undefined),
	);
	return true;
}

function requireBorrowerKey(context: IPollFunctions, label: string, held: 'borrower' | 'master'): void {
	if (held === 'borrower') return;
	throw new NodeOperationError(
		context.getNode(),
		`${label} needs a ${KEY_TYPE_NAMES.borrower}, but the credential holds a ${KEY_TYPE_NAMES[held]}`,
		{
			description:
				'The trigger watches a borrower\'s own contracts, offers and notifications: choose a credential whose Key Type is Borrower Key (for example the api_key returned by Account → Create).',
		},
	);
}

function httpError(
	context: IPollFunctions,
	label: string,
	response: IN8nHttpFullResponse,
	failures: Failure[],
	apiKey: string,
): NodeApiError {
	const attempts = failures.length > 1 ? ` Gave up after ${summarizeAttempts(failures)}.` : '';
	return borrowerRequestError(
		context.getNode(),
		label,
		response,
		apiKey,
		`${attempts} Nothing was emitted; the next poll tries again.`,
	);
}

function networkError(
	context: IPollFunctions,
	label: string,
	baseUrl: string,
	failures: Failure[],
	apiKey: string,
): NodeApiError {
	const attempts = failures.length > 1 ? [`Gave up after ${summarizeAttempts(failures)}.`] : [];
	return unreachableError(context.getNode(), { label, baseUrl, apiKey }, failures, [
		...attempts,
		'Nothing was emitted; the next poll tries again.',
	]);
}

function unreadableAnswer(context: IPollFunctions, label: string, expected: string): NodeApiError {
	return new NodeApiError(context.getNode(), { unexpectedAnswer: true } as JsonObject, {
		message: 'Lendasat sent an answer the trigger cannot read',
		description: `${label}: expected ${expected}. Check that the credential's base URL points at the Lendasat borrower API.`,
	});
}
