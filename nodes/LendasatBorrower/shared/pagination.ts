import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	INodeExecutionData,
} from 'n8n-workflow';

import { asRequestOperation, sendRequest } from './transport';

/** The API's largest page (GET /api/contracts and /api/notifications take limit 1–100). */
export const MAX_PAGE_SIZE = 100;

/**
 * Get Many over the API's page/limit pagination (`{data, page, limit, total, total_pages}`,
 * unwrapped to one item per record by the operation's `rootProperty: 'data'`). Each page goes
 * through the retrying transport. It stops at a short page or at the Limit, and skips records
 * already seen when new ones shift the pages while it walks them.
 */
export const paginatePages = asRequestOperation(walkPages);

export async function walkPages(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', false) as boolean;
	const limit = returnAll ? Infinity : Math.max(1, Number(this.getNodeParameter('limit', 50)));
	const pageSize = Math.min(MAX_PAGE_SIZE, limit);
	const results: INodeExecutionData[] = [];
	const seen = new Set<unknown>();

	for (let page = 1; results.length < limit; page++) {
		const pageRequest = {
			...requestData,
			options: { ...requestData.options, qs: { ...requestData.options.qs, page, limit: pageSize } },
		};
		const items = await sendRequest.call(this, pageRequest);
		for (const item of items) {
			const id = (item.json as IDataObject).id ?? (item.json.data as IDataObject | undefined)?.id;
			if (id !== undefined && seen.has(id)) continue;
			if (id !== undefined) seen.add(id);
			results.push(item);
		}
		if (items.length < pageSize) break;
	}
	return results.slice(0, limit);
}
