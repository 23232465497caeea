import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { LOAN_ASSET_OPTIONS, LOAN_ASSETS } from '../../descriptions/loanTerms';
import { apiRoute } from '../../transport/apiRoute';
import { liveErrorBodyWithout } from '../../transport/answer';
import { checkOneOf, describeValue, isRecord, toNumber } from '../../validation/checks';
import { requireText } from '../../validation/parameters';

const showOnlyForGetHistory = { show: { resource: ['price'], operation: ['getHistory'] } };

/** The schema's `TimeRange` (schema.d.ts:2345). */
const TIME_RANGE_OPTIONS: INodePropertyOptions[] = [
	{ name: '1 Day', value: '1D' },
	{ name: '1 Week', value: '1W' },
	{ name: '1 Month', value: '1M' },
	{ name: '1 Year', value: '1Y' },
	{ name: 'All Time', value: 'MAX' },
];

const TIME_RANGES = TIME_RANGE_OPTIONS.map(({ value }) => String(value));

/**
 * One item holding the whole series, not one item per price point: a price history is one thing to a
 * workflow. A threshold check reads `latest`, `low`, `high` or `change_percent` in a single IF node, and
 * a chart takes `prices` as one array; one item per point would run every later node (an alert, a
 * message) once per point, hundreds of times for a year.
 */
export const priceGetHistoryOperation: INodePropertyOptions = {
	name: 'Get History',
	value: 'getHistory',
	action: 'Get the bitcoin price history',
	description:
		'Get the price of bitcoin over a time range, in the chosen asset, as one item: {range, asset, count, first, latest, low, high, change_percent, prices}. prices is the series oldest first, each {timestamp, price}; first, latest, low and high are points of it.',
	routing: apiRoute(
		{
			label: 'Price → Get History',
			toolDescription:
				"Get bitcoin's price history over a time range (1D, 1W, 1M, 1Y or MAX): returns the latest, lowest and highest price, the change in percent and the whole series; changes nothing",
			// Lendasat's mobile app asks without a key (lendamobile rust/src/api/bitcoin_api.rs:18-22);
			// the node sends the credential's key of either type all the same.
			keyType: 'any',
			expects: 'object',
			answer: historyAnswer,
			errors: [
				{
					statusCodes: [500],
					message: 'Lendasat could not load the price history',
					hint: "its price source may still be starting up (Lendasat's own app retries such errors after a moment). Try again shortly.",
				},
			],
		},
		{ method: 'GET', url: '/api/historical-prices' },
		{ prepare: [addRangeAndAsset], finish: [summarise] },
	),
};

export const priceGetHistoryFields: INodeProperties[] = [
	{
		displayName: 'Range',
		name: 'range',
		type: 'options',
		options: TIME_RANGE_OPTIONS,
		default: '1D',
		description: 'How far back the series goes',
		displayOptions: showOnlyForGetHistory,
	},
	{
		displayName: 'Asset',
		name: 'asset',
		type: 'options',
		options: LOAN_ASSET_OPTIONS,
		default: 'Usd',
		description: 'What the price of one bitcoin is given in',
		displayOptions: showOnlyForGetHistory,
	},
];

async function addRangeAndAsset(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const range = requireText(this, 'Range', this.getNodeParameter('range'), checkOneOf(TIME_RANGES));
	const asset = requireText(this, 'Asset', this.getNodeParameter('asset'), checkOneOf(LOAN_ASSETS));
	return { ...request, qs: { ...request.qs, range, asset } };
}

/**
 * The schema gives `price` as a number (schema.d.ts:1805-1809); Lendasat's mobile client reads it as
 * decimal text (lendamobile rust/src/models/historical_prices.rs:7), so both are taken.
 */
function priceOf(value: unknown): number {
	const price = typeof value === 'number' || typeof value === 'string' ? toNumber(value) : NaN;
	return Number.isFinite(price) ? price : NaN;
}

/** A series is of use only when every point has a timestamp and a positive price. */
export function historyAnswer(body: unknown): string | undefined {
	const errorBody = liveErrorBodyWithout(body, 'prices');
	if (errorBody) return errorBody;
	const prices = isRecord(body) ? body.prices : undefined;
	if (!Array.isArray(prices)) return 'it holds no list of prices';
	for (const [index, point] of prices.entries()) {
		if (!isRecord(point)) return `its price ${index + 1} is not an object`;
		if (typeof point.timestamp !== 'string' || Number.isNaN(Date.parse(point.timestamp))) {
			return `its price ${index + 1} has the timestamp ${describeValue(point.timestamp)}, not a date`;
		}
		if (!(priceOf(point.price) > 0)) {
			return `its price ${index + 1} is ${describeValue(point.price)}, not a positive number`;
		}
	}
	return undefined;
}

interface PricePoint extends IDataObject {
	timestamp: string;
	price: number;
}

async function summarise(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const range = String(this.getNodeParameter('range')).trim();
	const asset = String(this.getNodeParameter('asset')).trim();
	return items.map((item) => ({
		json: summariseHistory(item.json, { range, asset }),
	}));
}

/** The series oldest first with numeric prices, and the points a workflow compares against. */
export function summariseHistory(
	body: IDataObject,
	asked: { range: string; asset: string },
): IDataObject {
	const prices: PricePoint[] = (body.prices as IDataObject[])
		.map((point) => ({ timestamp: String(point.timestamp), price: priceOf(point.price) }))
		.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
	const first = prices[0] ?? null;
	const latest = prices[prices.length - 1] ?? null;
	const byPrice = [...prices].sort((a, b) => a.price - b.price);
	return {
		range: typeof body.range === 'string' ? body.range : asked.range,
		asset: asked.asset,
		count: prices.length,
		first,
		latest,
		low: byPrice[0] ?? null,
		high: byPrice[byPrice.length - 1] ?? null,
		change_percent:
			first && latest
				? Math.round(((latest.price - first.price) / first.price) * 10_000) / 100
				: null,
		prices,
	};
}
