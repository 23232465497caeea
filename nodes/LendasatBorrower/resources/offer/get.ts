import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { simplifyField } from '../../descriptions/fields';
import { ANY_COLLATERAL, loanOfferModes } from '../../methods/offerPicker';
import { requireText } from '../../validation/parameters';
import { apiRoute } from '../../transport/apiRoute';
import { checkUuid } from '../../validation/checks';
import { simplifyOffers } from './simplify';

const showOnlyForOfferGet = { show: { resource: ['offer'], operation: ['get'] } };

export const offerGetOperation: INodePropertyOptions = {
	name: 'Get',
	value: 'get',
	action: 'Get a loan offer',
	description: 'Get one loan offer by its ID',
	routing: apiRoute(
		{
			label: 'Offer → Get',
			toolDescription:
				'Get a loan offer: its amount and duration ranges, interest rate, loan asset, collateral and lender',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'offerId', label: 'loan offer' },
		},
		// The preSend appends the offer ID once it is validated.
		{ method: 'GET', url: '/api/offers' },
		{ prepare: [addOfferToRequest], finish: [simplifyOffers] },
	),
};

export const offerGetFields: INodeProperties[] = [
	{
		displayName: 'Loan Offer',
		name: 'offerId',
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		description: 'The loan offer to get',
		displayOptions: showOnlyForOfferGet,
		modes: loanOfferModes,
	},
	simplifyField(showOnlyForOfferGet.show),
];

/**
 * The API may apply the offer-list filters to this endpoint too, with their defaults (Direct
 * payout, Bitcoin collateral): without them an Indirect or Arkade offer could be "not found".
 */
async function addOfferToRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const offerId = requireText(
		this,
		'Loan Offer',
		this.getNodeParameter('offerId', '', { extractValue: true }),
		checkUuid,
	);
	requestOptions.url = `/api/offers/${encodeURIComponent(offerId)}`;
	requestOptions.qs = {
		...requestOptions.qs,
		loan_type: 'All',
		collateral_asset_type: ANY_COLLATERAL,
	};
	return requestOptions;
}
