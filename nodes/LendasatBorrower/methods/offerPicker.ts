import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { uuidLocatorModes } from '../descriptions/fields';
import { formatMoney, getPickerList, searchResults, type ListPicker } from './listSearch';
import { isRecord } from '../validation/checks';

/** The API's collateral_asset_type for offers of every collateral (Bitcoin on-chain and Arkade). */
export const ANY_COLLATERAL = 'Any';

const LOAN_OFFER_LIST: ListPicker = { label: 'Loan Offer list', idName: 'offer ID' };

/** The two ways to name a loan offer, shared by every parameter that takes one. */
export const loanOfferModes = uuidLocatorModes(
	{ placeholder: 'Select a loan offer...', searchListMethod: 'searchLoanOffers' },
	'loan offer',
	'0b7a5f4e-3a49-4c43-9d7e-2f1c7f0c9a11',
);

/**
 * The listSearch method behind "From List": every offer the key can see (all loan types and
 * collateral assets, not only the API's default Direct, Bitcoin-collateral ones), narrowed by the
 * search text, cheapest interest first.
 */
export async function searchLoanOffers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const offers = (
		(await getPickerList(
			this,
			LOAN_OFFER_LIST,
			{ path: '/api/offers', qs: { loan_type: 'All', collateral_asset_type: ANY_COLLATERAL } },
			'list',
		)) as IDataObject[]
	).sort(byInterestRate);
	const searched = (offer: IDataObject) => [
		offer.loan_asset,
		lenderNameOf(offer),
		offer.name,
		offer.id,
		collateralName(offer.collateral_asset),
		offer.loan_payout,
	];
	return { results: searchResults(offers, filter, searched, describeOffer) };
}

function byInterestRate(a: IDataObject, b: IDataObject): number {
	const rateA = typeof a.interest_rate === 'number' ? a.interest_rate : Infinity;
	const rateB = typeof b.interest_rate === 'number' ? b.interest_rate : Infinity;
	if (rateA !== rateB) return rateA < rateB ? -1 : 1;
	return String(a.id).localeCompare(String(b.id));
}

/** The lender's name from the offer's nested `lender` record, if the server sent one. */
export function lenderNameOf(offer: IDataObject): string | undefined {
	const lender = offer.lender;
	return isRecord(lender) && typeof lender.name === 'string' ? lender.name : undefined;
}

/**
 * What a borrower compares, in one line:
 * `UsdcPol · $100–$10,000 · 7–365 days · 12.0% · Northwind Lending · BTC collateral · Direct payout`,
 * plus "KYC" when required.
 */
export function describeOffer(offer: IDataObject): string {
	return [
		typeof offer.loan_asset === 'string' ? offer.loan_asset : 'Unknown asset',
		range(offer.loan_amount_min, offer.loan_amount_max, (amount) =>
			formatMoney(offer.loan_asset, amount),
		),
		`${range(offer.duration_days_min, offer.duration_days_max, String)} days`,
		typeof offer.interest_rate === 'number' ? `${(offer.interest_rate * 100).toFixed(1)}%` : '?%',
		lenderNameOf(offer),
		offer.collateral_asset === undefined
			? undefined
			: `${collateralName(offer.collateral_asset)} collateral`,
		typeof offer.loan_payout === 'string' ? `${offer.loan_payout} payout` : undefined,
		offer.kyc_link ? 'KYC' : undefined,
	]
		.filter((part): part is string => Boolean(part))
		.join(' · ');
}

/** "BTC" for on-chain Bitcoin, "Arkade" for Bitcoin on Arkade, other values as sent. */
function collateralName(asset: unknown): string | undefined {
	if (asset === 'BitcoinBtc') return 'BTC';
	if (asset === 'ArkadeBtc') return 'Arkade';
	return typeof asset === 'string' ? asset : undefined;
}

function range(min: unknown, max: unknown, format: (value: number) => string): string {
	const low = typeof min === 'number' ? format(min) : '?';
	const high = typeof max === 'number' ? format(max) : '?';
	return low === high ? low : `${low}–${high}`;
}
