import type { IDataObject } from 'n8n-workflow';

import { ANY_COLLATERAL } from '../../shared/offerPicker';
import type { Check } from '../../shared/parameters';
import {
	checkPositiveAmount,
	checkWholeDays,
	describeValue,
	toNumber,
	type ValidationProblem,
} from '../../shared/validation';

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
 * The query of GET /api/offers for the Filters of Offer → Get Many (the trigger's New Loan Offer
 * event shares the parameter), or the first filter whose value cannot be sent. `checkRate` lets the
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
		{ name: 'collateralAsset', field: 'Collateral Asset', query: 'collateral_asset_type', read: readChoice },
		{ name: 'kyc', field: 'KYC', query: 'kyc', read: readChoice },
		{ name: 'loanAssets', field: 'Loan Assets', query: 'loan_assets', read: readAssetList },
		{ name: 'minLoanAmount', field: 'Loan Amount', query: 'min_loan_amount', read: numberChecked(checkPositiveAmount) },
		{ name: 'maxInterestRate', field: 'Max Interest Rate', query: 'max_interest_rate', read: numberChecked(checkRate) },
		{ name: 'durationDays', field: 'Duration (Days)', query: 'duration_min', read: numberChecked(checkWholeDays) },
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
		return { problem: `Expected a list of loan assets like ["UsdcPol", "UsdtEth"], got ${describeValue(value)}.` };
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

function checkInterestRate(value: unknown): ValidationProblem {
	const rate = toNumber(value);
	const example = 'a yearly rate as a decimal like 0.12 (12%)';
	if (Number.isNaN(rate)) return `Expected ${example}, got ${describeValue(value)}.`;
	if (rate < 0) return `Must not be negative, got ${describeValue(value)}.`;
	if (rate > 1) return `${describeValue(value)} is more than 1: enter the yearly rate as a decimal, e.g. 0.12 for 12%.`;
	return null;
}
