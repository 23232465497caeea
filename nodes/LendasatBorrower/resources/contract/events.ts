import type { IDataObject } from 'n8n-workflow';

import { MARGIN_CALL_STATUSES, TERMINAL_STATUSES } from '../../trigger/contractStatuses';
import { previousStatusInTimeline } from '../../trigger/contracts';
import {
	bySoonestDue,
	DAY_MS,
	INSTALLMENT_DUE_EVENT,
	readInstallments,
	windowEnd,
	type OpenInstallment,
	type UnreadableInstallment,
} from '../../trigger/installments';
import { timestampOf } from '../../trigger/walk';

/** The events Contract → Get Events gives, named as the trigger names them. */
export const EVENT_NAMES = ['contractStatusChanged', 'installmentDue', 'marginCall'] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * A contract in a final status (Closed, Cancelled, …) is reported for this long after its last
 * change, then left out: a poll every few minutes sees every ending, and leaving old contracts out
 * keeps the first run short and Remove Duplicates' history (which fails the run once it is full)
 * from filling with contracts that can no longer change.
 */
export const FINISHED_SHOWN_MS = 30 * DAY_MS;

export interface EventSettings {
	events: readonly EventName[];
	/** Status events only for contracts in these statuses; empty for all. */
	statuses: readonly string[];
	daysAhead: number;
	now: number;
	/** The partner's reference for the borrower, copied into every event. */
	borrower: string | null;
	/** The contract record as a status or margin-call event shows it (Simplify or the full record). */
	shape: (contract: IDataObject) => IDataObject;
}

/**
 * Every event a borrower's contracts stand at now, each with an `event_key` that names it and
 * nothing else: the same key at every poll while nothing changed, a new one for each change. Remove
 * Duplicates ("Remove Items Processed in Previous Executions" on the key) then lets each through
 * once, across executions and queue-mode workers, with no state of ours.
 * - Contract status: each contract's current status, keyed by the contract, the status and when the
 *   contract entered it (its timeline), so that returning to an earlier status is news again.
 * - Margin call: a PrincipalGiven contract (the only status Lendasat's liquidation engine checks) in
 *   First or Second Margin Call, keyed by its updated_at as well: a margin call after the contract
 *   was Healthy again is news. A liquidation once per contract, whatever its status since.
 * - Installment due: as the trigger's Installment Due, an open installment due within Days Ahead,
 *   keyed by its due date, and once more when it is late.
 * Open installments that cannot be placed (no id, a due date without offset) are returned apart.
 */
export function currentEvents(
	contracts: IDataObject[],
	settings: EventSettings,
): { items: IDataObject[]; unreadable: UnreadableInstallment[] } {
	const items: IDataObject[] = [];
	const unreadable: UnreadableInstallment[] = [];
	const wanted = new Set<string>(settings.events);
	for (const contract of contracts) {
		if (finishedLongAgo(contract, settings.now)) continue;
		if (wanted.has('contractStatusChanged')) items.push(...statusEvent(contract, settings));
		if (wanted.has('marginCall')) items.push(...marginCallEvent(contract, settings));
		if (wanted.has(INSTALLMENT_DUE_EVENT)) {
			const read = readInstallments(contract, settings.now);
			unreadable.push(...read.unreadable);
			items.push(...dueInstallments(read.open, settings));
		}
	}
	return { items, unreadable };
}

function statusEvent(contract: IDataObject, settings: EventSettings): IDataObject[] {
	const status = String(contract.status);
	if (settings.statuses.length > 0 && !settings.statuses.includes(status)) return [];
	const since = statusSince(contract);
	return [
		{
			...header(settings, 'contractStatusChanged', contract, [status, since]),
			...settings.shape(contract),
			previousStatus: previousStatusInTimeline(contract),
		},
	];
}

function marginCallEvent(contract: IDataObject, settings: EventSettings): IDataObject[] {
	const liquidationStatus = String(contract.liquidation_status);
	if (!MARGIN_CALL_STATUSES.has(liquidationStatus)) return [];
	const liquidated = liquidationStatus === 'Liquidated';
	if (!liquidated && contract.status !== 'PrincipalGiven') return [];
	const episode = liquidated ? null : isoOf(timestampOf(contract.updated_at));
	return [
		{
			...header(settings, 'marginCall', contract, ['marginCall', liquidationStatus, episode]),
			...settings.shape(contract),
		},
	];
}

function dueInstallments(open: OpenInstallment[], settings: EventSettings): IDataObject[] {
	const end = windowEnd(settings.now, settings.daysAhead);
	return open
		.filter((installment) => installment.due <= end)
		.sort(bySoonestDue)
		.map(({ id, due, late, item }) => ({
			borrower: settings.borrower,
			event: INSTALLMENT_DUE_EVENT,
			event_key: keyOf([idOf(item.contract_id), idOf(id), isoOf(due), late ? 'late' : null]),
			...item,
		}));
}

/** The fields every contract event starts with. */
function header(
	settings: EventSettings,
	event: EventName,
	contract: IDataObject,
	parts: Array<string | null>,
): IDataObject {
	const contractId = contract.id as string;
	return {
		borrower: settings.borrower,
		event,
		event_key: keyOf([idOf(contractId), ...parts]),
		contract_id: contractId,
	};
}

/** The parts that are known, joined by colons. */
function keyOf(parts: Array<string | null>): string {
	return parts.filter((part) => part !== null).join(':');
}

/** An ID in a key: in lower case, as Lendasat compares them (a UUID in capitals is the same one). */
function idOf(id: unknown): string {
	return String(id).toLowerCase();
}

/**
 * When the contract entered its current status: the first of the timeline's last run of entries
 * with that status (Lendasat records each extra funding as another CollateralConfirmed, which does
 * not make it new). Null without a timeline that ends in the current status.
 */
export function statusSince(contract: IDataObject): string | null {
	const timeline = Array.isArray(contract.timeline) ? (contract.timeline as IDataObject[]) : [];
	const changes = timeline
		.map((entry) => ({
			event: entry?.event as IDataObject | undefined,
			at: timestampOf(entry?.date),
		}))
		.filter(({ event, at }) => event?.type === 'contract_status_change' && Number.isFinite(at))
		.map(({ event, at }) => ({ status: String(event?.status), at }))
		.sort((a, b) => a.at - b.at);
	let since: number | null = null;
	for (let index = changes.length - 1; index >= 0; index--) {
		if (changes[index].status !== String(contract.status)) break;
		since = changes[index].at;
	}
	return since === null ? null : isoOf(since);
}

function finishedLongAgo(contract: IDataObject, now: number): boolean {
	const updatedAt = timestampOf(contract.updated_at);
	return (
		TERMINAL_STATUSES.has(String(contract.status)) &&
		Number.isFinite(updatedAt) &&
		updatedAt < now - FINISHED_SHOWN_MS
	);
}

function isoOf(timestamp: number): string | null {
	return Number.isFinite(timestamp) ? new Date(timestamp).toISOString() : null;
}
