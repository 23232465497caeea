import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject } from 'n8n-workflow';

import { startSandbox, SEED_IDS, type Sandbox } from '../../dev/sandbox/server';
import {
	runWorkflow,
	searchList,
	singleNodeWorkflow,
	type TestCredential,
} from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const OFFERS = SEED_IDS.offers;
const NODE = 'Lendasat Borrower';

const borrower = (overrides: Partial<TestCredential> = {}): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
	...overrides,
});

function offerGet(offerId: IDataObject | string, parameters: IDataObject = {}) {
	return singleNodeWorkflow({ resource: 'offer', operation: 'get', offerId, ...parameters });
}

function offerGetMany(parameters: IDataObject = {}) {
	return singleNodeWorkflow({
		resource: 'offer',
		operation: 'getAll',
		returnAll: true,
		...parameters,
	});
}

const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });
const ids = (items: { json: Record<string, unknown> }[]) => items.map((item) => item.json.id);
const descriptionOf = (error: unknown) => (error as { description?: string }).description;

/** The seeded 12% USDC-on-Polygon offer as Simplify shows it. */
const SIMPLIFIED_USDC_POLYGON = {
	id: OFFERS.usdcPolygon,
	name: 'USDC on Polygon, 12% flat',
	lender_name: 'Northwind Lending',
	loan_asset: 'UsdcPol',
	loan_amount_min: 100,
	loan_amount_max: 10000,
	duration_days_min: 7,
	duration_days_max: 365,
	interest_rate: 0.12,
	min_ltv: 0.5,
	kyc_required: false,
	repayment_plan: 'bullet',
	collateral_asset: 'BitcoinBtc',
	loan_payout: 'Direct',
	status: 'Available',
};

describe('Offer → Get Many: a borrower compares the loan offers', () => {
	it('lists what the API lists by default (Direct offers) of any collateral, simplified to what a borrower compares', async () => {
		const { output, error } = await runWorkflow(offerGetMany(), { credential: borrower() });
		expect(error).toBeUndefined();

		const offers = output(NODE);
		expect(ids(offers)).toEqual([
			OFFERS.usdcPolygon,
			OFFERS.usdtEthereumMonthly,
			OFFERS.usdcSolanaShort,
			OFFERS.eurBankKyc,
			OFFERS.usdtLiquidWeekly,
			OFFERS.arkade,
			OFFERS.autoAccept,
		]);
		expect(offers[0].json).toEqual(SIMPLIFIED_USDC_POLYGON);
		expect(offers[5].json).toMatchObject({ collateral_asset: 'ArkadeBtc', loan_payout: 'Direct' });
		expect(offers[3].json).toMatchObject({
			lender_name: 'Alpen Credit',
			loan_asset: 'Eur',
			kyc_required: true,
		});

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe('GET /api/offers');
		// Without it the API lists only Bitcoin-collateral offers.
		expect(request.query).toEqual({ collateral_asset_type: 'Any' });
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it('sends every filter the way the live API takes it', async () => {
		const { output, error } = await runWorkflow(
			offerGetMany({
				filters: {
					loanType: 'All',
					assetType: 'stable_coins',
					loanAssets: ['UsdcPol', 'UsdtPol'],
					kyc: 'no_kyc',
					minLoanAmount: 1000,
					maxInterestRate: 0.12,
					durationDays: 30,
				},
			}),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		// The Indirect USDT offer shows up only because Loan Type is All, the Arkade one because collateral is Any.
		expect(ids(output(NODE))).toEqual([
			OFFERS.usdcPolygon,
			OFFERS.usdtPolygonIndirect,
			OFFERS.arkade,
		]);
		expect(sandbox.requests[0].query).toEqual({
			collateral_asset_type: 'Any',
			loan_type: 'All',
			asset_type: 'stable_coins',
			loan_assets: 'UsdcPol,UsdtPol',
			kyc: 'no_kyc',
			min_loan_amount: '1000',
			max_interest_rate: '0.12',
			duration_min: '30',
		});
	});

	it('takes the loan assets as comma-separated text from an expression', async () => {
		const { output, error } = await runWorkflow(
			offerGetMany({ filters: { loanType: 'All', loanAssets: "={{ 'UsdtPol, UsdtEth' }}" } }),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].query).toEqual({
			collateral_asset_type: 'Any',
			loan_type: 'All',
			loan_assets: 'UsdtPol,UsdtEth',
		});
		expect(ids(output(NODE))).toEqual([
			OFFERS.usdtEthereumMonthly,
			OFFERS.usdtPolygonIndirect,
			OFFERS.autoAccept,
		]);
	});

	it('keeps only the first Limit offers of the unpaginated answer, raw when Simplify is off', async () => {
		const { output, error } = await runWorkflow(
			offerGetMany({ returnAll: false, limit: 2, simplify: false }),
			{
				credential: borrower(),
			},
		);
		expect(error).toBeUndefined();
		const offers = output(NODE);
		expect(ids(offers)).toEqual([OFFERS.usdcPolygon, OFFERS.usdtEthereumMonthly]);
		expect(offers[0].json).toMatchObject({
			lender: { id: SEED_IDS.lenders.northwind, name: 'Northwind Lending' },
			loan_payout: 'Direct',
			kyc_link: null,
			origination_fee: [{ fee: 0.01, from_day: 0, to_day: 100000 }],
		});
		expect(sandbox.requests).toHaveLength(1);
		expect(sandbox.requests[0].query).toEqual({ collateral_asset_type: 'Any' });
	});

	it.each([
		['Arkade', [OFFERS.arkade]],
		[
			'Bitcoin',
			[
				OFFERS.usdcPolygon,
				OFFERS.usdtEthereumMonthly,
				OFFERS.usdcSolanaShort,
				OFFERS.eurBankKyc,
				OFFERS.usdtLiquidWeekly,
				OFFERS.autoAccept,
			],
		],
	])('filters by collateral asset: %s', async (collateralAsset, expected) => {
		const { output, error } = await runWorkflow(offerGetMany({ filters: { collateralAsset } }), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(ids(output(NODE))).toEqual(expected);
		expect(sandbox.requests[0].query).toEqual({ collateral_asset_type: collateralAsset });
	});

	it('passes values it does not know through unchanged', async () => {
		const added = sandbox.admin.addOffer({
			name: 'USDC on Base',
			loan_asset: 'UsdcBase' as never,
			repayment_plan: 'interest_only_quarterly' as never,
			interest_rate: 0.07,
		});
		const { output, error } = await runWorkflow(offerGetMany(), { credential: borrower() });
		expect(error).toBeUndefined();
		expect(output(NODE).find((item) => item.json.id === added.id)?.json).toMatchObject({
			loan_asset: 'UsdcBase',
			repayment_plan: 'interest_only_quarterly',
			interest_rate: 0.07,
		});
	});

	it('returns no items when no offer matches', async () => {
		const { output, error } = await runWorkflow(
			offerGetMany({ filters: { maxInterestRate: 0.01 } }),
			{
				credential: borrower(),
			},
		);
		expect(error).toBeUndefined();
		expect(output(NODE)).toEqual([]);
	});

	it.each([
		[
			{ filters: { maxInterestRate: 12 } },
			'Max Interest Rate',
			'12 is more than 1: enter the yearly rate as a decimal, e.g. 0.12 for 12%.',
		],
		[
			{ filters: { maxInterestRate: -0.1 } },
			'Max Interest Rate',
			'Must not be negative, got -0.1.',
		],
		[
			{ filters: { minLoanAmount: '1,5' } },
			'Loan Amount',
			'"1,5" uses a comma; write the decimal separator as a dot, like 250.5.',
		],
		[{ filters: { minLoanAmount: 0 } }, 'Loan Amount', 'Must be greater than 0, got 0.'],
		[
			{ filters: { durationDays: 2.5 } },
			'Duration (Days)',
			'Must be a whole number of days like 30, got 2.5.',
		],
		[
			{ returnAll: false, limit: 0 },
			'Limit',
			'Expected a whole number of at least 1, like 50, got 0.',
		],
	])('refuses %j before sending anything', async (parameters, field, problem) => {
		const { error } = await runWorkflow(offerGetMany(parameters), { credential: borrower() });
		expect(error?.message).toBe(`Invalid ${field} [item 0]`);
		expect(descriptionOf(error)).toBe(`${field}: ${problem}`);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('says so when the base URL answers with something other than the offer list', async () => {
		// A base URL with a query string turns every request into GET /api/offers/{id}: one object, no list.
		const misconfigured = `${sandbox.url}/api/offers/${OFFERS.usdcPolygon}?from=`;
		const { error } = await runWorkflow(offerGetMany(), {
			credential: borrower({ baseUrl: misconfigured }),
		});
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(descriptionOf(error)).toMatch(
			/^Offer → Get Many: the answer was not used because it is an object where a JSON array of objects belongs\. Status 200, content type application\/json[^.]*\. Server answered: "\{"id":"0ffe0000/,
		);
		expect(sandbox.requests[0].path).toBe(`/api/offers/${OFFERS.usdcPolygon}`);
	});

	it('needs a borrower key', async () => {
		const { error } = await runWorkflow(offerGetMany(), {
			credential: borrower({ keyType: 'master', apiKey: sandbox.keys.master }),
		});
		expect(error?.message).toBe(
			'Offer → Get Many needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Offer → Get Many: the maximum amount and duration filters', () => {
	it('sends them as max_loan_amount and duration_max', async () => {
		const { output, error } = await runWorkflow(
			offerGetMany({ filters: { maxLoanAmount: 100, maxDurationDays: 7 } }),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].query).toEqual({
			collateral_asset_type: 'Any',
			max_loan_amount: '100',
			duration_max: '7',
		});
		// The spec dialect applies them ([INF]): offers whose minimum is within the maximum.
		expect(ids(output(NODE))).toEqual([
			OFFERS.usdcPolygon,
			OFFERS.usdcSolanaShort,
			OFFERS.arkade,
			OFFERS.autoAccept,
		]);
	});

	it('reaches the live backend, whose 0.8.2 handler ignores them (they are not in its query struct)', async () => {
		sandbox.configure({ dialect: 'live' });
		const { output, error } = await runWorkflow(
			offerGetMany({ filters: { maxLoanAmount: 100, maxDurationDays: 7 } }),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		expect(output(NODE)).toHaveLength(7);
		expect(sandbox.requests[0].query).toMatchObject({ max_loan_amount: '100', duration_max: '7' });
	});

	it.each([
		[{ maxLoanAmount: 0 }, 'Max Loan Amount', 'Must be greater than 0, got 0.'],
		[
			{ maxDurationDays: 1.5 },
			'Max Duration (Days)',
			'Must be a whole number of days like 30, got 1.5.',
		],
	])('refuses %j before sending anything', async (filters, field, problem) => {
		const { error } = await runWorkflow(offerGetMany({ filters }), { credential: borrower() });
		expect(error?.message).toBe(`Invalid ${field} [item 0]`);
		expect(descriptionOf(error)).toBe(`${field}: ${problem}`);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Offer → Get by Lender: a borrower looks at what one lender offers', () => {
	const LENDERS = SEED_IDS.lenders;

	function offerGetByLender(lenderId: string, parameters: IDataObject = {}) {
		return singleNodeWorkflow({
			resource: 'offer',
			operation: 'getByLender',
			lenderId,
			returnAll: true,
			...parameters,
		});
	}

	it("lists the lender's offers of any collateral, simplified like Get Many", async () => {
		const { output, error } = await runWorkflow(offerGetByLender(LENDERS.northwind), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		const offers = output(NODE);
		expect(ids(offers)).toEqual([
			OFFERS.usdcPolygon,
			OFFERS.usdcSolanaShort,
			OFFERS.usdtLiquidWeekly,
			OFFERS.arkade,
		]);
		expect(offers[0].json).toEqual(SIMPLIFIED_USDC_POLYGON);
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe(
			`GET /api/offers/by-lender/${LENDERS.northwind}`,
		);
		expect(request.query).toEqual({ collateral_asset_type: 'Any' });
	});

	it('applies the filters, Limit and Simplify of Get Many', async () => {
		const { output, error } = await runWorkflow(
			offerGetByLender(LENDERS.satoshiCapital, {
				filters: { loanType: 'All', loanAssets: ['UsdtPol'] },
				returnAll: false,
				limit: 1,
				simplify: false,
			}),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		expect(output(NODE).map((item) => item.json)).toEqual([
			expect.objectContaining({
				id: OFFERS.usdtPolygonIndirect,
				lender: expect.objectContaining({ id: LENDERS.satoshiCapital }),
			}),
		]);
		expect(sandbox.requests[0].query).toEqual({
			collateral_asset_type: 'Any',
			loan_type: 'All',
			loan_assets: 'UsdtPol',
		});
	});

	it('works against the live backend, which serves this list without a key, and with a master key', async () => {
		sandbox.configure({ dialect: 'live' });
		const { output, error } = await runWorkflow(offerGetByLender(LENDERS.alpenBank), {
			credential: borrower({ keyType: 'master', apiKey: sandbox.keys.master }),
		});
		expect(error).toBeUndefined();
		expect(ids(output(NODE))).toEqual([OFFERS.eurBankKyc]);
		const bare = await fetch(`${sandbox.url}/api/offers/by-lender/${LENDERS.alpenBank}`);
		expect(bare.status).toBe(200);
	});

	it('sends the lender ID trimmed and in lower case', async () => {
		const { error } = await runWorkflow(offerGetByLender(` ${LENDERS.northwind.toUpperCase()} `), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].path).toBe(`/api/offers/by-lender/${LENDERS.northwind}`);
	});

	it('says which lender was not found, in both dialects', async () => {
		const missing = '1e000000-0000-4000-8000-0000000000ff';
		const spec = await runWorkflow(offerGetByLender(missing), { credential: borrower() });
		expect(spec.error?.message).toBe(`Not found: lender ${missing} (HTTP 404, LENDER_NOT_FOUND)`);

		sandbox.configure({ dialect: 'live' });
		const live = await runWorkflow(offerGetByLender(missing), { credential: borrower() });
		expect(live.error?.message).toBe(`Not found: lender ${missing} (HTTP 400)`);
		expect(descriptionOf(live.error)).toContain('Server said: "Lender not found".');
	});

	it.each([
		['no UUID', 'northwind', 'Lender ID', /not an ID of the form 8-4-4-4-12/],
		['a bad filter', '', 'Max Interest Rate', /more than 1/],
	])('refuses %s before sending anything', async (_case, lenderId, field, problem) => {
		const { error } = await runWorkflow(
			offerGetByLender(lenderId || LENDERS.northwind, {
				filters: lenderId ? {} : { maxInterestRate: 12 },
			}),
			{ credential: borrower() },
		);
		expect(error?.message).toBe(`Invalid ${field} [item 0]`);
		expect(descriptionOf(error)).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it("refuses the live backend's error body sent with a 200, and shows no key", async () => {
		const server = http.createServer((_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end('{"message":"Lender not found"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const { error, run } = await runWorkflow(offerGetByLender(LENDERS.northwind), {
				credential: borrower({ baseUrl }),
			});
			expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
			expect(descriptionOf(error)).toMatch(
				/it is an error message, although the status says success/,
			);
			expect(everythingVisible(run, error)).not.toContain(sandbox.keys.borrower);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});

describe('Offer → Get: a borrower looks at one offer', () => {
	it('gets an offer by ID, whatever its loan type', async () => {
		const { output, error } = await runWorkflow(offerGet(byId(OFFERS.usdtPolygonIndirect)), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(output(NODE).map((item) => item.json)).toEqual([
			{
				id: OFFERS.usdtPolygonIndirect,
				name: 'USDT on Polygon via partner',
				lender_name: 'Satoshi Capital',
				loan_asset: 'UsdtPol',
				loan_amount_min: 100,
				loan_amount_max: 5000,
				duration_days_min: 14,
				duration_days_max: 180,
				interest_rate: 0.11,
				min_ltv: 0.5,
				kyc_required: false,
				repayment_plan: 'bullet',
				collateral_asset: 'BitcoinBtc',
				loan_payout: 'Indirect',
				status: 'Available',
			},
		]);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe(
			`GET /api/offers/${OFFERS.usdtPolygonIndirect}`,
		);
		// The API may filter this endpoint like the list, with its defaults (Direct, Bitcoin collateral).
		expect(request.query).toEqual({ loan_type: 'All', collateral_asset_type: 'Any' });
	});

	it('finds an offer that takes Arkade collateral (the by-ID route defaults to Bitcoin collateral)', async () => {
		const { output, error } = await runWorkflow(offerGet(byId(OFFERS.arkade)), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(output(NODE)[0].json).toMatchObject({
			id: OFFERS.arkade,
			collateral_asset: 'ArkadeBtc',
		});
	});

	it('gets the offer picked from the list, raw when Simplify is off', async () => {
		const picked = {
			__rl: true,
			mode: 'list',
			value: OFFERS.eurBankKyc,
			cachedResultName: 'Eur · €1,000–€50,000',
		};
		const { output, error } = await runWorkflow(offerGet(picked, { simplify: false }), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(output(NODE)[0].json).toMatchObject({
			id: OFFERS.eurBankKyc,
			kyc_link: 'https://kyc.sandbox.lendasat.example/verify/alpen-credit',
			lender: { name: 'Alpen Credit' },
		});
		expect(sandbox.requests[0].path).toBe(`/api/offers/${OFFERS.eurBankKyc}`);
	});

	it('gets the offer each incoming item names', async () => {
		const { output, error } = await runWorkflow(offerGet(byId('={{ $json.offer }}')), {
			credential: borrower(),
			items: [{ offer: OFFERS.usdcPolygon }, { offer: ` ${OFFERS.usdcSolanaShort} ` }],
		});
		expect(error).toBeUndefined();
		const offers = output(NODE);
		expect(ids(offers)).toEqual([OFFERS.usdcPolygon, OFFERS.usdcSolanaShort]);
		expect(offers.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(sandbox.requests.map((request) => request.path).sort()).toEqual(
			[`/api/offers/${OFFERS.usdcPolygon}`, `/api/offers/${OFFERS.usdcSolanaShort}`].sort(),
		);
	});

	it('says which offer was not found (specification: 404)', async () => {
		const missing = '0ffe0000-0000-4000-8000-0000000000ff';
		const { error } = await runWorkflow(offerGet(byId(missing)), { credential: borrower() });
		expect(error?.message).toBe(`Not found: loan offer ${missing} (HTTP 404, OFFER_NOT_FOUND)`);
		expect(descriptionOf(error)).toContain(
			"Offer → Get: check the ID, and that it exists in the credential's environment.",
		);
	});

	it('reads the live backend\'s 400 "Loan offer not found" as not found', async () => {
		sandbox.configure({ dialect: 'live' });
		const missing = '0ffe0000-0000-4000-8000-0000000000ff';
		const { error } = await runWorkflow(offerGet(byId(missing)), { credential: borrower() });
		expect(error?.message).toBe(`Not found: loan offer ${missing} (HTTP 400)`);
		expect(descriptionOf(error)).toContain('Server said: "Loan offer not found".');
	});

	it('treats a withdrawn offer as not found', async () => {
		sandbox.admin.withdrawOffer(OFFERS.usdcSolanaShort);
		const { error } = await runWorkflow(offerGet(byId(OFFERS.usdcSolanaShort)), {
			credential: borrower(),
		});
		expect(error?.message).toBe(
			`Not found: loan offer ${OFFERS.usdcSolanaShort} (HTTP 404, OFFER_NOT_FOUND)`,
		);
	});

	it.each([
		[
			'an expression giving no UUID',
			'={{ "offer-42" }}',
			'"offer-42" is not an ID of the form 8-4-4-4-12 hexadecimal characters.',
		],
		['an expression giving nothing', '={{ $json.missing }}', 'Expected an ID like'],
	])('refuses %s before sending anything', async (_case, value, problem) => {
		const { error } = await runWorkflow(offerGet(byId(value)), { credential: borrower() });
		expect(error?.message).toBe('Invalid Loan Offer [item 0]');
		expect(descriptionOf(error)).toContain(`Loan Offer: ${problem}`);
		expect(sandbox.requests).toHaveLength(0);
	});

	it("leaves a typed ID that is no UUID to n8n's own check of the By ID field", async () => {
		const { error } = await runWorkflow(offerGet(byId('offer-42')), { credential: borrower() });
		expect(error?.message).toContain('Not a loan offer ID: expected a UUID such as');
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Loan offer picker ("From List")', () => {
	it('lists every offer, cheapest interest first, each named by what a borrower compares', async () => {
		const { results } = await searchList('searchLoanOffers', undefined, borrower());
		expect(results).toEqual([
			{
				name: 'Eur · €1,000–€50,000 · 90–730 days · 8.9% · Alpen Credit · BTC collateral · Direct payout · KYC',
				value: OFFERS.eurBankKyc,
			},
			{
				name: 'UsdtEth · $500–$25,000 · 30–360 days · 9.5% · Satoshi Capital · BTC collateral · Direct payout',
				value: OFFERS.usdtEthereumMonthly,
			},
			{
				name: 'UsdcPol · $100–$5,000 · 7–180 days · 10.0% · Northwind Lending · Arkade collateral · Direct payout',
				value: OFFERS.arkade,
			},
			{
				name: 'UsdtPol · $100–$5,000 · 14–180 days · 11.0% · Satoshi Capital · BTC collateral · Indirect payout',
				value: OFFERS.usdtPolygonIndirect,
			},
			{
				name: 'UsdcPol · $100–$10,000 · 7–365 days · 12.0% · Northwind Lending · BTC collateral · Direct payout',
				value: OFFERS.usdcPolygon,
			},
			{
				name: 'UsdtLiquid · $200–$15,000 · 28–365 days · 13.0% · Northwind Lending · BTC collateral · Direct payout',
				value: OFFERS.usdtLiquidWeekly,
			},
			{
				name: 'UsdtPol · $100–$20,000 · 7–365 days · 14.0% · Satoshi Capital · BTC collateral · Direct payout',
				value: OFFERS.autoAccept,
			},
			{
				name: 'UsdcSol · $50–$2,000 · 7–90 days · 15.0% · Northwind Lending · BTC collateral · Direct payout',
				value: OFFERS.usdcSolanaShort,
			},
		]);
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe('GET /api/offers');
		expect(request.query).toEqual({ loan_type: 'All', collateral_asset_type: 'Any' });
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it.each([
		[
			'a lender',
			'northwind',
			[OFFERS.arkade, OFFERS.usdcPolygon, OFFERS.usdtLiquidWeekly, OFFERS.usdcSolanaShort],
		],
		[
			'an asset and a lender',
			'USDC northwind',
			[OFFERS.arkade, OFFERS.usdcPolygon, OFFERS.usdcSolanaShort],
		],
		['a collateral', 'arkade', [OFFERS.arkade]],
		['a payout type', 'indirect', [OFFERS.usdtPolygonIndirect]],
		['words of the offer name', 'monthly interest', [OFFERS.usdtEthereumMonthly]],
		['an offer ID', OFFERS.eurBankKyc, [OFFERS.eurBankKyc]],
		['nothing that matches', 'dogecoin', []],
	])('narrows the list by %s', async (_case, filter, expected) => {
		const { results } = await searchList('searchLoanOffers', filter, borrower());
		expect(results.map((result) => result.value)).toEqual(expected);
	});

	it('shows offers with values it does not know', async () => {
		const added = sandbox.admin.addOffer({ loan_asset: 'UsdcBase' as never, interest_rate: 0.07 });
		const { results } = await searchList('searchLoanOffers', 'usdcbase', borrower());
		expect(results).toEqual([
			{
				name: 'UsdcBase · $100–$10,000 · 7–365 days · 7.0% · Northwind Lending · BTC collateral · Direct payout',
				value: added.id,
			},
		]);
	});

	it('explains a rejected key without showing it', async () => {
		const wrongKey = 'lndst_sk_0123456789ab_notTheRightSecretAtAll';
		const error = await searchList(
			'searchLoanOffers',
			undefined,
			borrower({ apiKey: wrongKey }),
		).catch((e) => e);
		expect(error.constructor.name).toBe('NodeApiError');
		expect(error.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect(error.description).toMatch(/^Loan Offer list: this operation needs a Borrower Key\./);
		expect(everythingVisible(error)).not.toContain(wrongKey);
	});

	it('asks for a borrower key before sending anything', async () => {
		const error = await searchList(
			'searchLoanOffers',
			undefined,
			borrower({ keyType: 'master', apiKey: sandbox.keys.master }),
		).catch((e) => e);
		expect(error.message).toBe(
			'The Loan Offer list needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('says when the API cannot be reached, without showing the key', async () => {
		const closed = await startSandbox();
		const url = closed.url;
		await closed.close();
		const error = await searchList('searchLoanOffers', undefined, borrower({ baseUrl: url })).catch(
			(e) => e,
		);
		expect(error.constructor.name).toBe('NodeApiError');
		expect(error.message).toBe('Could not get an answer from Lendasat: connection refused');
		expect(error.description).toMatch(
			new RegExp(
				`^Loan Offer list: the request to ${url} failed \\(connection refused \\(ECONNREFUSED\\)\\)\\..*Check the credential.*By ID\\.$`,
			),
		);
		expect(everythingVisible(error)).not.toContain(sandbox.keys.borrower);
	});

	it('says so when the base URL answers with something other than the offer list', async () => {
		const misconfigured = `${sandbox.url}/api/offers/${OFFERS.usdcPolygon}?from=`;
		const error = await searchList(
			'searchLoanOffers',
			undefined,
			borrower({ baseUrl: misconfigured }),
		).catch((e) => e);
		expect(error.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(error.description).toMatch(
			/^Loan Offer list: the answer was not used because it is an object where a JSON array of objects belongs\..*"\{"id":"0ffe0000/,
		);
	});

	it('explains a proxy error page in one readable line', async () => {
		sandbox.configure({ faults: [{ path: '/api/offers', kind: '502-html', times: 5 }] });
		const error = await searchList('searchLoanOffers', undefined, borrower()).catch((e) => e);
		expect(error.message).toBe('Lendasat is temporarily unavailable (HTTP 502) — 2 attempts made');
		expect(error.description).toContain(
			'Server answered: "502 Bad Gateway 502 Bad Gateway sandbox-proxy".',
		);
	});
});

describe('Contract → Create takes the loan offer from the picker and from saved workflows', () => {
	function contractCreate(loanId: IDataObject | string) {
		return singleNodeWorkflow({
			resource: 'contract',
			operation: 'create',
			loanId,
			loanAmount: 1500,
			durationDays: 30,
		});
	}

	it.each([
		[
			'picked from the list',
			{
				__rl: true,
				mode: 'list',
				value: OFFERS.usdcPolygon,
				cachedResultName: 'UsdcPol · $100–$10,000',
			},
		],
		['saved By ID', { __rl: true, mode: 'id', value: OFFERS.usdcPolygon }],
		['saved as a plain string', OFFERS.usdcPolygon],
	])('sends the offer %s as loan_id and id', async (_case, loanId) => {
		const { output, error } = await runWorkflow(contractCreate(loanId), { credential: borrower() });
		expect(error).toBeUndefined();
		expect(output(NODE)[0].json).toMatchObject({ status: 'pending', loan_amount: 1500 });
		expect(sandbox.requests[0].body).toMatchObject({
			loan_id: OFFERS.usdcPolygon,
			id: OFFERS.usdcPolygon,
			loan_amount: 1500,
			duration_days: 30,
		});
	});
});
