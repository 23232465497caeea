import { SEED_IDS, startSandbox, type Contract, type Sandbox } from '../../dev/sandbox/server';
import type { TestCredential } from '../../dev/harness/n8n';
import { operationRunner } from '../helpers/operation';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * Contract → Get Collateral Health through n8n-core against the sandbox: a borrower watching an
 * open loan while the price moves, topping it up with the sats the node says, and the contracts
 * that have no health (not funded, closed, liquidated, no price). The expected figures are worked
 * out here from what Lendasat's API itself serves (the contract's liquidation_price, its
 * balance_outstanding and collateral), never from the node's own arithmetic.
 */

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => {
	sandbox.reset();
	sandbox.configure({ dialect: 'live' });
});

const CONTRACTS = SEED_IDS.contracts;
const OFFERS = SEED_IDS.offers;
const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });
const run = operationRunner(() => sandbox, 'contract');
const health = (
	id: string,
	parameters: Record<string, unknown> = {},
	credential?: TestCredential,
) => run('getHealth', { contractId: byId(id), ...parameters }, { typeVersion: 1.1, credential });

/** The contract as Lendasat's API serves it now, in the sandbox's dialect. */
async function served(id: string): Promise<Contract> {
	const response = await fetch(`${sandbox.url}/api/contracts/${id}`, {
		headers: { 'x-api-key': sandbox.keys.borrower },
	});
	sandbox.requests.length = 0;
	return (await response.json()) as Contract;
}

/** The sats that count for the LTV, from the served record: the total sent less the origination fee. */
const countedSats = (record: Contract) =>
	Math.max(record.collateral_sats, record.deposited_sats) - record.origination_fee_sats;

/** LTV = owed / (collateral in BTC × price), in plain doubles. */
const ltvOf = (record: Contract, sats: number, price: number) =>
	record.balance_outstanding / ((sats / 1e8) * price);

type Health = {
	ltv: number;
	zone: string;
	price: { value: number; currency: string; at: string | null; source: string; note: string };
	owed: number;
	collateral_sats: number;
	thresholds: Array<{
		name: string;
		ltv: number;
		price: number;
		distance_percent: number;
		reached: boolean;
	}>;
	target_ltv: number;
	sats_to_target: number;
	btc_to_target: string;
	payment_uri: string | null;
	[key: string]: unknown;
};

/** A paid-out loan of 2,000 USDT on Ethereum, as the main borrower's, in PrincipalGiven. */
function openLoan(partial: Partial<Contract> = {}): Contract {
	return sandbox.admin.createContract(sandbox.keys.borrower, {
		loan_id: OFFERS.usdtEthereumMonthly,
		loan_amount: 2000,
		duration_days: 90,
		status: 'PrincipalGiven',
		...partial,
	});
}

describe('Contract → Get Collateral Health of an open loan', () => {
	it("gives the LTV at Lendasat's latest price, each threshold's price and distance, and agrees with the contract's liquidation price", async () => {
		const record = await served(CONTRACTS.principalGiven);
		const { items, error, sent } = await health(CONTRACTS.principalGiven);
		expect(error).toBeUndefined();
		expect(sent).toEqual([
			`GET /api/contracts/${CONTRACTS.principalGiven}`,
			'GET /api/historical-prices',
		]);
		expect(sandbox.requests[1].query).toEqual({ range: '1D', asset: 'Usd' });
		const [item] = items as Health[];
		const sats = countedSats(record);
		expect(item).toMatchObject({
			contract_id: CONTRACTS.principalGiven,
			status: 'PrincipalGiven',
			liquidation_status: 'Healthy',
			collateral_asset: 'BitcoinBtc',
			loan_asset: record.loan_asset,
			zone: 'healthy',
			owed: record.balance_outstanding,
			collateral_sats: sats,
			origination_fee_sats: record.origination_fee_sats,
			legacy_liquidation_threshold: false,
			liquidation_price_reported: record.liquidation_price,
			target_ltv: record.initial_ltv,
			target_ltv_from: 'initial_ltv',
			collateral_address: record.contract_address,
		});
		// The sandbox's price series ends at 100,000 USD now.
		expect(item.price).toMatchObject({
			value: 100_000,
			currency: 'USD',
			source: 'lendasat_price_history',
			at: new Date(Date.now()).toISOString(),
		});
		expect(item.price.note).toMatch(/BitMEX index .*WebSocket/);
		expect(item.ltv).toBeCloseTo(ltvOf(record, sats, 100_000), 6);
		expect(item.thresholds.map(({ name, ltv }) => [name, ltv])).toEqual([
			['margin_call_1', 0.8],
			['margin_call_2', 0.85],
			['liquidation', 0.9],
		]);
		// The node's liquidation price is the contract's own, to the cent.
		expect(Math.abs(item.thresholds[2].price - record.liquidation_price)).toBeLessThan(0.005);
		for (const threshold of item.thresholds) {
			const price = record.balance_outstanding / ((sats / 1e8) * threshold.ltv);
			expect(threshold.price).toBeCloseTo(price, 2);
			expect(threshold.distance_percent).toBeCloseTo(((100_000 - price) / 100_000) * 100, 2);
			expect(threshold.reached).toBe(false);
		}
		// One installment is confirmed, so the LTV is below the initial one: nothing to send.
		expect(item.ltv).toBeLessThan(record.initial_ltv);
		expect(item).toMatchObject({ sats_to_target: 0, btc_to_target: '0', payment_uri: null });
	});

	it('serves the same figures in the spec dialect, where collateral_sats and deposited_sats are the other way round', async () => {
		const live = (await health(CONTRACTS.principalGiven)).items[0];
		sandbox.configure({ dialect: 'spec' });
		const record = await served(CONTRACTS.principalGiven);
		expect(record.deposited_sats - record.collateral_sats).toBe(record.origination_fee_sats);
		const spec = (await health(CONTRACTS.principalGiven)).items[0];
		expect(spec).toEqual(live);
	});

	it('after a price fall says the margin calls are reached, how many sats bring the LTV back to the initial one, and those sats do', async () => {
		const loan = openLoan();
		const record = await served(loan.id);
		// A price at which the loan sits between the second margin call and liquidation.
		const sats = countedSats(record);
		const price = Math.round(record.balance_outstanding / ((sats / 1e8) * 0.87));
		sandbox.admin.setBtcPrice(price);
		const { items, error } = await health(loan.id);
		expect(error).toBeUndefined();
		const [item] = items as Health[];
		expect(item.zone).toBe('margin_call_2');
		expect(item.thresholds.map(({ reached }) => reached)).toEqual([true, true, false]);
		expect(item.ltv).toBeCloseTo(ltvOf(record, sats, price), 6);
		expect(item.thresholds[2].distance_percent).toBeGreaterThan(0);
		expect(item.thresholds[0].distance_percent).toBeLessThan(0);
		expect(item.target_ltv).toBe(record.initial_ltv);
		const needed =
			Math.ceil(record.balance_outstanding / ((price / 1e8) * record.initial_ltv)) - sats;
		expect(item.sats_to_target).toBe(needed);
		expect(item.btc_to_target).toBe((needed / 1e8).toFixed(8).replace(/0+$/, ''));
		expect(item.payment_uri).toBe(
			`bitcoin:${record.contract_address}?amount=${item.btc_to_target}`,
		);

		// The borrower sends exactly that; Lendasat counts it and the loan is back at its target.
		sandbox.admin.addCollateral(loan.id, item.sats_to_target);
		const after = (await health(loan.id)).items[0] as Health;
		expect(after.collateral_sats).toBe(sats + needed);
		expect(after.ltv).toBeLessThanOrEqual(record.initial_ltv);
		expect(after).toMatchObject({ zone: 'healthy', sats_to_target: 0, payment_uri: null });
		// The contract's liquidation price moved down with the new collateral, and still agrees.
		const topped = await served(loan.id);
		expect(topped.liquidation_price).toBeLessThan(record.liquidation_price);
		expect(Math.abs(after.thresholds[2].price - topped.liquidation_price)).toBeLessThan(0.005);
	});

	it('one sat less than sats_to_target leaves the LTV above the target', async () => {
		const loan = openLoan();
		const record = await served(loan.id);
		const price = Math.round(record.balance_outstanding / ((countedSats(record) / 1e8) * 0.82));
		sandbox.admin.setBtcPrice(price);
		const first = (await health(loan.id)).items[0] as Health;
		expect(first.zone).toBe('margin_call_1');
		sandbox.admin.addCollateral(loan.id, first.sats_to_target - 1);
		const short = (await health(loan.id)).items[0] as Health;
		expect(short.sats_to_target).toBe(1);
		expect(
			record.balance_outstanding /
				(((countedSats(record) + first.sats_to_target - 1) / 1e8) * price),
		).toBeGreaterThan(record.initial_ltv);
	});

	it('aims at the Target LTV given, and computes at the BTC Price given without reading a price', async () => {
		const loan = openLoan();
		const record = await served(loan.id);
		const { items, sent } = await health(loan.id, { targetLtv: 0.4, btcPrice: 50_000 });
		expect(sent).toEqual([`GET /api/contracts/${loan.id}`]);
		const [item] = items as Health[];
		expect(item.price).toMatchObject({
			value: 50_000,
			currency: 'USD',
			at: null,
			source: 'parameter',
		});
		expect(item).toMatchObject({ target_ltv: 0.4, target_ltv_from: 'parameter' });
		expect(item.sats_to_target).toBe(
			Math.ceil(record.balance_outstanding / ((50_000 / 1e8) * 0.4)) - countedSats(record),
		);
	});

	it('liquidates a contract created before 2025-03-01 at 0.95, and still agrees with its liquidation price', async () => {
		const loan = openLoan({ created_at: '2025-01-15T10:00:00.000Z' });
		const record = await served(loan.id);
		// The API reports the newer threshold for every contract.
		expect(record.ltv_threshold_liquidation).toBe(0.9);
		const [item] = (await health(loan.id)).items as Health[];
		expect(item.legacy_liquidation_threshold).toBe(true);
		expect(item.thresholds.map(({ ltv }) => ltv)).toEqual([0.8, 0.85, 0.95]);
		expect(Math.abs(item.thresholds[2].price - record.liquidation_price)).toBeLessThan(0.005);
	});

	it('values a EUR loan at the EUR price', async () => {
		const loan = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: OFFERS.eurBankKyc,
			loan_amount: 2000,
			duration_days: 120,
			status: 'PrincipalGiven',
		});
		const { items, error } = await health(loan.id);
		expect(error).toBeUndefined();
		expect(sandbox.requests[1].query).toEqual({ range: '1D', asset: 'Eur' });
		expect((items[0] as Health).price).toMatchObject({ value: 92_000, currency: 'EUR' });
	});

	it('gives an Arkade loan its Ark address and no bitcoin: URI', async () => {
		const loan = openLoan({ loan_id: OFFERS.arkade, loan_amount: 1000, duration_days: 30 });
		const record = await served(loan.id);
		expect(record.contract_address).toMatch(/^tark1/);
		sandbox.admin.setBtcPrice(60_000);
		const [item] = (await health(loan.id)).items as Health[];
		expect(item).toMatchObject({
			collateral_asset: 'ArkadeBtc',
			collateral_address: record.contract_address,
			payment_uri: null,
		});
		expect(item.sats_to_target).toBeGreaterThan(0);
	});

	it('reads the price once for all the items of a run, each from Get Many’s output', async () => {
		const second = openLoan();
		const { items, error, sent } = await run(
			'getHealth',
			{ contractId: byId('={{ $json.id }}') },
			{ typeVersion: 1.1, items: [{ id: CONTRACTS.principalGiven }, { id: second.id }] },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.contract_id)).toEqual([CONTRACTS.principalGiven, second.id]);
		expect(sent.filter((request) => request === 'GET /api/historical-prices')).toHaveLength(1);
	});

	it('works with a master key acting as the borrower', async () => {
		const master: TestCredential = {
			environment: 'custom',
			baseUrl: sandbox.url,
			keyType: 'master',
			apiKey: sandbox.keys.master,
		};
		const { items, error } = await run(
			'getHealth',
			{
				contractId: byId(CONTRACTS.principalGiven),
				options: { borrowerApiKey: sandbox.keys.borrower },
			},
			{ typeVersion: 1.1, credential: master },
		);
		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({ contract_id: CONTRACTS.principalGiven, zone: 'healthy' });
		expect(
			sandbox.requests.every((request) => request.headers['x-api-key'] === sandbox.keys.borrower),
		).toBe(true);
	});
});

describe('Contract → Get Collateral Health refuses what it cannot compute', () => {
	it.each([
		['a request', CONTRACTS.requested, 'Requested', /not been sent yet/],
		[
			'an approved request that is not funded yet',
			CONTRACTS.approved,
			'Approved',
			/not been sent yet/,
		],
		['a closed loan', CONTRACTS.closed, 'Closed', /repaid or closed/],
	])('%s: an item error, and no price is read', async (_, id, status, why) => {
		const { error, description, sent, items } = await health(id);
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			`Contract ${id} is ${status}: it has no collateral health [item 0]`,
		);
		expect(description).toMatch(why);
		expect(description).toMatch(/only for an open loan \(status PrincipalGiven\)/);
		expect(sent).toEqual([`GET /api/contracts/${id}`]);
	});

	it('refuses a loan Lendasat has marked Liquidated', async () => {
		sandbox.admin.setLiquidationStatus(CONTRACTS.principalGiven, 'Liquidated');
		const { error, description } = await health(CONTRACTS.principalGiven);
		expect(error?.message).toBe(
			`Contract ${CONTRACTS.principalGiven} is liquidated: it has no collateral health [item 0]`,
		);
		expect(description).toMatch(/adding collateral no longer changes that/);
	});

	it('gives no number when Lendasat has no price', async () => {
		sandbox.admin.setBtcPrice(null);
		const { error, description, items } = await health(CONTRACTS.principalGiven);
		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat gave no bitcoin price [item 0]');
		expect(description).toMatch(/enter the price in BTC Price/);
	});

	it('says so when the server has no price history (hub 0.8.2)', async () => {
		sandbox.configure({ faults: [{ kind: '404', path: '/api/historical-prices' }] });
		const { error, description } = await health(CONTRACTS.principalGiven);
		expect(error?.message).toBe('This Lendasat server serves no bitcoin price [item 0]');
		expect(description).toMatch(/answered 404 to GET \/api\/historical-prices/);
	});

	it('names the price read when it fails', async () => {
		sandbox.configure({
			faults: [{ kind: '500', path: '/api/historical-prices', times: 10 }],
		});
		const { error, description } = await health(CONTRACTS.principalGiven);
		expect(error).toBeDefined();
		expect(description).toMatch(/reads Lendasat's latest bitcoin price .*nothing was computed/);
	});

	it("fails the item when the contract's liquidation price does not add up, rather than give wrong figures", async () => {
		const record = await served(CONTRACTS.principalGiven);
		const body = JSON.stringify({ ...record, liquidation_price: record.liquidation_price + 0.02 });
		sandbox.configure({
			faults: [
				{ kind: 'trickle', path: `/api/contracts/${CONTRACTS.principalGiven}`, body, delayMs: 0 },
			],
		});
		const { error, description, items } = await health(CONTRACTS.principalGiven, {
			btcPrice: 90_000,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			`Lendasat's numbers for contract ${CONTRACTS.principalGiven} do not add up [item 0]`,
		);
		expect(description).toMatch(/gives no figures rather than wrong ones/);
	});

	it('gives no collateral address it cannot vouch for', async () => {
		const loan = openLoan({ contract_address: 'bc1qnotanaddress' });
		const { error, description, items } = await health(loan.id);
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			`Lendasat's contract_address of contract ${loan.id} is not one to send collateral to [item 0]`,
		);
		expect(description).toMatch(/is not a valid Bitcoin address/);
	});

	it.each([
		[{ targetLtv: 1.5 }, 'Invalid Target LTV [item 0]'],
		[{ btcPrice: -5 }, 'Invalid BTC Price [item 0]'],
	])('refuses %j before sending anything', async (parameters, message) => {
		const { error, sent } = await health(CONTRACTS.principalGiven, parameters);
		expect(error?.message).toBe(message);
		expect(sent).toEqual([]);
	});

	it('refuses a Target LTV at or above the liquidation threshold', async () => {
		const { error, description } = await health(CONTRACTS.principalGiven, { targetLtv: 0.9 });
		expect(error?.message).toMatch(
			/The target LTV 0.9 is not below contract .* liquidation threshold/,
		);
		expect(description).toMatch(/liquidation threshold is 0.9/);
	});
});
