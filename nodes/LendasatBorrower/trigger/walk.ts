import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import { MAX_PAGE_SIZE, MAX_PAGES } from '../transport/pagination';
import { getPage } from './api';

/**
 * How far back each poll looks again behind the newest timestamp it has already seen. Records are
 * diffed against the cursor, so seeing one twice emits nothing; the overlap catches changes whose
 * timestamps arrive out of order (equal timestamps, transactions committed late, clock steps).
 */
export const OVERLAP_MS = 10 * 60_000;

/** Every error that fails a poll says so: its cursor was not touched. */
export const KEPT_POSITION =
	'Nothing was emitted and the trigger kept its position; the next poll tries again.';

export interface NewestFirstListing {
	label: string;
	path: string;
	qs: IDataObject;
	/** What the records are called in messages: "contracts", "notifications". */
	records: string;
	/** The record's ID as text; undefined when it has none. */
	idOf: (record: IDataObject) => string | undefined;
	/** Milliseconds since the epoch, NaN when the record has no readable timestamp. */
	timeOf: (record: IDataObject) => number;
	/**
	 * Set for a listing whose pages after the first may leave records out (Lendasat's notification
	 * feed): its first page is exact, so a walk that needs more reads on to the end and must find the
	 * server's `total`. The text says why a walk ended short, for the error.
	 */
	lossyAfterFirstPage?: string;
	/** What to check when the pages end short of the total, for the error. */
	whenShort: string;
}

/**
 * Reads a newest-first page/limit listing page by page, until the records are older than
 * `stopBefore(newest timestamp seen)` or the server's `total` has been read. A page shorter than
 * asked does not end the walk: a server may page by a smaller size, so the walk reads on by page
 * number. When the pages run out (an empty page) before `total`, the poll fails: emitting part of
 * what changed would lose the rest for good. Records that slid onto the next page because others
 * were added in between are returned once; IDs are compared without case.
 */
export async function walkNewestFirst(
	context: IPollFunctions,
	listing: NewestFirstListing,
	stopBefore: (newestSeen: number) => number,
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	const seen = new Set<string>();
	let newest = -Infinity;
	// The count when the walk began: records added meanwhile shift the pages but take nothing away.
	let counted: number | undefined;

	for (let page = 1; page <= MAX_PAGES; page++) {
		const { data, total } = await getPage(context, listing.label, listing.path, {
			...listing.qs,
			page,
			limit: MAX_PAGE_SIZE,
		});
		if (page === 1) counted = total;
		let added = 0;
		let oldest = Infinity;
		for (const record of data) {
			const id = listing.idOf(record);
			if (id === undefined)
				throw refused(context, listing, `page ${page} holds records without an id`);
			if (seen.has(id.toLowerCase())) continue;
			seen.add(id.toLowerCase());
			records.push(record);
			added++;
			const time = listing.timeOf(record);
			if (Number.isFinite(time)) {
				newest = Math.max(newest, time);
				oldest = Math.min(oldest, time);
			}
		}
		if (counted !== undefined && records.length >= counted) return records;
		if (data.length === 0) {
			if (counted !== undefined) throw endedShort(context, listing, records.length, counted);
			if (listing.lossyAfterFirstPage === undefined) return records;
			throw refused(context, listing, 'it did not say how many records there are');
		}
		// A page with nothing new means the server ignores `page`: reading on would loop, stopping would lose records.
		if (added === 0)
			throw refused(context, listing, `page ${page} repeated records it had already sent`);
		const reachedCursor = oldest < stopBefore(newest);
		if (reachedCursor && (page === 1 || listing.lossyAfterFirstPage === undefined)) return records;
	}
	throw refused(
		context,
		listing,
		`it had read ${MAX_PAGES} pages and the server still offered more`,
	);
}

export function timestampOf(value: unknown): number {
	return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** Oldest first, records without a readable timestamp last; the order within equal times is kept. */
export function byTimeAscending<T>(timeOf: (entry: T) => number) {
	return (a: T, b: T): number => {
		const left = timeOf(a);
		const right = timeOf(b);
		if (Number.isNaN(left) || Number.isNaN(right))
			return Number(Number.isNaN(left)) - Number(Number.isNaN(right));
		return left - right;
	};
}

/** The pages ended before the server's total: the poll fails rather than emit part of what changed. */
function endedShort(
	context: IPollFunctions,
	listing: NewestFirstListing,
	read: number,
	total: number,
): NodeOperationError {
	const why = listing.lossyAfterFirstPage ?? 'so the poll could not see them all.';
	return new NodeOperationError(
		context.getNode(),
		`${listing.label}: Lendasat returned ${read} of ${total} ${listing.records}`,
		{
			description: `The server counted ${total} ${listing.records}, but its pages ended after ${read}, ${why} ${KEPT_POSITION} ${listing.whenShort}`,
		},
	);
}

/** The poll fails and its cursor stays where it was: emitting part of what changed would lose the rest for good. */
function refused(
	context: IPollFunctions,
	listing: NewestFirstListing,
	problem: string,
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`${listing.label}: Lendasat sent pages the trigger cannot walk`,
		{
			description: `The poll stopped because ${problem}. ${KEPT_POSITION} Check the credential's Base URL.`,
		},
	);
}
