import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { applyLimitToList } from '../../descriptions/fields';
import { apiRoute } from '../../transport/apiRoute';
import { requireIssuedId } from '../../validation/parameters';
import { addOfferFilters } from './getAll';
import { simplifyOffers } from './simplify';

export const offerGetByLenderOperation: INodePropertyOptions = {
	name: 'Get by Lender',
	value: 'getByLender',
	action: "Get a lender's loan offers",
	description:
		"List the loan offers of one lender (the ID in an offer's or a contract's lender record), with the same filters as Get Many",
	routing: apiRoute(
		{
			label: 'Offer → Get by Lender',
			toolDescription:
				"Get a lender's loan offers: every offer one lender makes, optionally filtered by amount, duration, asset or rate",
			// Lendasat serves this list without a key (routes/borrower/loan_offers.rs registers it after
			// the auth layer), so the credential's key, sent as always, may be of either type.
			keyType: 'any',
			expects: 'list',
			notFound: { parameter: 'lenderId', label: 'lender' },
		},
		// The preSend puts the checked lender ID into the path.
		{ method: 'GET', url: '/api/offers/by-lender' },
		{ prepare: [addOfferFilters, toLender], finish: [applyLimitToList, simplifyOffers] },
	),
};

export const offerGetByLenderFields: INodeProperties[] = [
	{
		displayName: 'Lender ID',
		name: 'lenderId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1e000000-0000-4000-8000-000000000001',
		description:
			'The lender whose offers to list: the ID in the lender record of one of its offers (Offer → Get with Simplify off) or of a contract',
		displayOptions: { show: { resource: ['offer'], operation: ['getByLender'] } },
	},
];

async function toLender(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const lenderId = requireIssuedId(this, 'Lender ID', this.getNodeParameter('lenderId'));
	return { ...request, url: `/api/offers/by-lender/${encodeURIComponent(lenderId)}` };
}
