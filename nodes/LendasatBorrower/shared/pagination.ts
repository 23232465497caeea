import type {
	DeclarativeRestApiSettings,
	IExecutePaginationFunctions,
	INodeExecutionData,
} from 'n8n-workflow';

import { sendRequest } from './transport';
import { isRecord } from './validation';

/** The API's largest page (GET /api/contracts and /api/notifications take limit 1–100). */
export const MAX_PAGE_SIZE = 100;

/** The records of a walk over the pages, and what the server said of their number. */
export interface Walked {
	items: INodeExecutionData[];
	/** How many records the server said there are, when it said so. */
	total?: number;
	/** How many records the Limit asked for: Infinity for Return All. */
	wanted: number;
}

/**
 * Get Many over the API's page/limit pagination (`{data, page, limit, total, total_pages}`), one
 * item per record. Each page goes through the retrying transport. It stops at a short page, at the
 * server's last page or at the Limit, and skips records already seen when new ones shift the pages
 * while it walks them.
 */
export async function walkPages(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<Walked> {
	const returnAll = this.getNodeParameter('returnAll', false) as boolean;
	const limit = returnAll ? Infinity : Math.max(1, Number(this.getNodeParameter('limit', 50)));
	const pageSize = Math.min(MAX_PAGE_SIZE, limit);
	const items: INodeExecutionData[] = [];
	const seen = new Set<unknown>();
	let total: number | undefined;

	for (let page = 1; items.length < limit; page++) {
		const pageRequest = {
			...requestData,
			options: { ...requestData.options, qs: { ...requestData.options.qs, page, limit: pageSize } },
		};
		const [answer] = await sendRequest.call(this, pageRequest);
		const envelope = answer?.json ?? {};
		const records = Array.isArray(envelope.data) ? envelope.data.filter(isRecord) : [];
		if (typeof envelope.total === 'number') total = envelope.total;
		for (const record of records) {
			const id = record.id ?? (isRecord(record.data) ? record.data.id : undefined);
			if (id !== undefined && seen.has(id)) continue;
			if (id !== undefined) seen.add(id);
			items.push({ json: record });
		}
		const lastPage = typeof envelope.total_pages === 'number' && page >= envelope.total_pages;
		if (records.length < pageSize || lastPage) break;
	}
	return { items: items.slice(0, limit), total, wanted: limit };
}
