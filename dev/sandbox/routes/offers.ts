/** GET /api/offers and /api/offers/{id} with the live backend's filters (live-api §2.4). */
import { ApiError, shorten } from '../errors';
import { FIAT_ASSETS } from '../loans';
import { enumParam, numberParam } from '../query';
import { jsonReply, type RequestContext, type Route } from '../router';
import type { Dialect, LoanOffer } from '../types';

/** QueryParamLoanType, AssetTypeFilter, KycFilter (routes/borrower/loan_offers.rs) in declaration order. */
const LOAN_TYPES = ['Direct', 'Indirect', 'MoonCardInstant', 'All'];
const ASSET_TYPES = ['fiat', 'stable_coins', 'all'];
const KYC_FILTERS = ['no_kyc', 'with_kyc', 'all'];
/** CollateralAssetFilter, only in the newer generated types (HEAD schema.d.ts); default Bitcoin. */
const COLLATERAL_ASSET_TYPES = ['Any', 'Bitcoin', 'Arkade'];

type OfferFilter = (offer: LoanOffer) => boolean;

function numeric(
	dialect: Dialect,
	query: Record<string, string>,
	name: string,
	kind: 'i32' | 'f64',
): number | undefined {
	return numberParam(dialect, query, name, kind, {
		code: 'INVALID_QUERY',
		details: `Parameter ${name} must be a number, got ${shorten(query[name])}`,
	});
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

function collateralFilter(type: string): OfferFilter | null {
	if (type === 'Bitcoin') return (offer) => offer.collateral_asset === 'BitcoinBtc';
	if (type === 'Arkade') return (offer) => offer.collateral_asset === 'ArkadeBtc';
	return null;
}

interface OfferFilters {
	/** The loan_type filter (default Direct): the list route applies it, the by-id route does not. */
	loanType: OfferFilter | null;
	/** LoanOffersQuery::matches_filters (plus the newer collateral_asset_type). */
	others: OfferFilter[];
}

/**
 * The live `LoanOffersQuery` (hub 0.8.2 routes/borrower/loan_offers.rs:394-411): loan_type defaults to
 * Direct; `max_loan_amount` and `duration_max` are not in the struct and so ignored (any value, even
 * one that is no number); min_loan_amount and duration_min match offers whose range contains the value
 * (:496-516). collateral_asset_type (default Bitcoin) comes from the newer generated types. The whole
 * query is deserialised first (any bad value is a plain-text 400), then applied.
 *
 * The spec dialect applies the two maximums the schema declares ("Maximum loan amount", "Maximum
 * duration in days", HEAD schema.d.ts:4302-4309) as [INF] the upper end of what the borrower wants:
 * offers whose minimum is at most the value.
 */
function parseOfferFilters(ctx: RequestContext): OfferFilters {
	const { query } = ctx;
	const dialect = ctx.config.dialect;
	const loanType = enumParam(dialect, query, 'loan_type', LOAN_TYPES, 'Direct');
	const assetType = enumParam(dialect, query, 'asset_type', ASSET_TYPES, 'all');
	const kyc = enumParam(dialect, query, 'kyc', KYC_FILTERS, 'all');
	const amount = numeric(dialect, query, 'min_loan_amount', 'f64');
	const maxRate = numeric(dialect, query, 'max_interest_rate', 'f64');
	const duration = numeric(dialect, query, 'duration_min', 'i32');
	const maxAmount =
		dialect === 'spec' ? numeric(dialect, query, 'max_loan_amount', 'f64') : undefined;
	const maxDuration =
		dialect === 'spec' ? numeric(dialect, query, 'duration_max', 'i32') : undefined;
	const collateral = enumParam(
		dialect,
		query,
		'collateral_asset_type',
		COLLATERAL_ASSET_TYPES,
		'Bitcoin',
	);
	const others: (OfferFilter | null)[] = [
		assetTypeFilter(assetType),
		kycFilter(kyc),
		collateralFilter(collateral),
	];
	// Unknown names in loan_assets are dropped by parse_loan_assets (filter_map).
	const assets =
		query.loan_assets === undefined
			? null
			: query.loan_assets.split(',').map((asset) => asset.trim());
	if (assets !== null && (dialect === 'live' || assets.some(Boolean)))
		others.push((offer) => assets.includes(offer.loan_asset));
	if (amount !== undefined)
		others.push((offer) => offer.loan_amount_min <= amount && amount <= offer.loan_amount_max);
	if (maxRate !== undefined) others.push((offer) => offer.interest_rate <= maxRate);
	if (duration !== undefined) {
		others.push(
			(offer) => offer.duration_days_min <= duration && duration <= offer.duration_days_max,
		);
	}
	if (maxAmount !== undefined) others.push((offer) => offer.loan_amount_min <= maxAmount);
	if (maxDuration !== undefined) others.push((offer) => offer.duration_days_min <= maxDuration);
	return {
		loanType: loanType === 'All' ? null : (offer) => offer.loan_payout === loanType,
		others: others.filter((filter): filter is OfferFilter => filter !== null),
	};
}

/** The Available offers that pass the list filters (load_all_available_loan_offers and the filters). */
function availableOffers(ctx: RequestContext, offers: Iterable<LoanOffer>): LoanOffer[] {
	const { loanType, others } = parseOfferFilters(ctx);
	const filters = [
		(offer: LoanOffer) => offer.status === 'Available',
		...(loanType ? [loanType] : []),
		...others,
	];
	return [...offers].filter((offer) => filters.every((filter) => filter(offer)));
}

function listOffers(ctx: RequestContext): ReturnType<Route['handle']> {
	return jsonReply(availableOffers(ctx, ctx.state.offers.values()));
}

/**
 * get_available_loan_offers_by_lender (hub 0.8.2 routes/borrower/loan_offers.rs:185-270): registered
 * after the auth layer (:36-46), so no key is needed and none is checked; no jail check either. An
 * unknown lender is 400 "Lender not found" (:226-230, :572) before the query is applied; then the list
 * filters as GET /api/offers, loan_type default Direct included. [INF] the query string is parsed
 * before the handler runs (axum extractors), so a bad filter value is the plain-text 400 even for an
 * unknown lender. The spec dialect asks for a borrower key, like every endpoint of the specification,
 * and answers 404 LENDER_NOT_FOUND.
 */
function listOffersByLender(ctx: RequestContext): ReturnType<Route['handle']> {
	parseOfferFilters(ctx);
	const lenderId = ctx.params.id;
	if (!ctx.state.lenders.has(lenderId)) {
		throw new ApiError(404, 'LENDER_NOT_FOUND', `Lender ${shorten(lenderId)} not found`, {
			status: 400,
			message: 'Lender not found',
		});
	}
	const own = [...ctx.state.offers.values()].filter((offer) => offer.lender.id === lenderId);
	return jsonReply(availableOffers(ctx, own));
}

export function offerNotFound(
	id: string,
	live = { status: 400, message: 'Loan offer not found' },
): ApiError {
	return new ApiError(404, 'OFFER_NOT_FOUND', `Loan offer ${shorten(id)} not found`, live);
}

/**
 * get_loan_offer (hub 0.8.2): `matches_filters` applies, not the loan_type filter (which is still
 * parsed, so a bad value is rejected), in both dialects. `loan_by_id` finds the offer whatever its
 * status: the live dialect serves withdrawn offers too; the spec dialect answers 404 for them.
 */
function getOffer(ctx: RequestContext): ReturnType<Route['handle']> {
	const { others } = parseOfferFilters(ctx);
	const offer = ctx.state.offers.get(ctx.params.id);
	const filters =
		ctx.config.dialect === 'live'
			? others
			: [(item: LoanOffer) => item.status === 'Available', ...others];
	if (!offer || !filters.every((filter) => filter(offer))) throw offerNotFound(ctx.params.id);
	return jsonReply(offer);
}

export const offerRoutes: Route[] = [
	{ method: 'GET', pattern: '/api/offers', auth: 'borrower', body: 'none', handle: listOffers },
	{
		method: 'GET',
		pattern: '/api/offers/by-lender/:id',
		auth: 'borrower',
		liveAuth: 'none',
		body: 'none',
		handle: listOffersByLender,
	},
	{ method: 'GET', pattern: '/api/offers/:id', auth: 'borrower', body: 'none', handle: getOffer },
];
