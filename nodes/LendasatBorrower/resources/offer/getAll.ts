import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { applyLimitToList, readLimit, returnAllAndLimit, simplifyField } from '../../shared/fields';
import { invalidParameter } from '../../shared/parameters';
import { apiRoute } from '../../shared/transport';
import { offerFilterQuery } from './filterQuery';
import { simplifyOffers } from './simplify';

const showOnlyForOfferGetAll = { show: { resource: ['offer'], operation: ['getAll'] } };

export const offerGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many loan offers: what lenders offer, optionally filtered by amount, duration, asset or rate',
	description: 'List the loan offers available to the borrower, optionally filtered',
	routing: apiRoute(
		{ resource: 'offer', operation: 'getAll', label: 'Offer → Get Many', keyType: 'borrower', expects: 'list' },
		{ method: 'GET', url: '/api/offers' },
		{ prepare: [addOfferFilters], finish: [applyLimitToList, simplifyOffers] },
	),
};

export const offerGetAllFields: INodeProperties[] = [
	...returnAllAndLimit(showOnlyForOfferGetAll.show),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: showOnlyForOfferGetAll,
		options: [
			{
				displayName: 'Asset Type',
				name: 'assetType',
				type: 'options',
				options: [
					{ name: 'All', value: 'all', description: 'Stablecoin and fiat offers' },
					{ name: 'Fiat', value: 'fiat', description: 'Offers paid out by bank transfer (USD, EUR, CHF, MXN)' },
					{ name: 'Stablecoins', value: 'stable_coins', description: 'Offers paid out in USDC or USDT' },
				],
				default: 'all',
				description: 'Whether to list stablecoin offers, fiat offers or both',
			},
			{
				displayName: 'Collateral Asset',
				name: 'collateralAsset',
				type: 'options',
				options: [
					{ name: 'Any', value: 'Any', description: 'Offers taking Bitcoin on-chain or on Arkade' },
					{ name: 'Arkade', value: 'Arkade', description: 'Offers taking Bitcoin on Arkade (ArkadeBtc)' },
					{ name: 'Bitcoin', value: 'Bitcoin', description: 'Offers taking on-chain Bitcoin (BitcoinBtc)' },
				],
				default: 'Any',
				description: 'Which collateral the offers take. Without this filter offers of any collateral are listed.',
			},
			{
				displayName: 'Duration (Days)',
				name: 'durationDays',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 30,
				description: 'Only offers whose duration range includes this many days',
			},
			{
				displayName: 'KYC',
				name: 'kyc',
				type: 'options',
				options: [
					{ name: 'All', value: 'all', description: 'Offers with and without identity verification' },
					{ name: 'No KYC', value: 'no_kyc', description: 'Only offers that need no identity verification' },
					{ name: 'With KYC', value: 'with_kyc', description: 'Only offers that need identity verification' },
				],
				default: 'all',
				description: 'Whether the lender asks for identity verification (KYC)',
			},
			{
				displayName: 'Loan Amount',
				name: 'minLoanAmount',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 1000,
				description:
					"Only offers that lend this amount, i.e. whose minimum–maximum range includes it, in the offer's loan asset.",
			},
			{
				displayName: 'Loan Assets',
				name: 'loanAssets',
				type: 'multiOptions',
				options: [
					{ name: 'CHF (Bank Transfer)', value: 'Chf' },
					{ name: 'EUR (Bank Transfer)', value: 'Eur' },
					{ name: 'MXN (Bank Transfer)', value: 'Mxn' },
					{ name: 'USD (Bank Transfer)', value: 'Usd' },
					{ name: 'USDC on Ethereum', value: 'UsdcEth' },
					{ name: 'USDC on Polygon', value: 'UsdcPol' },
					{ name: 'USDC on Solana', value: 'UsdcSol' },
					{ name: 'USDC on Starknet', value: 'UsdcStrk' },
					{ name: 'USDT on Ethereum', value: 'UsdtEth' },
					{ name: 'USDT on Liquid', value: 'UsdtLiquid' },
					{ name: 'USDT on Polygon', value: 'UsdtPol' },
					{ name: 'USDT on Solana', value: 'UsdtSol' },
					{ name: 'USDT on Starknet', value: 'UsdtStrk' },
				],
				default: [],
				description: 'Only offers in one of these assets',
			},
			{
				displayName: 'Loan Type',
				name: 'loanType',
				type: 'options',
				options: [
					{ name: 'All', value: 'All', description: 'Offers of every loan type' },
					{
						name: 'Direct',
						value: 'Direct',
						description: 'Offers paid out directly by the lender; the API lists only these when no loan type is given',
					},
					{ name: 'Indirect', value: 'Indirect', description: 'Offers paid out through a partner service' },
					{ name: 'Moon Card Instant', value: 'MoonCardInstant', description: 'Offers that top up a Moon card instantly' },
				],
				default: 'Direct',
				description: 'Which kind of payout to list. Without this filter the API lists only Direct offers.',
			},
			{
				displayName: 'Max Interest Rate',
				name: 'maxInterestRate',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 4 },
				default: 0.12,
				description: 'Only offers with at most this yearly interest rate, as a decimal: 0.12 means 12%',
			},
		],
	},
	simplifyField(showOnlyForOfferGetAll.show),
];

/** Reads the filters into the live API's query parameters, refusing bad values before sending. */
async function addOfferFilters(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	readLimit(this);
	const query = offerFilterQuery(this.getNodeParameter('filters', {}) as IDataObject);
	if ('error' in query) throw invalidParameter(this, query.error.field, query.error.problem);
	requestOptions.qs = { ...requestOptions.qs, ...query.qs };
	return requestOptions;
}


