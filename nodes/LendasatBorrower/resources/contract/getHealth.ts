import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { liveErrorBodyWithout } from '../../transport/answer';
import {
	apiRoute,
	credentialsOf,
	failureOf,
	oncePerRun,
	settle,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { baseUrlOf, bitcoinNetworkFor } from '../../transport/credentials';
import { withNote } from '../../transport/exchange';
import {
	checkArkAddress,
	checkBitcoinAddress,
	describeValue,
	toNumber,
} from '../../validation/checks';
import { invalidParameter, itemError } from '../../validation/parameters';
import { historyAnswer, summariseHistory } from '../price/getHistory';
import { exactOf, type Exact } from './collateralHealth';
import {
	healthReport,
	priceCurrencyOf,
	readHealthFigures,
	refusalOfLiquidationPrice,
	refusalOfStatus,
	targetLtvOf,
	type HealthPrice,
	type PriceCurrency,
	type Refusal,
} from './healthReport';
import { CONTRACTS_PATH, sendToContract } from './shared';

/*
 * Contract → Get Collateral Health: one contract's LTV now, the price of each of its thresholds, the
 * distance to them, and the sats that bring it back to a target LTV. An operation of its own rather
 * than fields of Contract → Get: it reads a second thing (a price) and takes parameters (Target LTV,
 * BTC Price), it refuses contracts that have no health (Get must give any contract), and it checks
 * Lendasat's numbers before it gives its own. Read only.
 *
 * The price. Lendasat's liquidation engine values the collateral at the BitMEX index (.BXBT, or
 * .BXBTEUR for EUR loans) from its live feed, averaging the last 10 updates and checking every 5
 * minutes (liquidation_engine.rs:26-96). That feed reaches clients only as the WebSocket
 * /api/pricefeed (routes/price_feed_ws.rs, bin/hub.rs:164-186); the node's HTTP client does not open
 * WebSockets. So the node takes the closest price the API serves over HTTP, the latest point of
 * GET /api/historical-prices?range=1D (newer than hub 0.8.2; its source is not public), and says so
 * in every item (price.source, price.note). BTC Price lets a workflow give the index itself.
 */

const LABEL = 'Contract → Get Collateral Health';
const OPERATION = 'getHealth';
const showOnlyForGetHealth = { show: { resource: ['contract'], operation: [OPERATION] } };

const HISTORY_PATH = '/api/historical-prices';

const PRICE_HISTORY_NOTE =
	"The latest point of Lendasat's 1-day price history (GET /api/historical-prices?range=1D). Lendasat's liquidation engine values collateral at the BitMEX index (.BXBT, .BXBTEUR for EUR loans) from its live feed, averaged over its last 10 updates; that feed is served only as a WebSocket (/api/pricefeed), so the two can differ slightly.";
const GIVEN_PRICE_NOTE =
	"The price given in BTC Price. Lendasat's liquidation engine values collateral at the BitMEX index (.BXBT, .BXBTEUR for EUR loans).";

export const contractGetHealthOperation: INodePropertyOptions = {
	name: 'Get Collateral Health',
	value: OPERATION,
	action: 'Get collateral health',
	description:
		"An open loan's LTV now, the price at each margin call and at liquidation, and the sats to send to bring it back to a target LTV",
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Get a contract's collateral health: its loan-to-value ratio now, the bitcoin price at which its first and second margin calls and its liquidation happen and how far away they are in percent, and how many sats to send to its collateral address to bring it back to a target LTV (the contract's initial LTV unless given). Only for open loans (status PrincipalGiven). Changes nothing, sends nothing.",
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'contractId', label: 'contract' },
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'GET', url: `${CONTRACTS_PATH}/{id}` },
		{ prepare: [sendToContract], send: readHealth },
	),
};

export const contractGetHealthFields: INodeProperties[] = [
	{
		displayName: 'Target LTV',
		name: 'targetLtv',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 4 },
		default: 0,
		description:
			"The loan-to-value ratio that sats_to_target brings the contract back to, as a decimal: 0.5 is 50%. 0: the contract's initial LTV (initial_ltv). Must be below the liquidation threshold.",
		displayOptions: showOnlyForGetHealth,
	},
	{
		displayName: 'BTC Price',
		name: 'btcPrice',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description:
			"The price of one bitcoin to compute with, in USD (in EUR for a EUR loan), e.g. the BitMEX index that Lendasat's liquidation engine uses. 0: the latest price of Lendasat's price history.",
		displayOptions: showOnlyForGetHealth,
	},
];

/** Reads and checks a number parameter whose 0 (or empty) means "not given". */
function optionalNumber(
	context: IExecuteSingleFunctions,
	name: string,
	displayName: string,
	check: (value: number) => string | undefined,
): Exact | undefined {
	const raw = context.getNodeParameter(name, 0);
	if (raw === '' || raw === null || raw === undefined) return undefined;
	const value = toNumber(raw);
	if (Number.isNaN(value) || !Number.isFinite(value)) {
		throw invalidParameter(context, displayName, `Expected a number, got ${describeValue(raw)}.`);
	}
	if (value === 0) return undefined;
	const problem = check(value);
	if (problem) throw invalidParameter(context, displayName, problem);
	return exactOf(value);
}

function readTargetLtv(context: IExecuteSingleFunctions): Exact | undefined {
	return optionalNumber(context, 'targetLtv', 'Target LTV', (value) =>
		value < 0 || value >= 1
			? `Must be a loan-to-value ratio above 0 and below 1, like 0.5 (50%), got ${value}. Enter 0 for the contract's initial LTV.`
			: undefined,
	);
}

function readBtcPrice(context: IExecuteSingleFunctions): Exact | undefined {
	return optionalNumber(context, 'btcPrice', 'BTC Price', (value) =>
		value < 0 || value > 1_000_000_000
			? `Must be the price of one bitcoin, above 0 and at most 1,000,000,000, got ${value}. Enter 0 for Lendasat's latest price.`
			: undefined,
	);
}

function refused(context: IExecuteSingleFunctions, refusal: Refusal): Error {
	return itemError(context, refusal.message, refusal.description);
}

async function readHealth(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	// Every parameter is checked before anything is sent.
	const givenTarget = readTargetLtv(this);
	const givenPrice = readBtcPrice(this);
	const record = (await api.send(request, 'object', { check: contractAnswer })) as IDataObject;
	const statusRefusal = refusalOfStatus(record);
	if (statusRefusal) throw refused(this, statusRefusal);
	const read = readHealthFigures(record);
	if (!('figures' in read)) throw refused(this, read);
	const { figures } = read;
	const inconsistency = refusalOfLiquidationPrice(figures);
	if (inconsistency) throw refused(this, inconsistency);
	const target = targetLtvOf(figures, givenTarget);
	if (!('target' in target)) throw refused(this, target);
	await requireUsableAddress(this, figures.contractAddress, figures.collateralAsset, figures.id);
	const currency = priceCurrencyOf(figures.loanAsset);
	const price: HealthPrice = givenPrice
		? { value: givenPrice, currency, at: null, source: 'parameter', note: GIVEN_PRICE_NOTE }
		: await lendasatPriceOf(this, api, currency);
	return [{ json: healthReport(figures, price, target) }];
}

/** A contract record: its ID is there; never the live backend's error body sent with a 200. */
function contractAnswer(body: unknown): string | undefined {
	return liveErrorBodyWithout(body, 'id');
}

/**
 * The collateral address is where the workflow will send money: an address that is not one, or of
 * the other kind or network, fails the item rather than being passed on.
 */
async function requireUsableAddress(
	context: IExecuteSingleFunctions,
	address: string | null,
	collateralAsset: string | null,
	contractId: string,
): Promise<void> {
	if (address === null) return;
	const network = bitcoinNetworkFor((await credentialsOf(context)).environment);
	const problem =
		collateralAsset === 'ArkadeBtc'
			? checkArkAddress(address, network)
			: checkBitcoinAddress(address, network);
	if (problem) {
		// The checks end with a hint for someone typing an address ("Enter …"); Lendasat gave this one.
		const [what] = problem.split(' Enter ');
		throw itemError(
			context,
			`Lendasat's contract_address of contract ${contractId} is not one to send collateral to`,
			`${what} The node gives no address it cannot vouch for; check the credential's environment.`,
		);
	}
}

/** Lendasat's latest price of each currency, read once per run and server; a failed read is not kept. */
const pricesOfRun = oncePerRun((): Map<string, Promise<HealthPrice>> => new Map());

async function lendasatPriceOf(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	currency: PriceCurrency,
): Promise<HealthPrice> {
	const prices = pricesOfRun(context);
	const key = `${baseUrlOf(await credentialsOf(context))} ${currency}`;
	let price = prices.get(key);
	if (!price) {
		price = readLatestPrice(context, api, currency);
		price.catch(() => prices.delete(key));
		prices.set(key, price);
	}
	return await price;
}

async function readLatestPrice(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	currency: PriceCurrency,
): Promise<HealthPrice> {
	const asset = currency === 'EUR' ? 'Eur' : 'Usd';
	const read = await settle(
		api.send({ method: 'GET', url: HISTORY_PATH, qs: { range: '1D', asset } }, 'object', {
			check: historyAnswer,
		}),
	);
	if ('error' in read) {
		const failure = failureOf(read.error);
		if (failure?.kind === 'http' && (failure.statusCode === 404 || failure.statusCode === 405)) {
			throw itemError(
				context,
				'This Lendasat server serves no bitcoin price',
				`It answered ${failure.statusCode} to GET ${HISTORY_PATH} (servers before the price history was added, such as 0.8.2, have none). Enter the price in BTC Price, e.g. from BitMEX's .BXBT index, which Lendasat's liquidation engine uses.`,
			);
		}
		throw withNote(
			read.error,
			`The node reads Lendasat's latest bitcoin price (GET ${HISTORY_PATH}) to compute the collateral health; that read failed, so nothing was computed. Run the item again, or enter the price in BTC Price.`,
		);
	}
	const latest = summariseHistory(read.value as IDataObject, { range: '1D', asset }).latest as {
		timestamp: string;
		price: number;
	} | null;
	const value = latest ? exactOf(latest.price) : undefined;
	if (!latest || !value) {
		throw itemError(
			context,
			'Lendasat gave no bitcoin price',
			`Its price history (GET ${HISTORY_PATH}?range=1D&asset=${asset}) holds no price, so no LTV was computed. Run the item again later, or enter the price in BTC Price.`,
		);
	}
	return {
		value,
		currency,
		at: new Date(Date.parse(latest.timestamp)).toISOString(),
		source: 'lendasat_price_history',
		note: PRICE_HISTORY_NOTE,
	};
}
