import { createHash } from 'crypto';
import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type DeclarativeRestApiSettings,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IExecuteSingleFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type IN8nHttpFullResponse,
	type INodeExecutionData,
	type IN8nRequestOperations,
	type INodePropertyRouting,
	type PostReceiveAction,
	type PreSendAction,
} from 'n8n-workflow';

import { baseUrlOf, CREDENTIAL_TYPE, KEY_TYPE_NAMES, keyTypeOf, type KeyType } from './credentials';
import { apiError, rebuiltError, unreachableError } from './credentialRequest';
import type { ErrorGuidance } from './errors';
import { rateGateFor } from './rateGate';
import {
	networkFailure,
	parseRetryAfter,
	readRetrySettings,
	retryDelay,
	shouldRetry,
	summarizeAttempts,
	type Failure,
} from './retry';

/** What every operation declares about itself; the transport and the error mapper read it. */
export interface OperationMeta {
	resource: string;
	operation: string;
	/** As a user reads it, e.g. "Contract → Create". */
	label: string;
	/** The key type the operation needs; 'any' when both work. */
	keyType: KeyType | 'any';
	/** What a 404 means: the parameter holding the ID and what it identifies. */
	notFound?: { parameter: string; label: string };
	/** What this operation's own failures mean (e.g. a status that does not allow it). */
	errors?: ErrorGuidance[];
}

type PaginationFunction = (
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
) => Promise<INodeExecutionData[]>;

interface RouteExtras {
	preSend?: PreSendAction[];
	postReceive?: PostReceiveAction[];
	/** For Get Many operations: walks the pages, each page sent through `sendWithRetries`. */
	pagination?: PaginationFunction;
}

const operations = new Map<string, OperationMeta>();

/**
 * An error a preSend found, held until the transport runs. Thrown from a preSend, n8n would turn it
 * into a failed item without `pairedItem`, which breaks the error output's item linking; the
 * transport returns it as a failed item of its own, with its pairedItem.
 */
const preSendErrors = new WeakMap<object, NodeOperationError | NodeApiError>();

/** The credential of one run of the node, read once: in n8n every read is a database query and a decryption. */
const credentialsOfRun = new WeakMap<object, Promise<ICredentialDataDecryptedObject>>();

/**
 * The node's credential. Read once per run, as n8n's RoutingNode itself does for the base URL,
 * which it resolves from the first item's credential for every item.
 */
export function credentialsOf(context: IExecuteSingleFunctions): Promise<ICredentialDataDecryptedObject> {
	const run: unknown = context.getExecuteData();
	if (!run || typeof run !== 'object') return context.getCredentials(CREDENTIAL_TYPE);
	let credentials = credentialsOfRun.get(run);
	if (!credentials) {
		credentials = context.getCredentials(CREDENTIAL_TYPE);
		credentialsOfRun.set(run, credentials);
	}
	return credentials;
}

/** Where an error thrown by the transport carries the failure behind it: on the error object itself. */
const FAILURE = Symbol('lendasat.failure');

/**
 * Another request of the same item, sent with the operation's credential and defaults: a GET that
 * checks something before the operation's own request, or a lookup after it failed.
 */
export function relatedRequest(
	requestData: DeclarativeRestApiSettings.ResultOptions,
	request: { url: string; qs?: IDataObject },
): DeclarativeRestApiSettings.ResultOptions {
	const headers = { ...requestData.options.headers };
	for (const name of Object.keys(headers)) if (name.toLowerCase() === 'idempotency-key') delete headers[name];
	return {
		...requestData,
		options: { ...requestData.options, method: 'GET', url: request.url, qs: request.qs ?? {}, body: undefined, headers },
	};
}

/** The value or the error of a call, for callers that decide what to do with an error outside a catch clause. */
export async function settle<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
	try {
		return { value: await promise };
	} catch (error) {
		return { error };
	}
}

/** The HTTP or network failure behind an error the transport threw, if it carries one. */
export function failureOf(error: unknown): Failure | undefined {
	return error && typeof error === 'object' ? (error as { [FAILURE]?: Failure })[FAILURE] : undefined;
}

function carryingFailure<T extends object>(error: T, failure: Failure): T {
	Object.defineProperty(error, FAILURE, { value: failure, enumerable: false, configurable: true });
	return error;
}

/**
 * The routing of one operation: its request, the key-type check, the error mapping and the
 * retrying transport. Every operation of the node is declared through this one function.
 */
export function apiRoute(
	meta: OperationMeta,
	request: { method: IHttpRequestMethods; url: string },
	extras: RouteExtras = {},
): INodePropertyRouting {
	operations.set(`${meta.resource}:${meta.operation}`, meta);
	const routing: INodePropertyRouting = {
		request,
		send: { paginate: true, preSend: [checkKeyType, ...(extras.preSend ?? [])].map(holdingErrors) },
		output: { postReceive: [throwOnErrorResponse, ...(extras.postReceive ?? [])] },
	};
	if (extras.pagination) {
		routing.operations = { pagination: extras.pagination } as IN8nRequestOperations;
	}
	return routing;
}

/** The node-level hook: every operation without pagination of its own sends through it. */
export const sendWithRetries: PaginationFunction = asRequestOperation(sendRequest);

/** Runs a preSend unless an earlier one already failed for this request, and holds its error. */
function holdingErrors(preSend: PreSendAction): PreSendAction {
	return async function (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) {
		if (preSendErrors.has(requestOptions)) return requestOptions;
		try {
			return await preSend.call(this, requestOptions);
		} catch (error) {
			preSendErrors.set(
				requestOptions,
				error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeOperationError(this.getNode(), error as Error, { itemIndex: this.getItemIndex() }),
			);
			return requestOptions;
		}
	};
}

/** The failed item when the node continues on fail; otherwise the error is thrown. */
function failedItem(context: IExecuteSingleFunctions, error: NodeOperationError | NodeApiError): INodeExecutionData[] {
	if (!context.continueOnFail()) throw error;
	return [{ json: { error: error.message }, error, pairedItem: { item: context.getItemIndex() } }];
}

export function operationMetaOf(context: IExecuteSingleFunctions): OperationMeta {
	const resource = context.getNodeParameter('resource', '') as string;
	const operation = context.getNodeParameter('operation', '') as string;
	const meta = operations.get(`${resource}:${operation}`);
	if (!meta) {
		throw new NodeOperationError(context.getNode(), `Unknown operation "${operation}" of "${resource}"`, {
			itemIndex: context.getItemIndex(),
		});
	}
	return meta;
}

/** Stops an operation before sending when the credential holds the wrong kind of key. */
async function checkKeyType(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const meta = operationMetaOf(this);
	if (meta.keyType === 'any') return requestOptions;
	const held = keyTypeOf(await credentialsOf(this));
	if (held !== meta.keyType) {
		throw new NodeOperationError(
			this.getNode(),
			`${meta.label} needs a ${KEY_TYPE_NAMES[meta.keyType]}, but the credential holds a ${KEY_TYPE_NAMES[held]}`,
			{
				itemIndex: this.getItemIndex(),
				description:
					meta.keyType === 'master'
						? 'Creating borrower accounts is a partner feature: choose a credential whose Key Type is Partner Master Key.'
						: 'Choose a credential whose Key Type is Borrower Key (for example the api_key returned by Account → Create).',
			},
		);
	}
	return requestOptions;
}

/**
 * The first postReceive of every operation: the node asks n8n to return every HTTP status
 * (`ignoreHttpStatusErrors`), and this turns the failed ones into our mapped error.
 */
async function throwOnErrorResponse(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	// Having a postReceive stops n8n from splitting a JSON array into items; do it as n8n would.
	if (response.statusCode < 400) {
		return Array.isArray(response.body) ? response.body.map((json) => ({ json })) : items;
	}
	const meta = operationMetaOf(this);
	const credentials = await credentialsOf(this);
	const error = apiError(
		this.getNode(),
		{
			operation: meta.label,
			statusCode: response.statusCode,
			headers: response.headers,
			body: response.body,
			requiredKeyType: meta.keyType === 'any' ? undefined : meta.keyType,
			notFound: meta.notFound ? describeNotFound(this, meta.notFound) : undefined,
			guidance: meta.errors,
			secrets: [String(credentials.apiKey ?? '')],
		},
		{ itemIndex: this.getItemIndex() },
	);
	throw carryingFailure(error, {
		kind: 'http',
		statusCode: response.statusCode,
		retryAfterMs: parseRetryAfter(response.headers?.['retry-after'], Date.now()),
	});
}

function describeNotFound(
	context: IExecuteSingleFunctions,
	notFound: { parameter: string; label: string },
): string {
	const id = context.getNodeParameter(notFound.parameter, '', { extractValue: true });
	return typeof id === 'string' || typeof id === 'number' ? `${notFound.label} ${id}` : notFound.label;
}

/**
 * Wraps how an operation sends its request(s) into n8n's `requestOperations.pagination` hook: every
 * item it returns is linked to its input item (n8n cannot infer that once the error output splits
 * items), and an input error a preSend held back, or the final error of sending, becomes a failed
 * item when the node continues on fail, and is thrown otherwise.
 */
export function asRequestOperation(send: PaginationFunction): PaginationFunction {
	return async function (this: IExecutePaginationFunctions, requestData) {
		const refused = preSendErrors.get(requestData.options);
		if (refused) return failedItem(this, refused);
		try {
			const items = await send.call(this, requestData);
			const pairedItem = { item: this.getItemIndex() };
			return items.map((item) => (item.pairedItem ? item : { ...item, pairedItem }));
		} catch (error) {
			return failedItem(this, error as NodeOperationError | NodeApiError);
		}
	};
}

/**
 * Sends one request through the key's shared rate gate, retrying what the Options allow. n8n calls
 * the node's pagination hook for every request of every operation, which makes it the one place
 * where a request can be repeated. Only reads are sent again after they may have reached the
 * server; an operation that can make a write safe to repeat (Contract → Create) does so itself,
 * reading the failure from the error this throws (`failureOf`) and saying itself what it did.
 */
export async function sendRequest(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	caller: { resolvesUnsafeRetries?: boolean } = {},
): Promise<INodeExecutionData[]> {
	const settings = readRetrySettings(this.getNodeParameter('options', {}) as IDataObject);
	const credentials = await credentialsOf(this);
	const apiKey = String(credentials.apiKey ?? '');
	const baseUrl = baseUrlOf(credentials);
	const gate = rateGateFor(gateIdentity(baseUrl, apiKey));
	const repeatable = isRepeatable(requestData.options);
	const failures: Failure[] = [];

	for (;;) {
		const ticket = await gate.acquire();
		try {
			const items = await this.makeRoutingRequest(requestData);
			gate.recordSuccess();
			return items;
		} catch (error) {
			const failure = failureOf(error) ?? networkFailureOf(error);
			if (!failure) throw rebuiltError(this.getNode(), error, apiKey, this.getItemIndex());
			failures.push(failure);
			const retriesDone = failures.length - 1;
			if (failure.kind === 'http' && failure.statusCode === 429) {
				// Everyone waits out the Retry-After (capped by Max Retry Delay), or a backoff without one.
				gate.recordRateLimited(ticket, retryDelay(failures.length, settings, failure.retryAfterMs));
			}
			if (!shouldRetry(failure, settings, retriesDone, repeatable)) {
				throw finalError(this, error, failures, {
					apiKey,
					baseUrl,
					stoppedAsUnsafe: !caller.resolvesUnsafeRetries && shouldRetry(failure, settings, retriesDone, true),
				});
			}
			// A 429 waits at the gate with everyone else; other failures back off on their own.
			if (!(failure.kind === 'http' && failure.statusCode === 429)) {
				await sleep(
					retryDelay(failures.length, settings, failure.kind === 'http' ? failure.retryAfterMs : undefined),
				);
			}
		}
	}
}

/**
 * A request may be sent again after it possibly reached the server only when repeating it cannot
 * duplicate its effect. An Idempotency-Key header alone does not make it so: the live backend
 * ignores it.
 */
function isRepeatable(options: DeclarativeRestApiSettings.HttpRequestOptions): boolean {
	const method = (options.method ?? 'GET').toUpperCase();
	return method === 'GET' || method === 'HEAD';
}

function gateIdentity(baseUrl: string, apiKey: string): string {
	return `${baseUrl} ${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}

/** The network error code behind an error thrown by n8n's HTTP helper, if it is one. */
export function networkFailureOf(error: unknown): Failure | undefined {
	const code = networkCodeOf(error);
	return code ? networkFailure(code) : undefined;
}

function networkCodeOf(error: unknown, depth = 0): string | undefined {
	if (!error || typeof error !== 'object' || depth > 4) return undefined;
	const candidate = error as { code?: unknown; cause?: unknown; message?: unknown; httpCode?: unknown };
	if (typeof candidate.code === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(candidate.code)) {
		return candidate.code;
	}
	if (typeof candidate.message === 'string' && /socket hang up/i.test(candidate.message)) {
		return 'ECONNRESET';
	}
	return networkCodeOf(candidate.cause, depth + 1);
}

/** The error the user sees once retrying is over: the mapped one, plus what the attempts were. */
function finalError(
	context: IExecuteSingleFunctions,
	error: unknown,
	failures: Failure[],
	target: { apiKey: string; baseUrl: string; stoppedAsUnsafe: boolean },
): NodeApiError {
	const last = failures[failures.length - 1];
	const notes = [
		failures.length > 1 ? `Gave up after ${summarizeAttempts(failures)}.` : '',
		target.stoppedAsUnsafe
			? 'Not retried: the request may already have been processed, and repeating it could duplicate it.'
			: '',
	].filter(Boolean);
	if (error instanceof NodeApiError && last.kind === 'http') {
		if (failures.length > 1) error.message = `${error.message} — ${failures.length} attempts made`;
		if (notes.length) error.description = [error.description, ...notes].filter(Boolean).join(' ');
		return carryingFailure(error, last);
	}
	return carryingFailure(
		unreachableError(
			context.getNode(),
			{ ...target, label: operationMetaOf(context).label, itemIndex: context.getItemIndex() },
			failures,
			notes,
		),
		last,
	);
}
