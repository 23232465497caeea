import {
	NodeOperationError,
	type IDataObject,
	type INode,
	type IPollFunctions,
} from 'n8n-workflow';

import { describeValue, isRecord } from '../validation/checks';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { CONTRACTS_PATH, isOpenInstallment } from '../resources/contract/shared';
import { getPage } from './api';
import { contractListing } from './contracts';
import { CURSOR_VERSION, isRecordOf, readCursor, saveCursor } from './cursor';
import { KEPT_POSITION, timestampOf, walkNewestFirst } from './walk';

export const INSTALLMENT_DUE_EVENT = 'installmentDue';

export const DAY_MS = 24 * 60 * 60_000;

/**
 * The contract statuses whose installments the event watches (hub 49781f87, FACTS §8–§9):
 * - PrincipalGiven: the open loan. The only status in which an installment can be paid
 *   (installment-paid and btc-invoice-paid refuse every other one) and the only one the backend's
 *   late job looks at.
 * - Undercollateralized: reached from PrincipalGiven with the schedule untouched; the hourly default
 *   job still acts on its late installments (PrincipalGiven/Undercollateralized → Defaulted), so the
 *   borrower is still owed the reminder. The item says the contract status, and the API refuses a
 *   payment there, so `btc_invoice_possible` is false.
 * Left out on purpose:
 * - Requested … CollateralConfirmed: installments exist from the request on, status pending, but
 *   nothing is owed before the principal is paid out.
 * - RepaymentProvided, RepaymentConfirmed, Closing*, Closed*: reached only once every installment is
 *   paid, confirmed or cancelled, so nothing is open.
 * - Defaulted: the default job has already acted on the late installments; the collateral is
 *   liquidated, a reminder would be noise (and would fire for old defaults on activation).
 * - Extended: the old contract keeps its old schedule; the new contract (PrincipalGiven) carries it.
 * - Disputes: entered from CollateralConfirmed or RepaymentProvided, neither with anything owed.
 * The list is asked of the server (status filter) and checked again here, for a server that ignores it.
 */
export const INSTALLMENT_CONTRACT_STATUSES = ['PrincipalGiven', 'Undercollateralized'];

/**
 * How long an emitted installment is remembered after the last poll that listed it as open. An
 * installment the API lists as paid, confirmed or cancelled is forgotten at once. One that is not
 * listed at all (its contract left the watched statuses, or slid between two pages while the poll
 * read them) is kept this long, so that coming back does not announce it again.
 */
export const FORGET_UNLISTED_AFTER_MS = 30 * DAY_MS;

/** What the cursor remembers of an installment it has emitted. */
export interface InstallmentMark {
	/** The "late" reminder was emitted too (or the first one already was late). */
	late: boolean;
	/** When a poll last listed it as open, in milliseconds. */
	seenAt: number;
}

/**
 * The installments already emitted. Nothing else: the event depends on the clock, not on what
 * changed, so every poll reads every watched contract and emits what is in the window and not here.
 * Independent of Days Ahead, so changing it never announces an installment again.
 */
export interface InstallmentCursor {
	version: typeof CURSOR_VERSION;
	emitted: Record<string, InstallmentMark>;
}

/** An open installment of a watched contract, with what a reminder needs. */
export interface OpenInstallment {
	id: string;
	due: number;
	late: boolean;
	item: IDataObject;
}

/**
 * An open installment of a watched contract that the trigger cannot place: no id, or a due date
 * it cannot read. The poll fails on it rather than skip a reminder in silence.
 */
export interface UnreadableInstallment {
	contractId: string;
	/** Undefined when the installment has none. */
	installmentId: string | undefined;
	dueDate: unknown;
}

/**
 * Read every watched contract: created_at order, which an update does not reorder, so that pages
 * rarely shift during the walk (a contract that does slide is read again next poll, see above).
 */
const WATCHED_CONTRACTS = {
	status: INSTALLMENT_CONTRACT_STATUSES.join(','),
	sort_by: 'created_at',
	sort_order: 'desc',
};

/**
 * One scheduled poll: each open installment due within `daysAhead` days (overdue ones included)
 * that was not emitted before, and each emitted one that has become late since. The first poll
 * after activation emits what is already in the window: that is the reminder a flow waits for.
 */
export async function pollInstallments(
	context: IPollFunctions,
	label: string,
	daysAhead: number,
): Promise<IDataObject[] | null> {
	const staticData = context.getWorkflowStaticData('node');
	const cursor = readCursor<InstallmentCursor>(staticData, 'installments', isInstallmentCursor);
	const listing = contractListing(label, WATCHED_CONTRACTS, 'created_at');
	// The whole listing every time: due dates do not move with updated_at.
	const contracts = await walkNewestFirst(context, listing, () => -Infinity);
	const { next, items, unreadable } = advanceInstallmentCursor(
		cursor,
		contracts,
		Date.now(),
		daysAhead,
	);
	if (unreadable.length) throw cannotRead(context.getNode(), label, unreadable);
	saveCursor(staticData, 'installments', next);
	return items.length ? items : null;
}

/**
 * "Fetch Test Event": the open installment due soonest within the window; when none is, the one due
 * soonest after it, so that the shape can be seen. The cursor is not touched.
 */
export async function sampleInstallment(
	context: IPollFunctions,
	label: string,
	daysAhead: number,
): Promise<IDataObject[] | null> {
	const { data } = await getPage(context, label, CONTRACTS_PATH, {
		...WATCHED_CONTRACTS,
		page: 1,
		limit: MAX_PAGE_SIZE,
	});
	const now = Date.now();
	const read = data.map((contract) => readInstallments(contract, now));
	const unreadable = read.flatMap((contract) => contract.unreadable);
	if (unreadable.length) throw cannotRead(context.getNode(), label, unreadable);
	const open = read.flatMap((contract) => contract.open).sort(bySoonestDue);
	const sample =
		open.find((installment) => installment.due <= windowEnd(now, daysAhead)) ?? open[0];
	return sample ? [sample.item] : null;
}

/**
 * Pure: the items to emit and the next cursor, from the previous cursor (null before the first
 * poll), the watched contracts just read, the clock and Days Ahead. Items are ordered by due date.
 * - An open installment (pending or late) with due_date ≤ now + daysAhead days is emitted once.
 * - It is emitted once more when it becomes late: status `late`, or `pending` with due_date in the
 *   past (the backend marks installments late only every 30 minutes). One that is late when first
 *   seen is emitted once, with `late: true`.
 * - Installments are told apart by contract and installment ID, compared without case.
 * - An open installment without an id, or with a due_date that cannot be read, cannot be placed in
 *   the window: it is returned in `unreadable`, and the poll must fail rather than save `next`.
 */
export function advanceInstallmentCursor(
	cursor: InstallmentCursor | null,
	contracts: IDataObject[],
	now: number,
	daysAhead: number,
): { next: InstallmentCursor; items: IDataObject[]; unreadable: UnreadableInstallment[] } {
	const emitted = marksByLowerCaseKey(cursor?.emitted ?? {});
	const listedOpen = new Set<string>();
	const due: OpenInstallment[] = [];
	const unreadable: UnreadableInstallment[] = [];
	const end = windowEnd(now, daysAhead);

	for (const contract of contracts) {
		// Listed as paid, confirmed or cancelled: no longer owed, nothing left to remember.
		for (const installment of installmentsOf(contract)) {
			const id = idOf(installment);
			if (id !== undefined && !isOpenInstallment(installment))
				delete emitted[markKey(contract, id)];
		}
		const read = readInstallments(contract, now);
		unreadable.push(...read.unreadable);
		for (const open of read.open) {
			const key = markKey(contract, open.id);
			listedOpen.add(key);
			const mark = emitted[key];
			if (!mark) {
				if (open.due > end) continue;
				due.push(open);
				emitted[key] = { late: open.late, seenAt: now };
				continue;
			}
			if (open.late && !mark.late) due.push(open);
			emitted[key] = { late: mark.late || open.late, seenAt: now };
		}
	}
	for (const [id, mark] of Object.entries(emitted)) {
		if (!listedOpen.has(id) && mark.seenAt < now - FORGET_UNLISTED_AFTER_MS) delete emitted[id];
	}
	return {
		next: { version: CURSOR_VERSION, emitted },
		items: due.sort(bySoonestDue).map((open) => open.item),
		unreadable,
	};
}

/**
 * An installment is remembered under its contract too: two servers' (or contracts') installment
 * IDs may coincide. Lower case: a UUID in capitals is the same installment.
 */
function markKey(contract: IDataObject, installmentId: string): string {
	return `${idOf(contract) ?? ''}/${installmentId}`.toLowerCase();
}

/**
 * The stored marks under the keys markKey makes now. Cursors saved before IDs were compared without
 * case may hold one installment under several keys: the marks are merged (late if either was, the
 * latest sighting), so none of them is announced again.
 */
function marksByLowerCaseKey(
	emitted: Record<string, InstallmentMark>,
): Record<string, InstallmentMark> {
	const marks: Record<string, InstallmentMark> = {};
	for (const [key, mark] of Object.entries(emitted)) {
		const known = marks[key.toLowerCase()];
		marks[key.toLowerCase()] = known
			? { late: known.late || mark.late, seenAt: Math.max(known.seenAt, mark.seenAt) }
			: { late: mark.late, seenAt: mark.seenAt };
	}
	return marks;
}

const RFC3339 =
	/^(\d{4})-(\d{2})-(\d{2})[Tt ](?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/**
 * A due date as Lendasat writes it, or NaN. The backend serialises every due date with
 * time::serde::rfc3339 (hub 49781f87 routes/borrower/contracts.rs:1880), always with `Z` or an
 * offset, and the schema says `format: date-time`. A date and time without an offset is refused,
 * not read as UTC: its zone is unknown, and a guess could move the reminder, or the late flag, by
 * up to 14 hours. Date.parse alone would also read "1" as the year 2001, roll 30 February into March
 * and read a time without offset in n8n's own zone.
 */
function dueTimestampOf(value: unknown): number {
	if (typeof value !== 'string') return Number.NaN;
	const match = RFC3339.exec(value);
	if (!match) return Number.NaN;
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	const calendar = new Date(Date.UTC(year, month - 1, day));
	if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return Number.NaN;
	return timestampOf(value.toUpperCase().replace(' ', 'T'));
}

/** The end of the Days Ahead window: an open installment due at or before it is reminded of. */
export function windowEnd(now: number, daysAhead: number): number {
	return now + daysAhead * DAY_MS;
}

function isWatched(contract: IDataObject): boolean {
	return INSTALLMENT_CONTRACT_STATUSES.includes(String(contract.status));
}

function installmentsOf(contract: IDataObject): IDataObject[] {
	return Array.isArray(contract.installments) ? contract.installments.filter(isRecord) : [];
}

function idOf(record: IDataObject): string | undefined {
	return typeof record.id === 'string' || typeof record.id === 'number'
		? String(record.id)
		: undefined;
}

/**
 * The open installments of a watched contract, each as the item it would emit, and those it cannot
 * place (no id, or a due date it cannot read).
 */
export function readInstallments(
	contract: IDataObject,
	now: number,
): { open: OpenInstallment[]; unreadable: UnreadableInstallment[] } {
	const open: OpenInstallment[] = [];
	const unreadable: UnreadableInstallment[] = [];
	if (!isWatched(contract)) return { open, unreadable };
	const installments = installmentsOf(contract);
	const invoiceTarget = btcInvoiceTarget(contract, installments);
	for (const installment of installments) {
		if (!isOpenInstallment(installment)) continue;
		const id = idOf(installment);
		const dueAt = dueTimestampOf(installment.due_date);
		if (id === undefined || !Number.isFinite(dueAt)) {
			unreadable.push({
				contractId: String(contract.id),
				installmentId: id,
				dueDate: installment.due_date,
			});
			continue;
		}
		const late = installment.status === 'late' || dueAt < now;
		open.push({
			id,
			due: dueAt,
			late,
			item: toItem(contract, installment, id, dueAt, now, late, id === invoiceTarget),
		});
	}
	return { open, unreadable };
}

/**
 * The installment Create Bitcoin Repayment Invoice would bill (FACTS §1): the pending one due first,
 * and only when the lender gave a Bitcoin repayment address, the loan is not in EUR (the only
 * currency refused) and the contract is PrincipalGiven (reporting the payment requires it).
 * Late installments are never billed.
 */
function btcInvoiceTarget(contract: IDataObject, installments: IDataObject[]): string | undefined {
	const address = contract.btc_loan_repayment_address;
	if (typeof address !== 'string' || address === '') return undefined;
	if (contract.loan_asset === 'Eur' || contract.status !== 'PrincipalGiven') return undefined;
	let target: { id: string; due: number } | undefined;
	for (const installment of installments) {
		const id = idOf(installment);
		const dueAt = dueTimestampOf(installment.due_date);
		if (id === undefined || installment.status !== 'pending' || !Number.isFinite(dueAt)) continue;
		if (!target || dueAt < target.due) target = { id, due: dueAt };
	}
	return target?.id;
}

function toItem(
	contract: IDataObject,
	installment: IDataObject,
	id: string,
	dueAt: number,
	now: number,
	late: boolean,
	btcInvoicePossible: boolean,
): IDataObject {
	const principal = numberOrNull(installment.principal);
	const interest = numberOrNull(installment.interest);
	return {
		event: INSTALLMENT_DUE_EVENT,
		contract_id: contract.id as string,
		installment_id: id,
		amount:
			principal === null || interest === null
				? null
				: Number((principal + interest).toPrecision(15)),
		principal,
		interest,
		loan_asset: valueOrNull(contract.loan_asset),
		due_date: installment.due_date as string,
		days_until_due: daysUntil(dueAt, now),
		late,
		installment_status: String(installment.status),
		contract_status: String(contract.status),
		loan_type: valueOrNull(contract.loan_type),
		loan_repayment_address: valueOrNull(contract.loan_repayment_address),
		btc_loan_repayment_address: valueOrNull(contract.btc_loan_repayment_address),
		btc_invoice_possible: btcInvoicePossible,
	};
}

/**
 * Whole days, negative exactly when overdue: ahead, the days it falls due within (1 for anything up to
 * a day ahead); overdue, the full days past the due date, at least 1; 0 only when due this instant.
 */
function daysUntil(dueAt: number, now: number): number {
	const ms = dueAt - now;
	if (ms >= 0) return Math.ceil(ms / DAY_MS);
	return -Math.max(1, Math.floor(-ms / DAY_MS));
}

function numberOrNull(value: unknown): number | null {
	const number =
		typeof value === 'number'
			? value
			: typeof value === 'string' && value.trim() !== ''
				? Number(value)
				: Number.NaN;
	return Number.isFinite(number) ? number : null;
}

function valueOrNull(value: unknown): IDataObject[string] {
	return value === undefined ? null : (value as IDataObject[string]);
}

export function bySoonestDue(a: OpenInstallment, b: OpenInstallment): number {
	return a.due - b.due || a.id.localeCompare(b.id);
}

/** Who could not place an installment, and what it did then (kept its position, output nothing). */
export interface UnreadableOutcome {
	who: string;
	then: string;
	itemIndex?: number;
}

/**
 * The error for an open installment that cannot be placed: skipping it would lose its reminder in
 * silence. The trigger's poll fails on it; Contract → Get Events fails the borrower's item.
 */
export function cannotRead(
	node: INode,
	label: string,
	unreadable: UnreadableInstallment[],
	outcome: UnreadableOutcome = { who: 'the trigger', then: KEPT_POSITION },
): NodeOperationError {
	const [{ contractId, installmentId, dueDate }] = unreadable;
	const { who, then, itemIndex } = outcome;
	const others =
		unreadable.length > 1 ? ` ${unreadable.length - 1} more cannot be read either.` : '';
	if (installmentId === undefined) {
		return new NodeOperationError(node, `${label}: an open installment has no ID`, {
			itemIndex,
			description: `Contract ${contractId} lists an open installment without an id, so ${who} cannot tell whether it has reminded of it already.${others} ${then} Check the credential's Base URL: Lendasat gives every installment an id.`,
		});
	}
	const due =
		dueDate === undefined || dueDate === null
			? 'has no due date'
			: `is due ${describeValue(dueDate)}, which is not a date and time with a time-zone offset (RFC 3339, such as 2026-03-01T12:00:00Z, as Lendasat sends it)`;
	return new NodeOperationError(node, `${label}: the due date of an installment cannot be read`, {
		itemIndex,
		description: `Installment ${installmentId} of contract ${contractId} ${due}, so ${who} cannot tell when it falls due.${others} ${then} Check the credential's Base URL: Lendasat's backend always sends the offset.`,
	});
}

function isInstallmentCursor(value: IDataObject): boolean {
	return isRecordOf(value.emitted, (mark) => {
		const entry = mark as InstallmentMark;
		return isRecord(mark) && typeof entry.late === 'boolean' && typeof entry.seenAt === 'number';
	});
}
