import {
	NodeOperationError,
	UnexpectedError,
	type IDataObject,
	type INode,
	type INodeProperties,
} from 'n8n-workflow';

import { offerFilterQuery } from '../LendasatBorrower/resources/offer/filterQuery';
import { offerGetAllFields } from '../LendasatBorrower/resources/offer/getAll';
import { describeValue, toNumber, type ValidationProblem } from '../LendasatBorrower/shared/validation';

/**
 * The loan offer filters of Offer → Get Many, shown for the New Loan Offer event: the same
 * parameter, so both read the same filters the same way.
 */
export function offerFiltersParameter(show: NonNullable<INodeProperties['displayOptions']>['show']): INodeProperties {
	const filters = offerGetAllFields.find((field) => field.name === 'filters');
	if (!filters) throw new UnexpectedError('Offer → Get Many has no Filters parameter to share');
	return { ...filters, displayOptions: { show } };
}

/**
 * The query of GET /api/offers for the chosen filters, as Offer → Get Many sends it; a bad value
 * stops the poll with a message naming the filter.
 */
export function offerQuery(node: INode, filters: IDataObject): IDataObject {
	const query = offerFilterQuery(filters, checkRate);
	if ('error' in query) {
		const { field, problem } = query.error;
		throw new NodeOperationError(node, `Invalid filter ${field}`, { description: `${field}: ${problem}` });
	}
	return query.qs;
}

function checkRate(value: unknown): ValidationProblem {
	const rate = toNumber(value);
	if (!Number.isFinite(rate)) return `Expected a yearly rate as a decimal like 0.12, got ${describeValue(value)}.`;
	if (rate < 0) return `Must not be negative, got ${describeValue(value)}.`;
	if (rate > 1) return `Enter the rate as a decimal: 0.12 means 12 %, got ${describeValue(value)}.`;
	return null;
}
