import type { IDataObject } from 'n8n-workflow';

import { MARGIN_CALL_STATUSES, TERMINAL_STATUSES } from '../../trigger/contractStatuses';
import {
	bySoonestDue,
	DAY_MS,
	INSTALLMENT_CONTRACT_STATUSES,
	INSTALLMENT_DUE_EVENT,
	readInstallments,
	windowEnd,
	type OpenInstallment,
	type UnreadableInstallment,
} from '../../trigger/installments';
import { statusBefore, statusHistory, timesEntered } from '../../trigger/contracts';
import { timestampOf } from '../../trigger/walk';
import { describeValue } from '../../validation/checks';

/** The events Contract → Get Events gives, named as the trigger names them. */
export const EVENT_NAMES = ['contractStatusChanged', 'installmentDue', 'marginCall'] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * A contract in a final status (Closed, Cancelled, …) is reported for this long after its last
 * change, then left out: a poll every few minutes sees every ending, and leaving old contracts out
 * keeps the first run short and what a watch remembers small.
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
 * One event as it stands now. `identity` is what a watch remembers of it (Contract → Get New
 * Events): the same as the event_key except for a margin call, which is one event per level for as
 * long as it lasts, whatever else changes on the contract.
 */
export interface CurrentEvent {
	item: IDataObject;
	identity: string;
}

/** A contract the node cannot read: what is wrong with it, for the borrower's item error. */
export interface MalformedContract {
	contractId: string | undefined;
	problem: string;
}

export interface CurrentEvents {
	events: CurrentEvent[];
	unreadable: UnreadableInstallment[];
	malformed: MalformedContract[];
}

/**
 * Every event a borrower's contracts stand at now, each with an `event_key` that names it and
 * nothing else: the same key at every poll while nothing changed, a new one for each change. Remove
 * Duplicates ("Remove Items Processed in Previous Executions" on the key) then lets each through
 * once, across executions and queue-mode workers, with no state of ours.
 * - Contract status: each contract's current status, keyed by the contract, the status and how many
 *   times the contract has entered it (from its timeline), so that returning to an earlier status is
 *   news again, and a timeline entry that is no status change (extra collateral, a payment) or a
 *   timeline that lags behind the status is not.
 * - Margin call: a PrincipalGiven contract (the only status Lendasat's liquidation engine checks) in
 *   First or Second Margin Call, keyed by its updated_at as well: a margin call after the contract
 *   was Healthy again is news. A liquidation once per contract, whatever its status since.
 * - Installment due: as the trigger's Installment Due, an open installment due within Days Ahead,
 *   keyed by its due date, and once more when it is late.
 * Contracts are told apart by ID without case. A contract that cannot be read (no ID, a status that
 * is not text, a paid-out loan without a list of installments) is returned in `malformed`, open
 * installments that cannot be placed in `unreadable`: the borrower's item fails on either, so that
 * no event is made up and none is skipped in silence.
 */
export function currentEvents(contracts: IDataObject[], settings: EventSettings): CurrentEvents {
	const events: CurrentEvent[] = [];
	const unreadable: UnreadableInstallment[] = [];
	const malformed: MalformedContract[] = [];
	const wanted = new Set<string>(settings.events);
	const seen = new Set<string>();
	for (const contract of contracts) {
		const problem = problemOf(contract, wanted);
		if (problem) {
			malformed.push(problem);
			continue;
		}
		const id = idOf(contract.id);
		if (seen.has(id)) continue;
		seen.add(id);
		if (finishedLongAgo(contract, settings.now)) continue;
		if (wanted.has('contractStatusChanged')) events.push(...statusEvent(contract, settings));
		if (wanted.has('marginCall')) events.push(...marginCallEvent(contract, settings));
		if (wanted.has(INSTALLMENT_DUE_EVENT)) {
			const read = readInstallments(contract, settings.now);
			unreadable.push(...read.unreadable);
			events.push(...dueInstallments(read.open, settings));
		}
	}
	return { events, unreadable, malformed };
}

/**
 * What makes a contract unreadable for the events asked for, or null. Checked before anything of it
 * is used, so that no key ends in `undefined` or `[object Object]`.
 */
function problemOf(contract: IDataObject, wanted: Set<string>): MalformedContract | null {
	const rawId = contract?.id;
	const contractId = typeof rawId === 'string' && rawId.trim() !== '' ? rawId : undefined;
	const malformed = (problem: string) => ({ contractId, problem });
	if (contractId === undefined) return malformed(`has the id ${describeValue(rawId)}`);
	if (typeof contract.status !== 'string' || contract.status.trim() === '')
		return malformed(`has the status ${describeValue(contract.status)}`);
	const liquidation = contract.liquidation_status;
	if (liquidation !== undefined && liquidation !== null && typeof liquidation !== 'string')
		return malformed(`has the liquidation status ${describeValue(liquidation)}`);
	if (contract.timeline !== undefined && contract.timeline !== null) {
		if (!Array.isArray(contract.timeline))
			return malformed(`has a timeline that is not a list (${describeValue(contract.timeline)})`);
	}
	if (
		wanted.has(INSTALLMENT_DUE_EVENT) &&
		INSTALLMENT_CONTRACT_STATUSES.includes(contract.status) &&
		!Array.isArray(contract.installments)
	) {
		return malformed(
			`is ${contract.status} but its installments are ${describeValue(contract.installments)}, not a list`,
		);
	}
	return null;
}

function statusEvent(contract: IDataObject, settings: EventSettings): CurrentEvent[] {
	const status = contract.status as string;
	if (settings.statuses.length > 0 && !settings.statuses.includes(status)) return [];
	const history = statusHistory(contract);
	const occurrence = history === null ? null : timesEntered(history, status);
	const key = keyOf([idOf(contract.id), status, occurrence === null ? null : String(occurrence)]);
	return [
		{
			item: {
				...header(settings, 'contractStatusChanged', contract, key),
				...settings.shape(contract),
				previousStatus: history === null ? null : statusBefore(history, status),
			},
			identity: key,
		},
	];
}

function marginCallEvent(contract: IDataObject, settings: EventSettings): CurrentEvent[] {
	const liquidationStatus = String(contract.liquidation_status);
	if (!MARGIN_CALL_STATUSES.has(liquidationStatus)) return [];
	const liquidated = liquidationStatus === 'Liquidated';
	if (!liquidated && contract.status !== 'PrincipalGiven') return [];
	const level = keyOf([idOf(contract.id), 'marginCall', liquidationStatus]);
	const episode = liquidated ? null : isoOf(timestampOf(contract.updated_at));
	const key = keyOf([level, episode]);
	return [
		{
			item: { ...header(settings, 'marginCall', contract, key), ...settings.shape(contract) },
			identity: level,
		},
	];
}

function dueInstallments(open: OpenInstallment[], settings: EventSettings): CurrentEvent[] {
	const end = windowEnd(settings.now, settings.daysAhead);
	return open
		.filter((installment) => installment.due <= end)
		.sort(bySoonestDue)
		.map(({ id, due, late, item }) => {
			const key = keyOf([idOf(item.contract_id), idOf(id), isoOf(due), late ? 'late' : null]);
			return {
				item: {
					borrower: settings.borrower,
					event: INSTALLMENT_DUE_EVENT,
					event_key: key,
					...item,
				},
				identity: key,
			};
		});
}

/** The fields every contract event starts with. */
function header(
	settings: EventSettings,
	event: EventName,
	contract: IDataObject,
	key: string,
): IDataObject {
	return {
		borrower: settings.borrower,
		event,
		event_key: key,
		contract_id: contract.id as string,
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
