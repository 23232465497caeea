import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import {
	applyLimitToList,
	readLimit,
	returnAllAndLimit,
	simplifyField,
} from '../../descriptions/fields';
import { invalidParameter } from '../../validation/parameters';
import { apiRoute } from '../../transport/apiRoute';
import { offerFilterQuery, offerFiltersField } from '../../descriptions/offerFilters';
import { simplifyOffers } from './simplify';

/** Get Many and Get by Lender list offers alike: the same Return All, Limit, Filters and Simplify. */
const showForOfferLists = { resource: ['offer'], operation: ['getAll', 'getByLender'] };

export const offerGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many loan offers',
	description: 'List the loan offers available to the borrower, optionally filtered',
	routing: apiRoute(
		{
			label: 'Offer → Get Many',
			toolDescription:
				'Get many loan offers: what lenders offer, optionally filtered by amount, duration, asset or rate',
			keyType: 'borrower',
			expects: 'list',
		},
		{ method: 'GET', url: '/api/offers' },
		{ prepare: [addOfferFilters], finish: [applyLimitToList, simplifyOffers] },
	),
};

export const offerListFields: INodeProperties[] = [
	...returnAllAndLimit(showForOfferLists),
	offerFiltersField(showForOfferLists),
	simplifyField(showForOfferLists),
];

/** Reads the filters into the live API's query parameters, refusing bad values before sending. */
export async function addOfferFilters(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	readLimit(this);
	const query = offerFilterQuery(this.getNodeParameter('filters', {}) as IDataObject);
	if ('error' in query) throw invalidParameter(this, query.error.field, query.error.problem);
	requestOptions.qs = { ...requestOptions.qs, ...query.qs };
	return requestOptions;
}
