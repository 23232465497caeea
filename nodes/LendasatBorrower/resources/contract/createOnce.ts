import { createHash } from 'crypto';
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecutePaginationFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { parseJsonObject } from '../../validation/checks';
import { retryDelay, shouldRetry, summarizeAttempts, type Failure } from '../../transport/retry';
import { headerText } from '../../transport/answer';
import {
	answeredSuccess,
	CLOCK_ALLOWANCE_MS,
	mayHaveBeenProcessed,
	withNote,
} from '../../transport/exchange';
import {
	failureOf,
	nodeOf,
	oncePerRun,
	settle,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { CONTRACTS_PATH, contractPath } from './shared';
import {
	ContractIndex,
	LOOKUP_PAGE_SIZE,
	type LookupOutcome,
	type ReadContractPage,
} from './contractIndex';
import {
	cancelledDuplicates,
	duplicatesError,
	hasEnded,
	isCancellable,
	resolveDuplicates,
	type Uncancelled,
} from './duplicates';

/** How far back a re-run looks for the contract of a key the user chose: 30 days. */
export const USER_KEY_LOOKBACK_MS = 30 * 24 * 60 * 60_000;
/** How far back n8n's Retry On Fail looks for the contract of an automatic key: one hour. */
const RETRY_ON_FAIL_LOOKBACK_MS = 60 * 60_000;

/** What Contract → Create knows of one run of the node for one key, shared by the items sent with that key. */
interface CreateRun {
	index: ContractIndex;
	startedAt: number;
	/** Each client_contract_id being created in this run, with how it ended. */
	creating: Map<string, Promise<unknown>>;
	/** The items of this run looking up or sending their contract request; the checks after them wait until none is. */
	sending: InFlight;
}

/** The runs of this run of the node, one per key sent (items acting as different borrowers). */
const createRunsOf = oncePerRun((): Map<string, CreateRun> => new Map());

/**
 * This item's share of the run: the contract list of the key it is sent with. Items acting as
 * different borrowers (Act as Borrower) never see each other's contracts or walks, and a
 * client_contract_id repeated for two borrowers is two contracts.
 */
function createRunOf(context: IExecutePaginationFunctions, api: ApiClient): CreateRun {
	const runs = createRunsOf(context);
	let run = runs.get(api.keyIdentity);
	if (!run) {
		run = {
			index: new ContractIndex(api.clock),
			startedAt: api.clock.now(),
			creating: new Map(),
			sending: new InFlight(),
		};
		runs.set(api.keyIdentity, run);
	}
	return run;
}

/**
 * Counts work under way and tells when none is. The check after a create waits until no item of
 * the run is still looking up or sending its request (an item waiting for an earlier one with the
 * same key is not counted): the checks then ask at once and share one walk of the list. Waiting
 * costs nothing, since n8n hands on the node's items only when the last one is done.
 */
export class InFlight {
	private count = 0;
	private waiting: Array<() => void> = [];

	async around<T>(work: () => Promise<T>): Promise<T> {
		this.count++;
		try {
			return await work();
		} finally {
			if (--this.count === 0) {
				const waiting = this.waiting;
				this.waiting = [];
				for (const resolve of waiting) resolve();
			}
		}
	}

	async idle(): Promise<void> {
		if (this.count === 0) return;
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}
}

/** The namespace of the client_contract_ids this package derives, a UUID of its own. */
const CLIENT_ID_NAMESPACE = Uint8Array.from([
	0x6c, 0x65, 0x6e, 0x64, 0x61, 0x73, 0x51, 0x74, 0x8e, 0x38, 0x6e, 0x2d, 0x6f, 0x6e, 0x63, 0x65,
]);

/** The client_contract_id the node sends, derived from a key (automatic or the user's): a version 5 UUID. */
export function clientContractIdFor(key: string): string {
	const hex = createHash('sha1').update(CLIENT_ID_NAMESPACE).update(key, 'utf8').digest('hex');
	const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Contract → Create, exactly once. The live backend ignores Idempotency-Key, so after a failure
 * that may have come after the contract was stored (a 5xx, a reset or timed-out connection) the
 * node looks for a contract carrying this item's client_contract_id and returns it; it sends the
 * request again only when the lookup proves there is none, or, on a server without a contract
 * list, when the Idempotency-Key header lets the server recognise the repeat. A key that stays the
 * same across executions (the user's Idempotency Key or Client Contract ID), a repeated key within
 * the run, and n8n's Retry On Fail are looked up before the first attempt.
 *
 * Executions running at the same time with the same key may both look, find nothing and send. So
 * after creating with such a key (or after a failure that may have created one), the node looks
 * once more; when several contracts carry the key, it keeps the one every execution keeps and
 * cancels the others (see duplicates.ts).
 */
export async function createContractOnce(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const clientId = String((request.body as IDataObject).client_contract_id);
	const run = createRunOf(this, api);
	const earlier = run.creating.get(clientId);
	const readPage = contractListReader(api);
	const { clock } = api;
	const attempt = (async () => {
		if (earlier) await earlier.catch(() => undefined);
		const userKey = usesOwnKey(this);
		const since = clock.now();
		const outcome = await run.sending.around(async () => {
			const lookback = lookbackBeforeSending(
				this,
				userKey,
				earlier ? clock.now() - run.startedAt : undefined,
			);
			if (lookback !== undefined) {
				const existing = await run.index.find(
					clientId,
					{ freshAfter: clock.now(), coverFrom: clock.now() - lookback },
					readPage,
				);
				if (existing.kind === 'found') return { found: existing.contracts };
				if (existing.kind === 'inconclusive')
					throw cannotCheckFirst(this, clientId, existing.reason);
			}
			return await sendUntilCreated(this, api, request, clientId, run.index);
		});
		if ('found' in outcome) return await keepOne(this, api, clientId, outcome.found);
		if (!userKey && !outcome.afterAmbiguousFailure) return [{ json: outcome.created }];
		// Look once more when no item of the run is still looking or sending: one walk for all of them.
		await run.sending.idle();
		const check = await run.index.find(
			clientId,
			{ freshAfter: clock.now(), coverFrom: since - CLOCK_ALLOWANCE_MS },
			readPage,
		);
		// Without a list to read (or when it cannot be read now) the contract stands as created.
		if (check.kind !== 'found') return [{ json: outcome.created }];
		return await keepOne(this, api, clientId, check.contracts, outcome.created);
	})();
	run.creating.set(clientId, attempt);
	return await attempt;
}

/**
 * How far back to look before the first attempt, or undefined to send straight away. `runAgeMs`:
 * how long ago the run began, for a key repeated within it (the earlier item may have created the
 * contract meanwhile).
 */
function lookbackBeforeSending(
	context: IExecutePaginationFunctions,
	userKey: boolean,
	runAgeMs: number | undefined,
): number | undefined {
	if (userKey) return USER_KEY_LOOKBACK_MS;
	if (nodeOf(context).retryOnFail) return RETRY_ON_FAIL_LOOKBACK_MS;
	return runAgeMs === undefined ? undefined : runAgeMs + CLOCK_ALLOWANCE_MS;
}

/** Whether the item's key is the user's own (Idempotency Key or Client Contract ID), the same in every execution. */
function usesOwnKey(context: IExecutePaginationFunctions): boolean {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const fields = context.getNodeParameter('additionalFields', {}) as IDataObject;
	const userKey =
		options.idempotencyKey !== undefined && String(options.idempotencyKey).trim() !== '';
	const extra =
		fields.extraBodyFields === undefined ? undefined : parseJsonObject(fields.extraBodyFields);
	const userClientId =
		(fields.clientContractId !== undefined && String(fields.clientContractId).trim() !== '') ||
		(extra !== undefined && 'value' in extra && extra.value.client_contract_id !== undefined);
	return userKey || userClientId;
}

/**
 * The item's output from the contracts carrying its key: the one to keep, after the others were
 * cancelled, with `cancelled_duplicates` naming the ones known to be cancelled. `created`
 * is the contract this item's request created, as the server answered it: it is the output when it
 * is the one kept (the list may lag behind it).
 */
async function keepOne(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	clientId: string,
	found: IDataObject[],
	created?: IDataObject,
): Promise<INodeExecutionData[]> {
	const contracts =
		created && !found.some((contract) => contract.id === created.id) ? [...found, created] : found;
	const resolution = resolveDuplicates(contracts);
	if (!resolution) return [{ json: created ?? found[0] }];
	const { keep, cancel, stuck } = resolution;
	const uncancelled: Uncancelled[] = stuck.map((contract) => ({
		contract,
		reason: `it is ${String(contract.status)}`,
	}));
	// An execution whose own contract is an extra cancels that one; the others are cancelled by the
	// execution that keeps its own (or created none), so that N executions at once send about 2N
	// cancels, not N². A cancel that meets one already done counts as done.
	const ownExtra = created !== undefined && created.id !== keep.id;
	const mine = ownExtra ? cancel.filter((contract) => contract.id === created.id) : cancel;
	const now = new Map<string, IDataObject>();
	for (const contract of mine) {
		const outcome = await cancelDuplicate(api, contract);
		now.set(String(contract.id), outcome.contract);
		if ('reason' in outcome) uncancelled.push(outcome);
	}
	const latest = contracts.map((contract) => now.get(String(contract.id)) ?? contract);
	if (uncancelled.length) {
		throw duplicatesError(
			context.getNode(),
			context.getItemIndex(),
			clientId,
			latest,
			keep,
			uncancelled,
		);
	}
	const output = created && created.id === keep.id ? created : keep;
	const duplicates = cancelledDuplicates(keep, latest);
	return [{ json: duplicates.length ? { ...output, cancelled_duplicates: duplicates } : output }];
}

/**
 * Cancels an extra contract. A cancel that fails is followed by a read of the contract: another
 * execution may have cancelled it first (the backend then refuses: "Cannot cancel a contract
 * request with status Cancelled"), which counts as done.
 */
async function cancelDuplicate(
	api: ApiClient,
	contract: IDataObject,
): Promise<{ contract: IDataObject } | { contract: IDataObject; reason: string }> {
	const path = contractPath(String(contract.id));
	const cancelled = await settle(api.send({ method: 'DELETE', url: path }, 'empty'));
	if ('value' in cancelled) return { contract: { ...contract, status: 'Cancelled' } };
	const failed = `cancelling it failed (${(cancelled.error as Error)?.message ?? String(cancelled.error)})`;
	const read = await settle(api.send({ method: 'GET', url: path }, 'object'));
	if ('error' in read) return { contract, reason: `${failed}, and its status could not be read` };
	const latest = read.value as IDataObject;
	if (hasEnded(latest)) return { contract: latest };
	return {
		contract: latest,
		reason: isCancellable(latest) ? failed : `it is ${String(latest.status)}`,
	};
}

/** How Contract → Create's request ended: created by an answer, or found by a lookup after an ambiguous failure. */
type SendOutcome =
	| { created: IDataObject; afterAmbiguousFailure: boolean }
	| { found: IDataObject[] };

async function sendUntilCreated(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
	clientId: string,
	index: ContractIndex,
): Promise<SendOutcome> {
	const { settings, clock } = api;
	const idempotencyKey = headerText(request.headers, 'idempotency-key') || undefined;
	const failures: Failure[] = [];
	for (;;) {
		const sentAt = clock.now();
		const sent = await settle(api.send(request, 'object'));
		if ('value' in sent) {
			return { created: sent.value as IDataObject, afterAmbiguousFailure: failures.length > 0 };
		}
		if (answeredSuccess(sent.error)) {
			// The server said it was created, in an answer the node could not use: find it instead.
			const lookup = await index.find(
				clientId,
				{ freshAfter: clock.now(), coverFrom: sentAt - CLOCK_ALLOWANCE_MS },
				contractListReader(api),
			);
			if (lookup.kind === 'found') return { found: lookup.contracts };
			throw givingUp(
				sent.error,
				failures,
				`The server reported success, so the contract was probably created: look for client_contract_id ${clientId} (Contract → Get Many) before running this item again.`,
			);
		}
		const failure = failureOf(sent.error);
		if (!failure || !mayHaveBeenProcessed(sent.error)) throw sent.error;
		failures.push(failure);
		// Give a request the server may still be working on (a timeout, a proxy's 502/504) time to land
		// before looking, and send again right after a lookup that found nothing.
		const wait = retryDelay(
			failures.length,
			settings.retry,
			failure.kind === 'http' ? failure.retryAfterMs : undefined,
			clock.random,
		);
		await clock.sleep(
			failure.kind === 'network' || failure.statusCode !== 503
				? Math.max(wait, settings.lookupSettleMs)
				: wait,
		);
		const lookup = await index.find(
			clientId,
			{ freshAfter: clock.now(), coverFrom: sentAt - CLOCK_ALLOWANCE_MS },
			contractListReader(api),
		);
		if (lookup.kind === 'found') return { found: lookup.contracts };
		const next = afterLookup(lookup, clientId, idempotencyKey);
		if (!next.sendAgain || !shouldRetry(failure, settings.retry, failures.length - 1, true)) {
			throw givingUp(sent.error, failures, next.note);
		}
	}
}

/** Whether to send the request again after a lookup that found nothing, and what to tell the user if not. */
export function afterLookup(
	lookup: Exclude<LookupOutcome, { kind: 'found' }>,
	clientId: string,
	idempotencyKey: string | undefined,
): { sendAgain: boolean; note: string } {
	const reference = `client_contract_id ${clientId}`;
	const checkFirst = `Look for a contract with ${reference} (Contract → Get Many) before running this item again.`;
	switch (lookup.kind) {
		case 'absent':
			return { sendAgain: true, note: `No contract with ${reference} exists: it was not created.` };
		case 'unsupported':
			return idempotencyKey
				? {
						sendAgain: true,
						note: `This server lists no contracts to check; a repeat carried the same Idempotency-Key (${idempotencyKey}), which lets the server recognise it.`,
					}
				: {
						sendAgain: false,
						note: `It may have been created: this server lists no contracts to check, and without an Idempotency-Key the node does not send it again. ${checkFirst}`,
					};
		case 'inconclusive':
			return {
				sendAgain: false,
				note: `It may have been created: looking for it failed (${lookup.reason}), so the node did not send it again. ${checkFirst}`,
			};
	}
}

/** The last attempt's error, saying what every attempt got and what the lookup found. */
function givingUp(error: unknown, failures: Failure[], note: string): unknown {
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return error;
	if (failures.length > 1 && !/attempts made$/.test(error.message)) {
		error.message = `${error.message} — ${failures.length} attempts made`;
	}
	const attempts = failures.length > 1 ? `Gave up after ${summarizeAttempts(failures)}. ` : '';
	return withNote(error, `${attempts}${note}`);
}

function cannotCheckFirst(
	context: IExecutePaginationFunctions,
	clientId: string,
	reason: string,
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		'Could not check whether this contract was already created',
		{
			itemIndex: context.getItemIndex(),
			description: `Contract → Create: before creating a contract for a key used before, the node looks for a contract with client_contract_id ${clientId}, and that failed (${reason}). Nothing was sent; run the item again later.`,
		},
	);
}

/** Pages of GET /api/contracts, newest first, through the same transport as every other request. */
function contractListReader(api: ApiClient): ReadContractPage {
	return async (page) => {
		const qs = { page, limit: LOOKUP_PAGE_SIZE, sort_by: 'created_at', sort_order: 'desc' };
		const read = await settle(api.send({ method: 'GET', url: CONTRACTS_PATH, qs }, 'page'));
		if ('error' in read) {
			if (listsNoContracts(read.error)) return 'unsupported';
			throw read.error;
		}
		const envelope = read.value as IDataObject;
		return {
			records: envelope.data as IDataObject[],
			totalPages: typeof envelope.total_pages === 'number' ? envelope.total_pages : undefined,
		};
	};
}

/** The server has no contract list: 404 or 405, or a success that is not a page of contracts. */
function listsNoContracts(error: unknown): boolean {
	const failure = failureOf(error);
	if (failure)
		return failure.kind === 'http' && (failure.statusCode === 404 || failure.statusCode === 405);
	return answeredSuccess(error);
}
