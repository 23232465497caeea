import { NodeOperationError, type IDataObject, type IPollFunctions } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../transport/pagination';
import { getPage } from './api';

/**
 * How far back each poll looks again behind the newest timestamp it has already seen. Records are
 * diffed against the cursor, so seeing one twice emits nothing; the overlap catches changes whose
 * timestamps arrive out of order (equal timestamps, transactions committed late, clock steps).
 */
export const OVERLAP_MS = 10 * 60_000;

/** A guard against a server that never ends a listing: far beyond any real backlog between two polls. */
const MAX_PAGES = 1000;

export interface NewestFirstListing {
	label: string;
	path: string;
	qs: IDataObject;
	/** The record's ID as text; undefined when it has none. */
	idOf: (record: IDataObject) => string | undefined;
	/** Milliseconds since the epoch, NaN when the record has no readable timestamp. */
	timeOf: (record: IDataObject) => number;
}

/**
 * Reads a newest-first page/limit listing page by page until the records are older than
 * `stopBefore(newest timestamp seen)`, or the listing ends. Records that slid onto the next page
 * because others were updated in between are returned once.
 */
export async function walkNewestFirst(
	context: IPollFunctions,
	listing: NewestFirstListing,
	stopBefore: (newestSeen: number) => number,
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	const seen = new Set<string>();
	let newest = -Infinity;

	for (let page = 1; page <= MAX_PAGES; page++) {
		const { data, total, totalPages } = await getPage(context, listing.label, listing.path, {
			...listing.qs,
			page,
			limit: MAX_PAGE_SIZE,
		});
		let added = 0;
		let oldest = Infinity;
		for (const record of data) {
			const id = listing.idOf(record);
			if (id === undefined)
				throw refused(context, listing, `page ${page} holds records without an id`);
			if (seen.has(id)) continue;
			seen.add(id);
			records.push(record);
			added++;
			const time = listing.timeOf(record);
			if (Number.isFinite(time)) {
				newest = Math.max(newest, time);
				oldest = Math.min(oldest, time);
			}
		}
		if (data.length < MAX_PAGE_SIZE || oldest < stopBefore(newest)) return records;
		// A full page with nothing new means the server ignores `page`: reading on would loop, stopping would lose records.
		if (added === 0)
			throw refused(context, listing, `page ${page} repeated records it had already sent`);
		if (totalPages !== undefined && page >= totalPages) {
			if (total !== undefined && total > page * MAX_PAGE_SIZE) {
				throw refused(
					context,
					listing,
					`it said page ${page} was the last, but counted ${total} records`,
				);
			}
			return records;
		}
	}
	throw new NodeOperationError(
		context.getNode(),
		`${listing.label}: more than ${MAX_PAGES * MAX_PAGE_SIZE} records changed since the last poll`,
		{
			description:
				'The trigger stopped instead of skipping any of them. Poll more often, or reactivate the workflow to start from now.',
		},
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
			description: `The poll stopped because ${problem}. Nothing was emitted and the trigger's position was kept, so nothing is lost; check the credential's base URL.`,
		},
	);
}
