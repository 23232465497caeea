import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { collateralAndKycOf, CONTRACTS_PATH } from '../resources/contract/shared';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { getPage } from './api';
import { MARGIN_CALL_STATUSES, TERMINAL_STATUSES } from './contractStatuses';
import { CURSOR_VERSION, isRecordOf, readCursor, saveCursor } from './cursor';
import {
	byTimeAscending,
	OVERLAP_MS,
	timestampOf,
	walkNewestFirst,
	type NewestFirstListing,
} from './walk';

/** What the cursor remembers of one contract. */
export interface ContractMark {
	status: string;
	liquidationStatus: string | null;
	/** updated_at in milliseconds; null when the server sent none that can be read. */
	updatedAt: number | null;
}

/**
 * Every contract that is not in a terminal status, plus terminal ones changed within the
 * overlap window (so seeing them again does not count as news), and the newest updated_at seen.
 */
export interface ContractCursor {
	version: typeof CURSOR_VERSION;
	highWater: number | null;
	contracts: Record<string, ContractMark>;
}

export interface ContractChange {
	contract: IDataObject;
	/** What the cursor knew before; null for a contract it did not know (a new one). */
	previous: ContractMark | null;
}

export type ContractEvent = 'contractStatusChanged' | 'marginCall';

export interface ContractEventSettings {
	event: ContractEvent;
	label: string;
	/** Contract Status Changed: only changes to these statuses; empty for all. */
	statuses: string[];
}

const NEWEST_FIRST = { sort_by: 'updated_at', sort_order: 'desc' };

/** GET /api/contracts as a listing for walkNewestFirst; other events pass their own query and time field. */
export function contractListing(
	label: string,
	qs: IDataObject = NEWEST_FIRST,
	timeField: 'updated_at' | 'created_at' = 'updated_at',
): NewestFirstListing {
	return {
		label,
		path: CONTRACTS_PATH,
		qs,
		records: 'contracts',
		whenShort:
			"If this keeps happening, check the credential's Base URL: Lendasat's contract list pages completely.",
		idOf: (contract) =>
			contract.id === undefined || contract.id === null ? undefined : String(contract.id),
		timeOf: (contract) => timestampOf(contract[timeField]),
	};
}

/** One scheduled poll: the changes since the last one, or null. The first poll only records a baseline. */
export async function pollContracts(
	context: IPollFunctions,
	settings: ContractEventSettings,
): Promise<IDataObject[] | null> {
	const staticData = context.getWorkflowStaticData('node');
	const cursor = readCursor<ContractCursor>(staticData, 'contracts', isContractCursor);
	// The baseline reads every contract, so a later change of an old one still knows its previous status.
	const highWater = cursor?.highWater ?? null;
	const stopBefore = highWater === null ? -Infinity : highWater - OVERLAP_MS;
	const contracts = await walkNewestFirst(
		context,
		contractListing(settings.label),
		() => stopBefore,
	);
	const { next, changes } = advanceContractCursor(cursor, contracts);
	const items = changes
		.filter((change) => isWanted(change, settings))
		.map((change) => toItem(change, settings.event));
	saveCursor(staticData, 'contracts', next);
	return items.length ? items : null;
}

/** "Fetch Test Event": the most recently updated contract that fits the event; the cursor is not touched. */
export async function sampleContract(
	context: IPollFunctions,
	settings: ContractEventSettings,
): Promise<IDataObject[] | null> {
	const { data } = await getPage(context, settings.label, CONTRACTS_PATH, {
		...NEWEST_FIRST,
		page: 1,
		limit: MAX_PAGE_SIZE,
	});
	if (settings.event === 'marginCall') {
		const contract = data.find((candidate) =>
			MARGIN_CALL_STATUSES.has(String(candidate.liquidation_status)),
		);
		return contract ? [toItem({ contract, previous: null }, 'marginCall')] : null;
	}
	// Filtered here, not by the server: the live backend refuses the specification's `pending`.
	const contract = data.find(
		(candidate) =>
			settings.statuses.length === 0 || settings.statuses.includes(String(candidate.status)),
	);
	if (!contract) return null;
	const previousStatus = previousStatusInTimeline(contract);
	return [{ ...withCollateralAndKyc(contract), event: settings.event, previousStatus }];
}

/**
 * Folds the contracts just read into the cursor and returns what changed, oldest change first.
 * Without a cursor (the first poll) everything is recorded and nothing counts as a change.
 * Changes are found by comparing status and liquidation status with the cursor, not by
 * timestamps, so a contract read twice (overlap, shifted pages) is reported once.
 */
export function advanceContractCursor(
	cursor: ContractCursor | null,
	contracts: IDataObject[],
): { next: ContractCursor; changes: ContractChange[] } {
	const known = { ...(cursor?.contracts ?? {}) };
	const changes: ContractChange[] = [];
	let highWater = cursor?.highWater ?? null;

	for (const contract of contracts) {
		const id = String(contract.id);
		const mark = markOf(contract);
		const previous = known[id] ?? null;
		if (cursor && isChange(contract, mark, previous, cursor.highWater))
			changes.push({ contract, previous });
		known[id] = mark;
		if (mark.updatedAt !== null) highWater = Math.max(highWater ?? mark.updatedAt, mark.updatedAt);
	}
	forgetOldTerminalContracts(known, highWater);
	changes.sort(
		byTimeAscending((change: ContractChange) => timestampOf(change.contract.updated_at)),
	);
	return { next: { version: CURSOR_VERSION, highWater, contracts: known }, changes };
}

function isChange(
	contract: IDataObject,
	mark: ContractMark,
	previous: ContractMark | null,
	highWater: number | null,
): boolean {
	if (previous)
		return previous.status !== mark.status || previous.liquidationStatus !== mark.liquidationStatus;
	// Unknown contracts are new ones, except those the cursor has forgotten: finished contracts
	// read again because they share a page with recent ones, or were touched again.
	if (highWater === null) return true;
	const windowStart = highWater - OVERLAP_MS;
	if (mark.updatedAt !== null && mark.updatedAt < windowStart) return false;
	return !(TERMINAL_STATUSES.has(mark.status) && timestampOf(contract.created_at) < windowStart);
}

function forgetOldTerminalContracts(
	known: Record<string, ContractMark>,
	highWater: number | null,
): void {
	const keepAfter = highWater === null ? -Infinity : highWater - OVERLAP_MS;
	for (const [id, mark] of Object.entries(known)) {
		if (
			TERMINAL_STATUSES.has(mark.status) &&
			!(mark.updatedAt !== null && mark.updatedAt >= keepAfter)
		) {
			delete known[id];
		}
	}
}

function isWanted(change: ContractChange, settings: ContractEventSettings): boolean {
	const { contract, previous } = change;
	if (settings.event === 'marginCall') {
		const liquidationStatus = stringOrNull(contract.liquidation_status);
		return (
			liquidationStatus !== (previous?.liquidationStatus ?? null) &&
			MARGIN_CALL_STATUSES.has(liquidationStatus ?? '')
		);
	}
	const status = String(contract.status);
	if (previous && previous.status === status) return false;
	return settings.statuses.length === 0 || settings.statuses.includes(status);
}

function toItem(change: ContractChange, event: ContractEvent): IDataObject {
	const contract = withCollateralAndKyc(change.contract);
	if (event === 'marginCall') {
		return {
			...contract,
			event,
			previousLiquidationStatus: change.previous?.liquidationStatus ?? null,
		};
	}
	return { ...contract, event, previousStatus: change.previous?.status ?? null };
}

/** The full record with the four keys Simplify gives too: collateral_asset, requires_ark_settlement, kyc_link, kyc_done. */
export function withCollateralAndKyc(contract: IDataObject): IDataObject {
	return { ...contract, ...collateralAndKycOf(contract) };
}

function markOf(contract: IDataObject): ContractMark {
	const updatedAt = timestampOf(contract.updated_at);
	return {
		status: String(contract.status),
		liquidationStatus: stringOrNull(contract.liquidation_status),
		updatedAt: Number.isFinite(updatedAt) ? updatedAt : null,
	};
}

function stringOrNull(value: unknown): string | null {
	return value === undefined || value === null ? null : String(value);
}

/** The status before the current one, from the contract's timeline (the test event, and Contract → Get Events). */
export function previousStatusInTimeline(contract: IDataObject): string | null {
	const history = statusHistory(contract);
	return history === null ? null : statusBefore(history, String(contract.status));
}

/** The statuses before a contract's collateral is confirmed: a CollateralConfirmed entry after any other is extra collateral. */
const BEFORE_COLLATERAL = new Set(['Requested', 'Approved', 'CollateralSeen']);

/**
 * The statuses the contract went through, oldest first, each stay once; null without a timeline.
 * Only status changes count: Lendasat records every funding after the first as another
 * CollateralConfirmed entry (hub 49781f87 routes/borrower/contracts.rs:2287-2306, "we treat all of
 * these transactions as a new instance of `CollateralConfirmed`"), and a contract enters
 * CollateralConfirmed once, from the statuses before it ("A contract should only ever transition to
 * `CollateralSeen` and `CollateralConfirmed` once", same file :2217-2218). So a CollateralConfirmed
 * entry after any later status is extra collateral, not a change of status. (A dispute resolved back
 * to CollateralConfirmed is left out too; timesEntered counts that stay as one the timeline has not
 * recorded yet, which keeps its number.)
 */
export function statusHistory(contract: IDataObject): string[] | null {
	if (!Array.isArray(contract.timeline) || contract.timeline.length === 0) return null;
	const changes = (contract.timeline as IDataObject[])
		.map((entry, index) => ({
			event: entry?.event as IDataObject | undefined,
			at: timestampOf(entry?.date),
			index,
		}))
		.filter(
			({ event }) => event?.type === 'contract_status_change' && typeof event.status === 'string',
		)
		// Date order, as Lendasat sorts it; an entry without a readable date keeps its place.
		.sort(
			(a, b) =>
				(Number.isFinite(a.at) && Number.isFinite(b.at) ? a.at - b.at : 0) || a.index - b.index,
		)
		.map(({ event }) => String(event?.status));
	const history: string[] = [];
	for (const status of changes) {
		const extraCollateral =
			status === 'CollateralConfirmed' && history.some((entry) => !BEFORE_COLLATERAL.has(entry));
		if (!extraCollateral && history[history.length - 1] !== status) history.push(status);
	}
	return history;
}

/**
 * How many times the contract has entered `status`, counting the current stay even while the
 * timeline has not recorded it yet (Lendasat may list the status before the timeline entry), so
 * that the number does not change when the entry arrives.
 */
export function timesEntered(history: string[], status: string): number {
	const recorded = history.filter((entry) => entry === status).length;
	return history[history.length - 1] === status ? recorded : recorded + 1;
}

/** The status before the current stay in `status`, from the history; null when there is none. */
export function statusBefore(history: string[], status: string): string | null {
	const last = history.length - 1;
	if (history[last] !== status) return last >= 0 ? history[last] : null;
	return last > 0 ? history[last - 1] : null;
}

function isContractCursor(value: IDataObject): boolean {
	return (
		(value.highWater === null || typeof value.highWater === 'number') &&
		isRecordOf(value.contracts, (mark) => typeof (mark as ContractMark)?.status === 'string')
	);
}
