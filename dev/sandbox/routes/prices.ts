/**
 * GET /api/historical-prices?range&asset (schema.d.ts:784-796, operation get_historical_prices
 * 3790-3820). Not in hub 0.8.2, so everything here is [INF] from the schema and Lendasat's mobile
 * client: no key needed (lendamobile rust/src/api/bitcoin_api.rs:12-22 sends none), `range` required
 * and `asset` (a LoanAsset) defaulting to USD, read with axum's `Query` like the other query strings
 * (plain-text 400s). The live dialect sends each price as decimal text, which is how lendamobile reads
 * it (rust/src/models/historical_prices.rs:5-8, `price: String`); the spec dialect sends the schema's
 * number (HistoricalPrice, schema.d.ts:1805-1810).
 */
import { btcPriceUsd } from '../collateral';
import { badRequest, liveQueryRejection } from '../errors';
import { TIME_RANGES, priceSeries, type TimeRange } from '../prices';
import { enumParam } from '../query';
import { jsonReply, type Reply, type RequestContext, type Route } from '../router';
import { LOAN_ASSETS } from './loanApplications';

function timeRange(ctx: RequestContext): TimeRange {
	if (ctx.query.range === undefined || (ctx.query.range === '' && ctx.config.dialect === 'spec')) {
		throw badRequest(
			'MISSING_FIELD',
			'Parameter range is required (1D, 1W, 1M, 1Y or MAX)',
			liveQueryRejection('missing field `range`'),
		);
	}
	return enumParam(ctx.config.dialect, ctx.query, 'range', TIME_RANGES, '1D') as TimeRange;
}

function historicalPrices(ctx: RequestContext): Reply {
	const range = timeRange(ctx);
	const asset = enumParam(ctx.config.dialect, ctx.query, 'asset', LOAN_ASSETS, 'Usd');
	const prices = priceSeries(range, asset, ctx.state.now(), btcPriceUsd(ctx.state));
	return jsonReply({
		prices:
			ctx.config.dialect === 'live'
				? prices.map(({ timestamp, price }) => ({ timestamp, price: price.toFixed(2) }))
				: prices,
		range,
	});
}

export const priceRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/historical-prices',
		auth: 'none',
		body: 'none',
		handle: historicalPrices,
	},
];
