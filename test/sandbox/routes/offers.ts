/** GET /api/offers and /api/offers/{id} with the live backend's filters (live-api §2.4). */
import { ApiError, badRequest, liveQueryRejection, shorten } from '../errors';
import { FIAT_ASSETS } from '../loans';
import { jsonReply, type RequestContext, type Route } from '../router';
import type { LoanOffer } from '../types';

const LOAN_TYPES = ['Direct', 'Indirect', 'MoonCardInstant', 'All'];
const ASSET_TYPES = ['fiat', 'stable_coins', 'all'];
const KYC_FILTERS = ['no_kyc', 'with_kyc', 'all'];

type OfferFilter = (offer: LoanOffer) => boolean;

function enumParam(query: Record<string, string>, name: string, allowed: string[], fallback: string): string {
	const value = query[name] ?? fallback;
	if (allowed.includes(value)) return value;
	throw badRequest(
		'INVALID_QUERY',
		`Parameter ${name} must be one of ${allowed.join(', ')}, got ${shorten(value)}`,
		liveQueryRejection(`${name}: unknown variant \`${shorten(value)}\``),
	);
}

function numberParam(query: Record<string, string>, name: string): number | undefined {
	const raw = query[name];
	if (raw === undefined || raw === '') return undefined;
	const value = Number(raw);
	if (Number.isFinite(value)) return value;
	throw badRequest(
		'INVALID_QUERY',
		`Parameter ${name} must be a number, got ${shorten(raw)}`,
		liveQueryRejection(`${name}: invalid number`),
	);
}

function assetTypeFilter(assetType: string): OfferFilter | null {
	if (assetType === 'fiat') return (offer) => FIAT_ASSETS.has(offer.loan_asset);
	if (assetType === 'stable_coins') return (offer) => !FIAT_ASSETS.has(offer.loan_asset);
	return null;
}

function kycFilter(kyc: string): OfferFilter | null {
	if (kyc === 'no_kyc') return (offer) => offer.kyc_link === null;
	if (kyc === 'with_kyc') return (offer) => offer.kyc_link !== null;
	return null;
}

/** The live `LoanOffersQuery`: loan_type defaults to Direct; max_loan_amount and duration_max are ignored. */
function parseOfferFilters(query: Record<string, string>): OfferFilter[] {
	const filters: (OfferFilter | null)[] = [(offer) => offer.status === 'Available'];
	const loanType = enumParam(query, 'loan_type', LOAN_TYPES, 'Direct');
	if (loanType !== 'All') filters.push((offer) => offer.loan_payout === loanType);
	filters.push(assetTypeFilter(enumParam(query, 'asset_type', ASSET_TYPES, 'all')));
	filters.push(kycFilter(enumParam(query, 'kyc', KYC_FILTERS, 'all')));
	const assets = (query.loan_assets ?? '').split(',').map((asset) => asset.trim()).filter(Boolean);
	if (assets.length > 0) filters.push((offer) => assets.includes(offer.loan_asset));
	const amount = numberParam(query, 'min_loan_amount');
	if (amount !== undefined) filters.push((offer) => offer.loan_amount_min <= amount && amount <= offer.loan_amount_max);
	const maxRate = numberParam(query, 'max_interest_rate');
	if (maxRate !== undefined) filters.push((offer) => offer.interest_rate <= maxRate);
	const duration = numberParam(query, 'duration_min');
	if (duration !== undefined) {
		filters.push((offer) => offer.duration_days_min <= duration && duration <= offer.duration_days_max);
	}
	return filters.filter((filter): filter is OfferFilter => filter !== null);
}

function matchingOffers(ctx: RequestContext): LoanOffer[] {
	const filters = parseOfferFilters(ctx.query);
	return [...ctx.state.offers.values()].filter((offer) => filters.every((filter) => filter(offer)));
}

export function offerNotFound(id: string, live = { status: 400, message: 'Loan offer not found' }): ApiError {
	return new ApiError(404, 'OFFER_NOT_FOUND', `Loan offer ${shorten(id)} not found`, live);
}

function getOffer(ctx: RequestContext): ReturnType<Route['handle']> {
	const offer = matchingOffers(ctx).find((candidate) => candidate.id === ctx.params.id);
	if (!offer) throw offerNotFound(ctx.params.id);
	return jsonReply(offer);
}

export const offerRoutes: Route[] = [
	{ method: 'GET', pattern: '/api/offers', auth: 'borrower', body: 'none', handle: (ctx) => jsonReply(matchingOffers(ctx)) },
	{ method: 'GET', pattern: '/api/offers/:id', auth: 'borrower', body: 'none', handle: getOffer },
];
