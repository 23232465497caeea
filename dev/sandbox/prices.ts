/**
 * The bitcoin price series of GET /api/historical-prices (newer than hub 0.8.2: schema.d.ts:784-796,
 * 1805-1813, 3790-3820). The backend's data source, spacing and history are unknown; the sandbox's
 * series is made up [INF]: smooth, the same for every request at the same clock, and ending at the
 * sandbox's price at the sandbox's now: loans.ts BTC_PRICE (100,000 USD) unless an admin moved it
 * (collateral.ts setBtcPrice); with no price at all the series is empty [INF].
 */

/** The schema's `TimeRange` (schema.d.ts:2345), in declaration order. */
export const TIME_RANGES = ['1D', '1W', '1M', '1Y', 'MAX'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

/** [INF] spacing and number of points per range. */
const SERIES: Record<TimeRange, { stepMs: number; points: number }> = {
	'1D': { stepMs: 15 * MINUTE, points: 97 },
	'1W': { stepMs: 60 * MINUTE, points: 169 },
	'1M': { stepMs: 6 * 60 * MINUTE, points: 121 },
	'1Y': { stepMs: DAY, points: 366 },
	MAX: { stepMs: 7 * DAY, points: 521 },
};

/** [INF] what one US dollar is worth in the other loan assets' currencies; stablecoins at par. */
const PER_USD: Record<string, number> = { Eur: 0.92, Chf: 0.88, Mxn: 18.5 };

/** The price of one bitcoin `ageMs` before now, in US dollars: `latestUsd` now, waves and growth before. */
function usdPriceAt(latestUsd: number, ageMs: number): number {
	const days = ageMs / DAY;
	const waves =
		1 + 0.04 * Math.sin((2 * Math.PI * days) / 9) + 0.015 * Math.sin((2 * Math.PI * days) / 1.3);
	return latestUsd * Math.exp(-days / 730) * waves;
}

export interface PricePoint {
	timestamp: string;
	price: number;
}

/** The series of a range in an asset, oldest first, the last point at `now` at `latestUsd` (converted); none without a price. */
export function priceSeries(
	range: TimeRange,
	asset: string,
	now: Date,
	latestUsd: number | null,
): PricePoint[] {
	if (latestUsd === null) return [];
	const { stepMs, points } = SERIES[range];
	const factor = PER_USD[asset] ?? 1;
	return Array.from({ length: points }, (_, index) => {
		const ageMs = (points - 1 - index) * stepMs;
		return {
			timestamp: new Date(now.getTime() - ageMs).toISOString(),
			price: Math.round(usdPriceAt(latestUsd, ageMs) * factor * 100) / 100,
		};
	});
}
