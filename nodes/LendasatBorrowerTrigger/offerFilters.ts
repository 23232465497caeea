import {
	NodeOperationError,
	UnexpectedError,
	type IDataObject,
	type INode,
	type INodeProperties,
} from 'n8n-workflow';

import { offerGetAllFields } from '../LendasatBorrower/resources/offer/getAll';
import {
	checkPositiveAmount,
	checkWholeDays,
	describeValue,
	toNumber,
	type ValidationProblem,
} from '../LendasatBorrower/shared/validation';
import { listOf } from './parameters';

/**
 * The loan offer filters of Offer → Get Many, shown for the New Loan Offer event: the same
 * parameter, so both read the same filters the same way.
 */
export function offerFiltersParameter(show: NonNullable<INodeProperties['displayOptions']>['show']): INodeProperties {
	const filters = offerGetAllFields.find((field) => field.name === 'filters');
	if (!filters) throw new UnexpectedError('Offer → Get Many has no Filters parameter to share');
	return { ...filters, displayOptions: { show } };
}

interface OfferFilters {
	assetType?: unknown;
	durationDays?: unknown;
	kyc?: unknown;
	loanAssets?: unknown;
	loanType?: unknown;
	maxInterestRate?: unknown;
	minLoanAmount?: unknown;
}

/**
 * The query of GET /api/offers for the chosen filters, as Offer → Get Many sends it; a bad value
 * stops the poll with a message naming the filter.
 */
export function offerQuery(node: INode, filters: OfferFilters): IDataObject {
	const qs: IDataObject = {};
	const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
	if (text(filters.loanType)) qs.loan_type = text(filters.loanType);
	if (text(filters.assetType)) qs.asset_type = text(filters.assetType);
	if (text(filters.kyc)) qs.kyc = text(filters.kyc);
	const assets = listOf(filters.loanAssets);
	if (assets.length) qs.loan_assets = assets.join(',');
	if (filters.minLoanAmount !== undefined) {
		qs.min_loan_amount = checked(node, 'Loan Amount', filters.minLoanAmount, checkPositiveAmount);
	}
	if (filters.maxInterestRate !== undefined) {
		qs.max_interest_rate = checked(node, 'Max Interest Rate', filters.maxInterestRate, checkRate);
	}
	if (filters.durationDays !== undefined) {
		qs.duration_min = checked(node, 'Duration (Days)', filters.durationDays, checkWholeDays);
	}
	return qs;
}

function checked(node: INode, displayName: string, value: unknown, check: (value: unknown) => ValidationProblem): number {
	const problem = check(value);
	if (problem) {
		throw new NodeOperationError(node, `Invalid filter ${displayName}`, { description: `${displayName}: ${problem}` });
	}
	return toNumber(value);
}

function checkRate(value: unknown): ValidationProblem {
	const rate = toNumber(value);
	if (!Number.isFinite(rate)) return `Expected a yearly rate as a decimal like 0.12, got ${describeValue(value)}.`;
	if (rate < 0) return `Must not be negative, got ${describeValue(value)}.`;
	if (rate > 1) return `Enter the rate as a decimal: 0.12 means 12 %, got ${describeValue(value)}.`;
	return null;
}
