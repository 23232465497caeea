import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { ANY_COLLATERAL } from '../methods/offerPicker';
import { getList } from './api';
import { CURSOR_VERSION, isRecordOf, readCursor, saveCursor } from './cursor';

/**
 * The IDs of the offers seen, each with when it was last listed. An offer that leaves the list
 * (taken, withdrawn, no longer matching) and comes back within OFFER_MEMORY_MS is not new again.
 */
export interface OfferCursor {
	version: typeof CURSOR_VERSION;
	/** The query the IDs were collected with; other filters start a new baseline. */
	query: string;
	seen: Record<string, number>;
}

const OFFERS_PATH = '/api/offers';
const OFFER_MEMORY_MS = 30 * 24 * 60 * 60_000;

/** One scheduled poll: offers that were not listed before, or null. The first poll only records a baseline. */
export async function pollOffers(
	context: IPollFunctions,
	label: string,
	qs: IDataObject,
): Promise<IDataObject[] | null> {
	const staticData = context.getWorkflowStaticData('node');
	const cursor = readCursor<OfferCursor>(staticData, 'offers', isOfferCursor);
	const offers = await getList(context, label, OFFERS_PATH, qs);
	const { next, fresh } = advanceOfferCursor(cursor, offers, queryKey(qs), Date.now());
	saveCursor(staticData, 'offers', next);
	return fresh.length ? fresh.map(toItem) : null;
}

/** "Fetch Test Event": the offer the API lists last (the newest where the list is in creation order). */
export async function sampleOffer(
	context: IPollFunctions,
	label: string,
	qs: IDataObject,
): Promise<IDataObject[] | null> {
	const offers = await getList(context, label, OFFERS_PATH, qs);
	return offers.length ? [toItem(offers[offers.length - 1])] : null;
}

/** The list has no timestamps and no paging, so offers are diffed by ID against the cursor. */
export function advanceOfferCursor(
	cursor: OfferCursor | null,
	offers: IDataObject[],
	query: string,
	now: number,
): { next: OfferCursor; fresh: IDataObject[] } {
	const baseline = !cursor || cursor.query !== query;
	const seen: Record<string, number> = {};
	for (const [id, lastListed] of Object.entries(baseline ? {} : cursor.seen)) {
		if (lastListed >= now - OFFER_MEMORY_MS) seen[id] = lastListed;
	}
	const fresh: IDataObject[] = [];
	for (const offer of offers) {
		const id = String(offer.id);
		if (!baseline && !(id in seen)) fresh.push(offer);
		seen[id] = now;
	}
	return { next: { version: CURSOR_VERSION, query, seen }, fresh };
}

function toItem(offer: IDataObject): IDataObject {
	return { ...offer, event: 'newOffer' };
}

/**
 * The filters a cursor was collected with. Any collateral, which the node asks for unless told
 * otherwise, is left out, so cursors saved before it was asked for stay valid.
 */
function queryKey(qs: IDataObject): string {
	const keys = Object.keys(qs).filter(
		(key) => !(key === 'collateral_asset_type' && qs[key] === ANY_COLLATERAL),
	);
	return JSON.stringify(keys.sort().map((key) => [key, qs[key]]));
}

function isOfferCursor(value: IDataObject): boolean {
	return (
		typeof value.query === 'string' && isRecordOf(value.seen, (time) => typeof time === 'number')
	);
}
