import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { ANY_COLLATERAL } from '../methods/offerPicker';
import type { Check } from '../validation/parameters';
import {
	checkInterestRate,
	checkPositiveAmount,
	checkWholeDays,
	describeValue,
	toNumber,
} from '../validation/checks';
import { LOAN_ASSET_OPTIONS } from './loanTerms';

/** A filter that cannot be sent: its display name and what is wrong with its value. */
export interface FilterProblem {
	field: string;
	problem: string;
}

type Reading = { value: string | number } | { problem: string };

interface OfferFilter {
	/** The key in the Filters collection. */
	name: string;
	field: string;
	/** The query parameter of GET /api/offers. */
	query: string;
	read: (value: unknown) => Reading;
}

/**
 * The query of GET /api/offers for the Filters of Offer → Get Many and Get by Lender (the trigger's
 * New Loan Offer event shares the parameter), or the first filter whose value cannot be sent. `checkRate` lets the
 * trigger keep its own wording of a bad Max Interest Rate.
 */
export function offerFilterQuery(
	filters: IDataObject,
	checkRate: Check = checkInterestRate,
): { qs: IDataObject } | { error: FilterProblem } {
	// The API lists only Bitcoin-collateral offers unless asked; Lendasat's own app asks for Any.
	const qs: IDataObject = { collateral_asset_type: ANY_COLLATERAL };
	for (const { name, field, query, read } of offerFilters(checkRate)) {
		if (filters[name] === undefined) continue;
		const reading = read(filters[name]);
		if ('problem' in reading) return { error: { field, problem: reading.problem } };
		if (reading.value !== '') qs[query] = reading.value;
	}
	return { qs };
}

function offerFilters(checkRate: Check): OfferFilter[] {
	return [
		{ name: 'loanType', field: 'Loan Type', query: 'loan_type', read: readChoice },
		{ name: 'assetType', field: 'Asset Type', query: 'asset_type', read: readChoice },
		{
			name: 'collateralAsset',
			field: 'Collateral Asset',
			query: 'collateral_asset_type',
			read: readChoice,
		},
		{ name: 'kyc', field: 'KYC', query: 'kyc', read: readChoice },
		{ name: 'loanAssets', field: 'Loan Assets', query: 'loan_assets', read: readAssetList },
		{
			name: 'minLoanAmount',
			field: 'Loan Amount',
			query: 'min_loan_amount',
			read: numberChecked(checkPositiveAmount),
		},
		{
			name: 'maxInterestRate',
			field: 'Max Interest Rate',
			query: 'max_interest_rate',
			read: numberChecked(checkRate),
		},
		{
			name: 'durationDays',
			field: 'Duration (Days)',
			query: 'duration_min',
			read: numberChecked(checkWholeDays),
		},
		{
			name: 'maxLoanAmount',
			field: 'Max Loan Amount',
			query: 'max_loan_amount',
			read: numberChecked(checkPositiveAmount),
		},
		{
			name: 'maxDurationDays',
			field: 'Max Duration (Days)',
			query: 'duration_max',
			read: numberChecked(checkWholeDays),
		},
	];
}

/** Option values are sent as chosen (an expression may name a value this node does not list yet). */
function readChoice(value: unknown): Reading {
	if (typeof value === 'string' && value.trim() !== '') return { value: value.trim() };
	return { problem: `Expected one of the listed values, got ${describeValue(value)}.` };
}

/** The chosen assets comma-joined; an expression may also give a comma-separated text. */
function readAssetList(value: unknown): Reading {
	const assets = typeof value === 'string' ? value.split(',') : value;
	if (!Array.isArray(assets) || !assets.every((asset) => typeof asset === 'string')) {
		return {
			problem: `Expected a list of loan assets like ["UsdcPol", "UsdtEth"], got ${describeValue(value)}.`,
		};
	}
	return {
		value: assets
			.map((asset) => asset.trim())
			.filter(Boolean)
			.join(','),
	};
}

function numberChecked(check: Check): (value: unknown) => Reading {
	return (value) => {
		const problem = check(value);
		return problem ? { problem } : { value: toNumber(value) };
	};
}

/**
 * The Filters collection of Offer → Get Many and Get by Lender, also shown for the trigger's New Loan
 * Offer event.
 */
export function offerFiltersField(
	show: NonNullable<INodeProperties['displayOptions']>['show'],
): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Asset Type',
				name: 'assetType',
				type: 'options',
				options: [
					{ name: 'All', value: 'all', description: 'Stablecoin and fiat offers' },
					{
						name: 'Fiat',
						value: 'fiat',
						description: 'Offers paid out by bank transfer (USD, EUR, CHF, MXN)',
					},
					{
						name: 'Stablecoins',
						value: 'stable_coins',
						description: 'Offers paid out in USDC or USDT',
					},
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
					{
						name: 'Arkade',
						value: 'Arkade',
						description: 'Offers taking Bitcoin on Arkade (ArkadeBtc)',
					},
					{
						name: 'Bitcoin',
						value: 'Bitcoin',
						description: 'Offers taking on-chain Bitcoin (BitcoinBtc)',
					},
				],
				default: 'Any',
				description:
					'Which collateral the offers take. Without this filter offers of any collateral are listed.',
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
					{
						name: 'All',
						value: 'all',
						description: 'Offers with and without identity verification',
					},
					{
						name: 'No KYC',
						value: 'no_kyc',
						description: 'Only offers that need no identity verification',
					},
					{
						name: 'With KYC',
						value: 'with_kyc',
						description: 'Only offers that need identity verification',
					},
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
				options: LOAN_ASSET_OPTIONS,
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
						description:
							'Offers paid out directly by the lender; the API lists only these when no loan type is given',
					},
					{
						name: 'Indirect',
						value: 'Indirect',
						description: 'Offers paid out through a partner service',
					},
					{
						name: 'Moon Card Instant',
						value: 'MoonCardInstant',
						description: 'Offers that top up a Moon card instantly',
					},
				],
				default: 'Direct',
				description:
					'Which kind of payout to list. Without this filter the API lists only Direct offers.',
			},
			{
				displayName: 'Max Duration (Days)',
				name: 'maxDurationDays',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: 365,
				description:
					'Sent as duration_max, the schema\'s "maximum duration in days". Lendasat\'s backend 0.8.2 ignores it; whether a newer one applies it, and how, is not published.',
			},
			{
				displayName: 'Max Interest Rate',
				name: 'maxInterestRate',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 4 },
				default: 0.12,
				description:
					'Only offers with at most this yearly interest rate, as a decimal: 0.12 means 12%',
			},
			{
				displayName: 'Max Loan Amount',
				name: 'maxLoanAmount',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: 10000,
				description:
					"Sent as max_loan_amount, the schema's \"maximum loan amount\", in the offer's loan asset. Lendasat's backend 0.8.2 ignores it; whether a newer one applies it, and how, is not published.",
			},
		],
	};
}
