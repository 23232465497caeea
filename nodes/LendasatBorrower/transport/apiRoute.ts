import {
	NodeApiError,
	NodeOperationError,
	type DeclarativeRestApiSettings,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IExecuteSingleFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodePropertyRouting,
} from 'n8n-workflow';

import type { AnswerCheck, Expectation } from './answer';
import { ACT_AS_BORROWER_GUIDANCE, actingBorrowerKey, inputKeyGuidance } from './actAs';
import { Admission, type Place } from './admission';
import { Cancellation } from './cancellation';
import { cancellable, systemClock, type Clock } from './clock';
import { connectionOf, requireUsable, type Connection } from './connection';
import {
	aside,
	cancelledError,
	exchange,
	keyIdentity,
	type ApiRequest,
	type RequestPolicy,
	type Transport,
	type TransportSettings,
} from './exchange';
import { viaN8n } from './senders';
import { n8nRequestTimeout, readTransportSettings } from './settings';
import { CREDENTIAL_TYPE, type KeyType } from './credentials';
import { containsSecret, redactSecrets, type ErrorGuidance } from './errors';
import { Semaphore } from './semaphore';
import { invalidParameter } from '../validation/parameters';

export { failureOf, settle } from './exchange';

/** What every operation declares about itself; the transport and the error mapper read it. */
export interface OperationMeta {
	/** As a user reads it, e.g. "Contract → Create". */
	label: string;
	/**
	 * What an AI agent is told about the operation when the node is its tool: what it does, what it
	 * changes and what it returns (the action stays short, as the node's name on the canvas).
	 */
	toolDescription: string;
	/**
	 * For an operation that writes, whether its write may be sent again after a failure that may
	 * have reached the server (a 5xx, a reset or timed-out connection):
	 * - `once`: never; only a 429 or a refused connection, which prove it was not processed, are retried;
	 * - `afterLookup`: only after a read proves it was not processed (the operation looks itself).
	 */
	repeat?: RepeatRule;
	/** The key type the operation needs; 'any' when both work. */
	keyType: KeyType | 'any';
	/** The shape of a successful answer; anything else is an error, never an output item. */
	expects: Expectation;
	/** What else a successful answer must hold (e.g. a txid); without it the answer is an error. */
	answer?: AnswerCheck;
	/** What a 404 means: the parameter holding the ID and what it identifies. */
	notFound?: { parameter: string; label: string };
	/** What this operation's own failures mean (e.g. a status that does not allow it). */
	errors?: ErrorGuidance[];
	/**
	 * How long one attempt may take when Timeout per Attempt is not set, for routes that wait on
	 * another server before they answer (Arkade's); the usual default otherwise.
	 */
	attemptTimeoutMs?: number;
	/**
	 * For an operation that checks a borrower's key it is given (Account → Seal API Key): the
	 * parameter holding that key, plain or sealed, and its label. The key is sent instead of the
	 * credential's, as Act as Borrower's would be, and is as secret; the operation offers no Act as Borrower.
	 */
	sendsKeyOf?: { parameter: string; label: string };
	/**
	 * For an operation that can take its borrowers from its input: the key a borrower acts as
	 * instead of Act as Borrower, and the borrowers an item lists when one item carries many.
	 */
	inputBorrowers?: InputBorrowers;
}

/** Where an operation finds its borrowers in the input (see OperationMeta.inputBorrowers). */
export interface InputBorrowers {
	/** The key the borrower acts as and the field it was in, or undefined to read Act as Borrower as usual. */
	key: KeyFromInput;
	/**
	 * The borrowers the item lists, each an entry that the operation reads as it would read an input
	 * item of its own, or undefined when the item is one borrower.
	 */
	list: ListFromInput;
	/** The borrower's own reference, to name a borrower that failed; null when there is none, or it may hold a key. */
	reference(context: IExecuteSingleFunctions): string | null;
}

/** Reads the key an item acts as from the item itself; `options` is the Options collection. */
export type KeyFromInput = (
	context: IExecuteSingleFunctions,
	options: IDataObject,
) => { key: string; field: string } | undefined;

/** Reads the borrowers an item lists (see InputBorrowers.list). */
export type ListFromInput = (context: IExecuteSingleFunctions) => IDataObject[] | undefined;

/** How an operation's write is repeated after a failure that may have reached the server (see OperationMeta). */
export type RepeatRule = 'once' | 'afterLookup';

/** The request an operation sends, as its parameters built it. */
export type OperationRequest = IHttpRequestOptions;

/** Sends requests for one item of one operation through the transport; returns parsed bodies. */
export interface ApiClient {
	send(request: OperationRequest, expect: Expectation, policy?: RequestPolicy): Promise<unknown>;
	/**
	 * Who the requests act for: the base URL and a hash of the key sent (the credential's, or the
	 * one given in Act as Borrower). What an operation shares between items belongs to one of these.
	 */
	keyIdentity: string;
	/** The transport's settings (retries, the time a write is given to land before a lookup). */
	settings: TransportSettings;
	/**
	 * The transport's clock, for an operation that waits or judges times itself; its sleeps end when
	 * the run is cancelled, and the item steps aside from the run's items at work meanwhile.
	 */
	clock: Clock;
	/** Waits for `wait` (another item's work) with the item stepped aside from the run's items at work. */
	aside<T>(wait: Promise<T>): Promise<T>;
	/**
	 * Whether a text holds a secret of this item's requests (the key sent, the credential's key, its
	 * Key Sealing Secret, the base URL's password) in any form the transport redacts: for a parameter
	 * that must hold none.
	 */
	holdsSecret(text: string): boolean;
}

/** How an operation sends its request: once (the default), or paging, looking up, checking first. */
export type OperationSender = (
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
) => Promise<INodeExecutionData[]>;

/** Builds the request from the parameters; an error names the parameter and the item. */
export type Prepare = (
	this: IExecuteSingleFunctions,
	request: OperationRequest,
) => Promise<OperationRequest>;

/** Turns the operation's items into its output (Simplify, Limit, a confirmation). */
export type Finish = (
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
) => Promise<INodeExecutionData[]>;

interface RouteExtras {
	prepare?: Prepare[];
	send?: OperationSender;
	finish?: Finish[];
}

/**
 * A value computed once per run of the node and shared by its items, which all share the run's
 * execute data: the first item computes it, the others reuse it.
 */
export function oncePerRun<T>(
	compute: (context: IExecuteSingleFunctions) => T,
): (context: IExecuteSingleFunctions) => T {
	const values = new WeakMap<object, T>();
	return (context) => {
		const run: unknown = context.getExecuteData();
		if (!run || typeof run !== 'object') return compute(context);
		if (!values.has(run)) values.set(run, compute(context));
		return values.get(run) as T;
	};
}

/**
 * A reading of parameters that gives every item of a run the same value unless one of them is an
 * expression: made once per run when none of `names` holds an expression in the node as saved,
 * for each item otherwise. Only a reading that succeeds is kept: one that fails fails each item
 * with its own error, as before.
 */
export function perRunUnlessExpression<T>(
	names: readonly string[],
	read: (context: IExecuteSingleFunctions) => T,
): (context: IExecuteSingleFunctions) => T {
	const readings = oncePerRun((context): { constant: boolean; value?: { read: T } } => ({
		constant: !names.some((name) => holdsExpression(nodeOf(context).parameters[name])),
	}));
	return (context) => {
		const reading = readings(context);
		if (!reading.constant) return read(context);
		reading.value ??= { read: read(context) };
		return reading.value.read;
	};
}

/** Whether a parameter's saved value is, or holds anywhere inside it, an n8n expression ("=…"). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/**
 * Runs `work` for `key` once the work queued under the same key earlier in the run has settled;
 * the item steps aside from the run's items at work while it waits (`api`).
 */
export type InTurn = <T>(
	context: IExecuteSingleFunctions,
	api: Pick<ApiClient, 'aside'>,
	key: string,
	work: () => Promise<T>,
) => Promise<T>;

/**
 * Turns per run and key: items of one run that read, change and write the same thing (the same
 * settings, the same application) go one after the other, so none overwrites what the one before wrote.
 */
export function takingTurnsPerRun(): InTurn {
	const queues = oncePerRun((): Map<string, Promise<unknown>> => new Map());
	return async (context, api, key, work) => {
		const queue = queues(context);
		const before = queue.get(key);
		const turn = (async () => {
			if (before) await api.aside(before.catch(() => undefined));
			return await work();
		})();
		queue.set(key, turn);
		return await turn;
	};
}

/**
 * The node's credential, read once per run: in n8n every read is a database query and a
 * decryption, and n8n itself resolves the credential once per run for the whole node.
 */
export const credentialsOf: (
	context: IExecuteSingleFunctions,
) => Promise<ICredentialDataDecryptedObject> = oncePerRun((context) =>
	context.getCredentials(CREDENTIAL_TYPE),
);

/** The node, once per run: n8n's getNode makes a deep copy of it at every call. */
export const nodeOf = oncePerRun((context) => context.getNode());

/**
 * The requests of one run of the node on the wire at once, across every key its items act as: Max
 * Parallel Requests again. The rate gate caps each key on its own, so a partner's run over 500
 * borrowers, each with a key of its own, would otherwise open 500 connections at once.
 */
const slotsOfRun = oncePerRun((): Semaphore => new Semaphore());

/**
 * The items of one run at work at once (transport/admission.ts): an item waits for its place before
 * it builds its connection, its parameters and its requests, so that a run over thousands of
 * borrowers does not hold all of them while its requests go out Max Parallel Requests at a time.
 */
const admissionOfRun = oncePerRun(
	(context): Admission => new Admission(systemClock, cancellationOfRun(context)),
);

/** The run's cancellation, as every wait and attempt of its items hears it (transport/cancellation.ts). */
const cancellationOfRun = oncePerRun(
	(context): Cancellation => new Cancellation(context.getExecutionCancelSignal()),
);

/**
 * Items at work per slot of Max Parallel Requests: those on the wire, and enough more waiting for a
 * slot, their requests ready, that no slot stays free while an item is being built.
 */
const AT_WORK_PER_SLOT = 4;

/**
 * The routing of one operation. n8n builds the request from `request` and the parameters, then
 * hands it to the operation's pagination hook, which this makes the one place where the operation
 * runs: its checks, its request(s) through the transport, and its output. What the operation is
 * travels in this closure; nothing is registered anywhere.
 */
export function apiRoute(
	meta: OperationMeta,
	request: { method: IHttpRequestMethods; url: string },
	extras: RouteExtras = {},
): INodePropertyRouting {
	const routing = {
		request,
		send: { paginate: true },
		operations: { pagination: runOperation(meta, extras) },
	} as INodePropertyRouting;
	metaOfRouting.set(routing, meta);
	return routing;
}

const metaOfRouting = new WeakMap<object, OperationMeta>();

/** What an operation declared about itself, from its routing (for the node's description: which options it shows). */
export function operationMetaOf(routing: unknown): OperationMeta | undefined {
	return routing && typeof routing === 'object' ? metaOfRouting.get(routing) : undefined;
}

function runOperation(meta: OperationMeta, extras: RouteExtras) {
	return async function (
		this: IExecutePaginationFunctions,
		requestData: DeclarativeRestApiSettings.ResultOptions,
	): Promise<INodeExecutionData[]> {
		const pairedItem = { item: this.getItemIndex() };
		try {
			const entries = meta.inputBorrowers?.list(this);
			const items = entries
				? await workOnEntries(this, meta, extras, requestData, entries)
				: await workOn(this, meta, extras, requestData);
			return items.map((item) => ({ ...item, pairedItem }));
		} catch (error) {
			const nodeError = itemErrorOf(this, error, []);
			if (!this.continueOnFail()) throw nodeError;
			return [{ json: { error: nodeError.message }, error: nodeError, pairedItem }];
		}
	};
}

/**
 * The operation's work for one borrower (an item, or an entry of an item's list): its place among
 * the run's items at work (taken here unless `admitted` is the one taken for it), its checks, its
 * request(s) through the transport, and its output. The place is left when the work ends. A failure
 * is thrown as the item's error, redacted and with its stack read (itemErrorOf).
 */
async function workOn(
	context: IExecutePaginationFunctions,
	meta: OperationMeta,
	extras: RouteExtras,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	admitted?: Place,
): Promise<INodeExecutionData[]> {
	let secrets: string[] = [];
	let place = admitted;
	try {
		const options = optionsOf(context);
		const settings = transportSettingsOf(context, meta, options);
		place ??= await enterRun(context, meta, settings);
		const transport = await transportFor(context, meta, requestData.options, {
			options,
			settings,
			place,
		});
		secrets = transport.connection.secrets;
		let request: OperationRequest = {
			method: requestData.options.method ?? 'GET',
			url: String(requestData.options.url ?? ''),
			qs: { ...requestData.options.qs },
			body: requestData.options.body,
			headers: {},
		};
		for (const prepare of extras.prepare ?? []) request = await prepare.call(context, request);
		const api = clientOf(transport, meta);
		let items = extras.send
			? await extras.send.call(context, api, request)
			: toItems(await api.send(request, meta.expects, { check: meta.answer }));
		for (const finish of extras.finish ?? []) items = await finish.call(context, items);
		return items;
	} catch (error) {
		throw itemErrorOf(context, error, secrets);
	} finally {
		place?.leave();
	}
}

/**
 * The operation's work for each borrower an item lists, as many at a time as the run may have at
 * work, in the list's order: a borrower that fails gives an item with its error on the main output
 * and the others go on. Not n8n's error output: n8n would copy the input item, every borrower's key
 * in it, into each error item.
 */
async function workOnEntries(
	context: IExecutePaginationFunctions,
	meta: OperationMeta,
	extras: RouteExtras,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	entries: IDataObject[],
): Promise<INodeExecutionData[]> {
	const settings = transportSettingsOf(context, meta, optionsOf(context));
	const outputs: INodeExecutionData[][] = [];
	let next = 0;
	// A worker takes the next borrower only once it has a place: the others wait in the list, not
	// in the run's line, and their time budgets have not begun.
	const worker = async () => {
		while (next < entries.length) {
			const place = await enterRun(context, meta, settings);
			if (next >= entries.length) {
				place.leave();
				return;
			}
			const index = next++;
			const entry = entryContext(context, entries[index]);
			try {
				outputs[index] = await workOn(entry, meta, extras, requestData, place);
			} catch (error) {
				outputs[index] = [{ json: failedEntry(entry, meta, error, index) }];
			}
		}
	};
	const workers = Math.min(entries.length, AT_WORK_PER_SLOT * settings.maxConcurrent);
	await Promise.all(Array.from({ length: workers }, worker));
	return outputs.flat();
}

function transportSettingsOf(
	context: IExecuteSingleFunctions,
	meta: OperationMeta,
	options: IDataObject,
): TransportSettings {
	return readTransportSettings(context, options, requestTimeoutOf(context), meta.attemptTimeoutMs);
}

/** A place among the run's items at work (see admissionOfRun); a cancelled run gives none, and fails the item. */
async function enterRun(
	context: IExecuteSingleFunctions,
	meta: OperationMeta,
	settings: TransportSettings,
): Promise<Place> {
	const place = await admissionOfRun(context).enter(AT_WORK_PER_SLOT * settings.maxConcurrent);
	if (place) return place;
	throw cancelledError({
		node: nodeOf(context),
		label: meta.label,
		itemIndex: context.getItemIndex(),
	});
}

/** The item's context as one entry of its list sees it: its input item is the entry, the rest is the item's. */
function entryContext(
	context: IExecutePaginationFunctions,
	entry: IDataObject,
): IExecutePaginationFunctions {
	return Object.create(context, {
		getInputData: { value: () => ({ json: entry }) },
	}) as IExecutePaginationFunctions;
}

/**
 * The output of a listed borrower that failed: its reference (when it is one and holds no key), its
 * place in the list and the error, whose message and description are already redacted.
 */
function failedEntry(
	entry: IExecuteSingleFunctions,
	meta: OperationMeta,
	error: unknown,
	index: number,
): IDataObject {
	const nodeError = itemErrorOf(entry, error, []);
	return {
		borrower: meta.inputBorrowers?.reference(entry) ?? null,
		list_index: index,
		error: nodeError.message,
		...(typeof nodeError.description === 'string' ? { description: nodeError.description } : {}),
	};
}

/** The error as the item's n8n error: redacted of `secrets` and with its stack read. */
function itemErrorOf(
	context: IExecuteSingleFunctions,
	error: unknown,
	secrets: string[],
): NodeApiError | NodeOperationError {
	const nodeError =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(context.getNode(), error as Error, {
					itemIndex: context.getItemIndex(),
				});
	// A key pasted into another field must not come back in that field's validation error.
	redactError(nodeError, secrets);
	releaseStackFrames(nodeError);
	return nodeError;
}

function redactError(error: NodeApiError | NodeOperationError, secrets: string[]): void {
	error.message = redactSecrets(error.message, secrets);
	if (typeof error.description === 'string') {
		error.description = redactSecrets(error.description, secrets);
	}
}

/**
 * Formats the error's stack now. Until it is read, V8 keeps the frames it was made in, async ones
 * included, and with them the item's transport, requests and answers: about 50 KB per item that n8n
 * holds, with the error, until the run's last item ends (thousands of failing items, as when a run's
 * budget runs out, took a process out of memory). Read, it is text. After redactError: the stack's
 * first line is the message as it is when read.
 */
function releaseStackFrames(error: Error): void {
	let current: unknown = error;
	// A few causes deep at most: a chain of causes may loop.
	for (let depth = 0; depth < 5 && current instanceof Error; depth++, current = current.cause) {
		void current.stack;
	}
}

/**
 * The Options collection: read for each item only when it holds an expression, such as Act as
 * Borrower's {{ $json.api_key }}, for n8n evaluates every expression anew, which is costly.
 */
const optionsOf = perRunUnlessExpression(
	['options'],
	(context) => context.getNodeParameter('options', {}) as IDataObject,
);

/** n8n's Request Options → Timeout, likewise. */
const requestTimeoutOf = perRunUnlessExpression(['requestOptions'], n8nRequestTimeout);

/** The transport of one item: its credential checked, the operation's key type, the Options, n8n's client. */
async function transportFor(
	context: IExecutePaginationFunctions,
	meta: OperationMeta,
	requestOptions: DeclarativeRestApiSettings.HttpRequestOptions,
	item: { options: IDataObject; settings: TransportSettings; place: Place },
): Promise<Transport> {
	const itemIndex = context.getItemIndex();
	const node = nodeOf(context);
	const { options, settings, place } = item;
	const acted = keyActedAs(context, meta, options, node);
	const connection = await connectionFor(context, meta, { node, itemIndex, ...acted });
	return {
		connection,
		settings,
		send: viaN8n(context, {
			proxy: requestOptions.proxy,
			skipSslCertificateValidation: requestOptions.skipSslCertificateValidation === true,
		}),
		caller: {
			node,
			label: meta.label,
			itemIndex,
			requiredKeyType: meta.keyType === 'any' ? undefined : meta.keyType,
			notFound: meta.notFound ? describeNotFound(context, meta.notFound) : undefined,
			guidance: connection.actingAsBorrower
				? [...actingKeyGuidance(meta, acted.actAsField), ...(meta.errors ?? [])]
				: meta.errors,
		},
		clock: systemClock,
		slots: slotsOfRun(context),
		place,
		cancelled: cancellationOfRun(context),
	};
}

/**
 * The key an item sends instead of the credential's, and the field it was given in: the operation's
 * own key parameter, or Act as Borrower, which only an operation that needs a Borrower Key offers.
 */
function keyActedAs(
	context: IExecuteSingleFunctions,
	meta: OperationMeta,
	options: IDataObject,
	node: INode,
): { actAs?: string; actAsField?: string } {
	if (meta.sendsKeyOf) {
		const { parameter, label } = meta.sendsKeyOf;
		return { actAs: givenKey(context, parameter, label), actAsField: label };
	}
	if (meta.keyType !== 'borrower') return {};
	const fromInput = meta.inputBorrowers?.key(context, options);
	if (fromInput) return { actAs: fromInput.key, actAsField: fromInput.field };
	return { actAs: actingBorrowerKey(context, options, node) };
}

/** What a rejected key means when the key sent was a borrower's given to the item: where it came from. */
function actingKeyGuidance(meta: OperationMeta, field: string | undefined): ErrorGuidance[] {
	if (meta.sendsKeyOf) return [];
	return field === undefined ? ACT_AS_BORROWER_GUIDANCE : inputKeyGuidance(field);
}

/** A key parameter's value, trimmed: it must be text and not empty. The value is never shown. */
function givenKey(context: IExecuteSingleFunctions, parameter: string, label: string): string {
	const value = context.getNodeParameter(parameter, '');
	if (typeof value !== 'string') {
		throw invalidParameter(
			context,
			label,
			`Expected the API key as text, got ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}. Nothing was sent.`,
		);
	}
	if (value.trim() === '') {
		throw invalidParameter(
			context,
			label,
			"Must not be empty: give the borrower's API key, e.g. the expression {{ $json.api_key }}. Nothing was sent.",
		);
	}
	return value.trim();
}

/**
 * The connection of the credential's own key, per operation, kept for the run once it passed: every
 * item sends the same key to the same server, and the connection carries the secrets whose patterns
 * (made once per connection) check every answer. A key given in Act as Borrower gets a connection of
 * its own for each item (the credential's with that key): a run may act for thousands of borrowers.
 */
const credentialConnectionsOf = oncePerRun((): Map<OperationMeta, Connection> => new Map());

/**
 * The credential read as a connection (or what is wrong with it) once per run: every item has the
 * same credential, and a run acting for thousands of borrowers would otherwise parse it for each.
 */
const credentialConnectionOf = oncePerRun(async (context) => {
	const credentials = await credentialsOf(context);
	return { credentials, connection: connectionOf(credentials) };
});

async function connectionFor(
	context: IExecutePaginationFunctions,
	meta: OperationMeta,
	asker: { node: INode; itemIndex: number; actAs?: string; actAsField?: string },
): Promise<Connection> {
	const { credentials, connection: read } = await credentialConnectionOf(context);
	// Looked up after the wait: the items of a run all start before the first has its credential.
	const kept = asker.actAs === undefined ? credentialConnectionsOf(context) : undefined;
	const known = kept?.get(meta);
	if (known) return known;
	const connection = requireUsable(credentials, read, {
		...asker,
		label: meta.label,
		keyType: meta.keyType,
	});
	kept?.set(meta, connection);
	return connection;
}

function clientOf(transport: Transport, meta: OperationMeta): ApiClient {
	// An operation that looks up its own write after an ambiguous failure says what it found itself.
	const resolvesUnsafeRetries = meta.repeat === 'afterLookup';
	// The item's wait for its place counts against the budget of its first request only.
	let budgetFrom = transport.place?.waitedSince;
	const clock = cancellable(transport.clock, transport.cancelled);
	return {
		send: async (request, expect, policy) => {
			const from = budgetFrom;
			budgetFrom = undefined;
			return await exchange(transport, apiRequestOf(request), expect, {
				resolvesUnsafeRetries,
				budgetFrom: from,
				...policy,
			});
		},
		keyIdentity: keyIdentity(transport.connection),
		settings: transport.settings,
		clock: { ...clock, sleep: async (ms) => await aside(transport.place, clock.sleep(ms)) },
		aside: async (wait) => await aside(transport.place, wait),
		holdsSecret: (text) => containsSecret(text, transport.connection.secrets),
	};
}

function apiRequestOf(request: OperationRequest): ApiRequest {
	const method = request.method ?? 'GET';
	const body = request.body as IDataObject | undefined;
	// An empty object is a body only for a POST (the credential test's probe).
	const hasBody = body !== undefined && (Object.keys(body).length > 0 || method === 'POST');
	return {
		method,
		path: request.url,
		qs: request.qs,
		body: hasBody ? body : undefined,
		headers: request.headers as IDataObject | undefined,
	};
}

/** One output item per record of a parsed answer: a list splits, an object is one item, nothing is none. */
export function toItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((json) => ({ json: json as IDataObject }));
	if (body && typeof body === 'object') return [{ json: body as IDataObject }];
	return [];
}

/** "contract 7a3f…", or only "contract" where the operation has no such ID (e.g. Mark as Read of all). */
function describeNotFound(
	context: IExecuteSingleFunctions,
	notFound: { parameter: string; label: string },
): string {
	let id: unknown;
	try {
		id = context.getNodeParameter(notFound.parameter, '', { extractValue: true });
	} catch {
		return notFound.label;
	}
	return typeof id === 'string' || typeof id === 'number'
		? `${notFound.label} ${String(id).trim()}`.trim()
		: notFound.label;
}
