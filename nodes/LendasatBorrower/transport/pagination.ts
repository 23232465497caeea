import {
	NodeOperationError,
	type IDataObject,
	type IExecuteSingleFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { readLimit } from '../descriptions/fields';
import type { ApiClient, OperationRequest } from './apiRoute';
import { isRecord } from '../validation/checks';

/** The API's largest page (GET /api/contracts and /api/notifications take limit 1–100). */
export const MAX_PAGE_SIZE = 100;

/**
 * The most pages one walk reads (Get Many's and the trigger's): 100,000 records, far beyond any real
 * backlog between two polls. A server that never ends is stopped here.
 */
export const MAX_PAGES = 1000;

/** The records of a walk over the pages, and what the server said of their number. */
export interface Walked {
	items: INodeExecutionData[];
	/** How many records the server said there are, when it said so. */
	total?: number;
	/** How many records the Limit asked for: Infinity for Return All. */
	wanted: number;
}

/** The ID of a record of a page: contracts carry `id`, notifications `data.id`. */
export function recordIdOf(record: IDataObject): unknown {
	return record.id ?? (isRecord(record.data) ? record.data.id : undefined);
}

/**
 * Get Many over the API's page/limit pagination (`{data, page, limit, total, total_pages}`), one
 * item per record, each page through the transport. It stops at a short page, at the server's last
 * page or at the Limit (`wanted`: the operation's Return All and Limit unless it reads every record
 * anyway), and skips records already seen (IDs compared without case) when new ones shift the pages while it walks them. Every
 * walk ends: a page without record IDs, a page that brings nothing new and more pages than
 * MAX_PAGES are errors, never a loop and never a silent partial list.
 */
export async function walkPages(
	context: IExecuteSingleFunctions,
	api: ApiClient,
	request: OperationRequest,
	label: string,
	wanted: number = wantedByLimit(context),
): Promise<Walked> {
	const pageSize = Math.min(MAX_PAGE_SIZE, wanted);
	const items: INodeExecutionData[] = [];
	const seen = new Set<string>();
	let total: number | undefined;

	for (let page = 1; items.length < wanted; page++) {
		if (page > MAX_PAGES)
			throw walkError(
				context,
				label,
				`it had read ${MAX_PAGES} pages and the server still offered more`,
			);
		const envelope = (await api.send(
			{ ...request, qs: { ...request.qs, page, limit: pageSize } },
			'page',
		)) as IDataObject;
		const records = envelope.data as IDataObject[];
		// The count when the walk began: contracts created meanwhile shift the pages but take nothing away.
		if (total === undefined && typeof envelope.total === 'number') total = envelope.total;
		let fresh = 0;
		for (const record of records) {
			const id = recordIdOf(record);
			if (id === undefined || id === null)
				throw walkError(context, label, `page ${page} holds records without an id`);
			// A UUID in capitals is the same record (Lendasat compares IDs without case).
			const key = String(id).toLowerCase();
			if (seen.has(key)) continue;
			seen.add(key);
			items.push({ json: record });
			fresh++;
		}
		if (records.length > 0 && fresh === 0) {
			throw walkError(
				context,
				label,
				`page ${page} repeated records it had already sent: it seems to ignore the page asked for`,
			);
		}
		const lastPage = typeof envelope.total_pages === 'number' && page >= envelope.total_pages;
		if (records.length < pageSize || lastPage) break;
	}
	return { items: items.slice(0, wanted), total, wanted };
}

/** Return All as Infinity, or the Limit. */
function wantedByLimit(context: IExecuteSingleFunctions): number {
	const { returnAll, limit } = readLimit(context);
	return returnAll ? Infinity : limit;
}

function walkError(
	context: IExecuteSingleFunctions,
	label: string,
	problem: string,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), 'Lendasat sent pages the node cannot walk', {
		itemIndex: context.getItemIndex(),
		description: `${label}: the walk over the pages stopped because ${problem}. Nothing was output, so that no list is silently incomplete; check the credential's base URL.`,
	});
}

/**
 * Return All (or a Limit above what came back) must not end with fewer records than the server
 * counts: a server whose pages lose records (Lendasat's notifications) or lie about their number.
 */
export function requireComplete(
	context: IExecuteSingleFunctions,
	what: { label: string; records: string },
	walked: Walked,
	advice: string,
): INodeExecutionData[] {
	const { items, total, wanted } = walked;
	const { label, records } = what;
	if (total === undefined || items.length >= Math.min(total, wanted)) return items;
	throw new NodeOperationError(
		context.getNode(),
		`Lendasat returned ${items.length} of ${total} ${records}`,
		{
			itemIndex: context.getItemIndex(),
			description: `${label}: the server counted ${total}, but its pages ended after ${items.length}, so the list would be incomplete. ${advice}`,
		},
	);
}
