/**
 * Disputes as the live backend keeps them (lendasat/iframe 49781f87 hub/src/db/contract_disputes.rs,
 * db/contracts.rs, migrations/20250422032706_disputes-2.0.up.sql): a dispute moves its contract into a
 * dispute status; resolving it puts back the status the contract had before (read from the contract's
 * status log, here its timeline). The handlers are in routes/disputes.ts; this file holds the store
 * and the admin helper that plays the lender.
 */
import { ApiError, shorten } from './errors';
import { jsonReply, type Route } from './router';
import { logStatus, nowIso, type SandboxState } from './state';
import type {
	Contract,
	ContractDispute,
	ContractDisputeMessage,
	ContractEntry,
	DisputeWithMessages,
} from './types';

export type Party = { type: 'Borrower' | 'Lender'; id: string };

/** Statuses that block a new dispute (dispute.rs:119-125): the dispute is still open. */
const OPEN_STATUSES = new Set(['DisputeStartedBorrower', 'DisputeStartedLender', 'InProgress']);

/** What a dispute makes of its contract's status (db/contracts.rs:1527-1547). */
const CONTRACT_STATUS_OF: Record<Party['type'], string> = {
	Borrower: 'DisputeBorrowerStarted',
	Lender: 'DisputeLenderStarted',
};
const CONTRACT_DISPUTE_STATUSES = new Set(Object.values(CONTRACT_STATUS_OF));

/** A contract's disputes, newest first (get_disputes_by_contract: ORDER BY created_at DESC). */
export function disputesOf(state: SandboxState, contractId: string): DisputeWithMessages[] {
	return [...state.disputes.values()]
		.filter((dispute) => dispute.contract_id === contractId)
		.reverse();
}

export function hasOpenDispute(state: SandboxState, contractId: string): boolean {
	return disputesOf(state, contractId).some((dispute) => OPEN_STATUSES.has(dispute.status));
}

/** The dispute without its messages, as create answers it (ContractDispute). */
export function withoutMessages(dispute: DisputeWithMessages): ContractDispute {
	const record: Partial<DisputeWithMessages> = { ...dispute };
	delete record.messages;
	return record as ContractDispute;
}

/**
 * start_dispute_borrower / start_dispute_lender (contract_disputes.rs:80-131): the dispute and the
 * contract's new status in one transaction. The contract's updated_at moves (mark_contract_state_as);
 * no notification is sent through the API's feed (the handler e-mails the borrower and the admins).
 */
export function openDispute(
	state: SandboxState,
	entry: ContractEntry,
	initiator: Party,
	reason: string,
): DisputeWithMessages {
	const at = nowIso(state);
	const dispute: DisputeWithMessages = {
		id: state.ids.uuid(),
		contract_id: entry.contract.id,
		initiator_type: initiator.type,
		initiator_id: initiator.id,
		status: initiator.type === 'Borrower' ? 'DisputeStartedBorrower' : 'DisputeStartedLender',
		reason,
		created_at: at,
		updated_at: at,
		resolved_at: null,
		resolution_notes: null,
		messages: [],
	};
	state.disputes.set(dispute.id, dispute);
	markContractStatus(entry.contract, CONTRACT_STATUS_OF[initiator.type], at);
	return dispute;
}

/** add_message (contract_disputes.rs:221-252): any dispute, open or closed, takes a message. */
export function addDisputeMessage(
	state: SandboxState,
	dispute: DisputeWithMessages,
	sender: Party,
	message: string,
): ContractDisputeMessage {
	const record: ContractDisputeMessage = {
		id: state.ids.uuid(),
		dispute_id: dispute.id,
		sender_type: sender.type,
		sender_id: sender.id,
		message,
		created_at: nowIso(state),
	};
	dispute.messages.push(record);
	return record;
}

/** Why the backend's resolve_dispute (db/contracts.rs:1972-2026) would fail, or null when it would not. */
export function resolveProblem(contract: Contract): string | null {
	if (!CONTRACT_DISPUTE_STATUSES.has(contract.status))
		return `Contract not in dispute state. ${contract.status}`;
	return statusBeforeDispute(contract) === undefined ? 'Nothing to roll back on' : null;
}

/**
 * resolve_borrower (contract_disputes.rs:358-387): the dispute becomes Closed (update_dispute sets the
 * status only: `resolved_at` stays null and `updated_at` unchanged), and the contract returns to the
 * status before the dispute with a new updated_at. Call after resolveProblem found none.
 */
export function closeDispute(
	state: SandboxState,
	dispute: DisputeWithMessages,
	entry: ContractEntry,
): void {
	const previous = statusBeforeDispute(entry.contract);
	if (previous === undefined) throw new Error(`contract ${entry.contract.id} is not in dispute`);
	dispute.status = 'Closed';
	markContractStatus(entry.contract, previous, nowIso(state));
}

/**
 * The status the contract had before its current dispute status: the log row `new_status = current`
 * (newest) gives `old_status`; the timeline stands in for contracts_status_log.
 */
function statusBeforeDispute(contract: Contract): string | undefined {
	const statuses = contract.timeline
		.map((entry) => entry.event)
		.flatMap((event) => (event.type === 'contract_status_change' ? [event.status] : []));
	const current = statuses.lastIndexOf(contract.status);
	return current > 0 ? statuses[current - 1] : undefined;
}

/**
 * mark_contract_state_as and resolve_dispute write the status and updated_at, and the status log
 * (a trigger, only when the status changes) gains a row. Unlike an admin status change, nothing else
 * about the contract changes: no escrow address, no notification.
 */
function markContractStatus(contract: Contract, status: string, at: string): void {
	if (contract.status !== status) logStatus(contract, status, at);
}

// ---------------------------------------------------------------------------------------------
// Admin: the lender's side

export interface DisputeAdmin {
	/**
	 * The lender opens a dispute on a contract (start_dispute_lender): status DisputeStartedLender, the
	 * contract DisputeLenderStarted. The borrower can add messages but not resolve it.
	 */
	startLenderDispute(contractId: string, reason?: string): DisputeWithMessages;
}

export function disputeAdmin(state: () => SandboxState): DisputeAdmin {
	return {
		startLenderDispute: (contractId, reason = 'The borrower did not repay on time') => {
			const entry = state().contracts.get(contractId);
			if (!entry) throw new ApiError(404, 'NOT_FOUND', `Contract ${shorten(contractId)} not found`);
			const lender: Party = { type: 'Lender', id: entry.contract.lender.id };
			return openDispute(state(), entry, lender, reason);
		},
	};
}

/** POST /__admin/contracts/{id}/lender-dispute `{reason?}` → the dispute. */
export function disputeAdminRoutes(admin: DisputeAdmin): Route[] {
	return [
		{
			method: 'POST',
			pattern: '/__admin/contracts/:id/lender-dispute',
			auth: 'none',
			body: 'json',
			handle: (ctx) => {
				const body = ctx.body as { reason?: unknown } | null;
				const reason = typeof body?.reason === 'string' ? body.reason : undefined;
				return jsonReply(admin.startLenderDispute(ctx.params.id, reason));
			},
		},
	];
}
