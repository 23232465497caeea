import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { returnAllAndLimit, simplifyField } from '../../shared/fields';
import { isRecord, notAnOfferList } from '../../shared/offerPicker';
import { invalidParameter, requireValid } from '../../shared/parameters';
import { apiRoute } from '../../shared/transport';
import {
	checkPositiveAmount,
	checkWholeDays,
	describeValue,
	toNumber,
	type ValidationProblem,
} from '../../shared/validation';
import { simplifyOffers } from './simplify';

const showOnlyForOfferGetAll = { show: { resource: ['offer'], operation: ['getAll'] } };

export const offerGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many loan offers',
	description: 'List the loan offers available to the borrower, optionally filtered',
	routing: apiRoute(
		{ resource: 'offer', operation: 'getAll', label: 'Offer → Get Many', keyType: 'borrower' },
		{ method: 'GET', url: '/api/offers' },
		{ preSend: [addOfferFilters], postReceive: [splitOfferList, keepLimit, simplifyOffers] },
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

/** Reads the filters into the live API's query parameters, refusing bad numbers before sending. */
async function addOfferFilters(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	if (!this.getNodeParameter('returnAll', false)) {
		requireValid(this, 'Limit', this.getNodeParameter('limit', 50), checkLimit);
	}
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const query: IDataObject = {};
	if (filters.loanType !== undefined) query.loan_type = requireChoice(this, 'Loan Type', filters.loanType);
	if (filters.assetType !== undefined) query.asset_type = requireChoice(this, 'Asset Type', filters.assetType);
	if (filters.kyc !== undefined) query.kyc = requireChoice(this, 'KYC', filters.kyc);
	if (filters.loanAssets !== undefined) {
		const assets = loanAssetList(this, filters.loanAssets);
		if (assets) query.loan_assets = assets;
	}
	if (filters.minLoanAmount !== undefined) {
		query.min_loan_amount = toNumber(requireValid(this, 'Loan Amount', filters.minLoanAmount, checkPositiveAmount));
	}
	if (filters.maxInterestRate !== undefined) {
		query.max_interest_rate = toNumber(
			requireValid(this, 'Max Interest Rate', filters.maxInterestRate, checkInterestRate),
		);
	}
	if (filters.durationDays !== undefined) {
		query.duration_min = toNumber(requireValid(this, 'Duration (Days)', filters.durationDays, checkWholeDays));
	}
	requestOptions.qs = { ...requestOptions.qs, ...query };
	return requestOptions;
}

/** Option values are sent as chosen (an expression may name a value this node does not list yet). */
function requireChoice(context: IExecuteSingleFunctions, displayName: string, value: unknown): string {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	throw invalidParameter(context, displayName, `Expected one of the listed values, got ${describeValue(value)}.`);
}

/** The chosen assets comma-joined; an expression may also give a comma-separated text. */
function loanAssetList(context: IExecuteSingleFunctions, value: unknown): string {
	const assets = typeof value === 'string' ? value.split(',') : value;
	if (!Array.isArray(assets) || !assets.every((asset) => typeof asset === 'string')) {
		throw invalidParameter(
			context,
			'Loan Assets',
			`Expected a list of loan assets like ["UsdcPol", "UsdtEth"], got ${describeValue(value)}.`,
		);
	}
	return assets
		.map((asset) => asset.trim())
		.filter(Boolean)
		.join(',');
}

function checkInterestRate(value: unknown): ValidationProblem {
	const rate = toNumber(value);
	const example = 'a yearly rate as a decimal like 0.12 (12%)';
	if (Number.isNaN(rate)) return `Expected ${example}, got ${describeValue(value)}.`;
	if (rate < 0) return `Must not be negative, got ${describeValue(value)}.`;
	if (rate > 1) return `${describeValue(value)} is more than 1: enter the yearly rate as a decimal, e.g. 0.12 for 12%.`;
	return null;
}

function checkLimit(value: unknown): ValidationProblem {
	const limit = toNumber(value);
	if (Number.isInteger(limit) && limit >= 1) return null;
	return `Must be a whole number of at least 1, like 50, got ${describeValue(value)}.`;
}

/** GET /api/offers answers with a plain array (no pagination envelope): one item per offer. */
async function splitOfferList(
	this: IExecuteSingleFunctions,
	_items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	const body: unknown = response.body;
	if (!Array.isArray(body)) throw notAnOfferList(this.getNode(), 'Offer → Get Many', response, []);
	return body.map((offer: unknown) => ({ json: isRecord(offer) ? offer : ({ value: offer } as IDataObject) }));
}

/** The endpoint has no paging: the Limit is applied to the full answer. */
async function keepLimit(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if (this.getNodeParameter('returnAll', false)) return items;
	return items.slice(0, toNumber(this.getNodeParameter('limit', 50)));
}
