import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { creationOf } from './contractIndex';

/**
 * Several contracts carrying one client_contract_id: executions that ran at the same time with the
 * same key (a webhook delivered twice, one order handled by two workers) each looked, found nothing,
 * and sent. Every execution that sees them makes the same choice from the same facts, so they agree
 * without talking to each other: keep the earliest open one, cancel the others.
 */

/** Statuses of a contract that ended before it began: it holds no loan and is not counted. */
const ENDED = new Set(['cancelled', 'rejected', 'requestexpired', 'approvalexpired', 'expired']);
/** Statuses in which the borrower may still cancel (DELETE /api/contracts/{id}); `pending` is the specification's Requested. */
const CANCELLABLE = new Set(['requested', 'approved', 'pending']);

/** A status as compared here: RequestExpired, request_expired and REQUEST-EXPIRED are one. */
function statusKey(contract: IDataObject): string {
	return typeof contract.status === 'string'
		? contract.status.replace(/[_\-\s]/g, '').toLowerCase()
		: '';
}

export function hasEnded(contract: IDataObject): boolean {
	return ENDED.has(statusKey(contract));
}

export function isCancellable(contract: IDataObject): boolean {
	return CANCELLABLE.has(statusKey(contract));
}

/** What to do with the contracts of one client_contract_id. */
export interface Resolution {
	/** The contract every execution outputs. */
	keep: IDataObject;
	/** The other open contracts that can still be cancelled. */
	cancel: IDataObject[];
	/** The other open contracts that can no longer be cancelled (funded, or further). */
	stuck: IDataObject[];
}

/**
 * The one to keep is the earliest `created_at` among the contracts that have not ended, ties broken
 * by id; a contract without a readable `created_at` counts as the latest. Cancelling the others never
 * changes which one that is, so an execution that looks after another one cancelled makes the same
 * choice. When every contract has ended, nothing is cancelled and the newest is kept (what a lookup
 * of one key always returned). Contracts without an id cannot be told apart or cancelled: left out.
 */
export function resolveDuplicates(contracts: IDataObject[]): Resolution | undefined {
	const known = contracts.filter((contract) => typeof contract.id === 'string');
	const open = known.filter((contract) => !hasEnded(contract)).sort(byCreation);
	if (open.length === 0) {
		const newest = known.sort(byCreation).pop();
		return newest ? { keep: newest, cancel: [], stuck: [] } : undefined;
	}
	const [keep, ...others] = open;
	return {
		keep,
		cancel: others.filter(isCancellable),
		stuck: others.filter((contract) => !isCancellable(contract)),
	};
}

/**
 * The ids of the contracts created after the kept one that are now Cancelled, as far as these
 * records show: the duplicates of the kept one, whichever execution cancelled them.
 */
export function cancelledDuplicates(keep: IDataObject, contracts: IDataObject[]): string[] {
	return contracts
		.filter(
			(contract) =>
				typeof contract.id === 'string' &&
				contract.id !== keep.id &&
				statusKey(contract) === 'cancelled' &&
				byCreation(keep, contract) < 0,
		)
		.sort(byCreation)
		.map((contract) => String(contract.id));
}

/** A contract without a readable `created_at` counts as the latest. */
function creationOrLatest(contract: IDataObject): number {
	const time = creationOf(contract);
	return Number.isNaN(time) ? Infinity : time;
}

function byCreation(a: IDataObject, b: IDataObject): number {
	const difference = creationOrLatest(a) - creationOrLatest(b);
	if (difference !== 0 && !Number.isNaN(difference)) return difference;
	return String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0;
}

/** An extra contract the node could not cancel, and why. */
export interface Uncancelled {
	contract: IDataObject;
	/** e.g. "it is PrincipalGiven" or "cancelling it failed (HTTP 503 …)". */
	reason: string;
}

/**
 * The item's error when an extra contract stays open: every contract with the key and its status,
 * which one the node keeps, why the others are still open, and what the user can do.
 */
export function duplicatesError(
	node: INode,
	itemIndex: number,
	clientId: string,
	contracts: IDataObject[],
	keep: IDataObject,
	uncancelled: Uncancelled[],
): NodeOperationError {
	const listed = [...contracts]
		.sort(byCreation)
		.map((contract) => describe(contract, contract.id === keep.id ? 'the one the node keeps' : ''))
		.join('; ');
	const open = uncancelled
		.map(({ contract, reason }) => `${String(contract.id)}: ${reason}`)
		.join('; ');
	const ids = uncancelled.map(({ contract }) => String(contract.id)).join(', ');
	return new NodeOperationError(
		node,
		`More than one contract was created for this key, and ${uncancelled.length === 1 ? 'one' : uncancelled.length} cannot be cancelled [item ${itemIndex}]`,
		{
			itemIndex,
			description:
				`Contract → Create: executions that ran at the same time with the same key each created a contract with client_contract_id ${clientId}. ` +
				`The node keeps the earliest (${String(keep.id)}) and cancels the others while they are Requested or Approved, but not this time (${open}). ` +
				`Contracts with client_contract_id ${clientId}: ${listed}. ` +
				`Check them with Contract → Get. To be left with one loan, cancel the one you do not want while it is Requested or Approved (Contract → Cancel), or repay it; otherwise keep both. ` +
				`Until only one of them is open, running this item again fails the same way (${ids} ${uncancelled.length === 1 ? 'stays' : 'stay'} open).`,
		},
	);
}

/** "c1 (Requested, created 2026-11-23T12:00:00Z, <note>)" */
function describe(contract: IDataObject, note: string): string {
	const facts = [
		typeof contract.status === 'string' ? contract.status : 'status unknown',
		typeof contract.created_at === 'string' ? `created ${contract.created_at}` : '',
		note,
	];
	return `${String(contract.id)} (${facts.filter(Boolean).join(', ')})`;
}
