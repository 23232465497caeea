import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { offerFilterQuery } from '../descriptions/offerFilters';
import { describeValue, toNumber, type ValidationProblem } from '../validation/checks';

/**
 * The query of GET /api/offers for the chosen filters, as Offer → Get Many sends it; a bad value
 * stops the poll with a message naming the filter.
 */
export function offerQuery(node: INode, filters: IDataObject): IDataObject {
	const query = offerFilterQuery(filters, checkRate);
	if ('error' in query) {
		const { field, problem } = query.error;
		throw new NodeOperationError(node, `Invalid filter ${field}`, {
			description: `${field}: ${problem}`,
		});
	}
	return query.qs;
}

function checkRate(value: unknown): ValidationProblem {
	const rate = toNumber(value);
	if (!Number.isFinite(rate))
		return `Expected a yearly rate as a decimal like 0.12, got ${describeValue(value)}.`;
	if (rate < 0) return `Must not be negative, got ${describeValue(value)}.`;
	if (rate > 1) return `Enter the rate as a decimal: 0.12 means 12 %, got ${describeValue(value)}.`;
	return null;
}
