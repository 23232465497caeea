import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * The price of bitcoin over time (GET /api/historical-prices, newer than hub 0.8.2: the sandbox follows
 * the schema and Lendasat's mobile client, marked [INF] there). One item holds the whole series, so a
 * threshold check is one IF on `latest`, `low`, `high` or `change_percent`.
 */

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox({ now: () => new Date('2026-11-21T09:00:00Z') });
});
afterAll(async () => sandbox.close());
beforeEach(() => {
	sandbox.reset();
	sandbox.configure({ dialect: 'live' });
});

const NODE = 'Lendasat Borrower';
/** The sandbox's fixed price of one bitcoin now, in USD (loans.ts BTC_PRICE). */
const PRICE_NOW = 100_000;

const credential = (keyType: 'borrower' | 'master' = 'borrower'): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType,
	apiKey: keyType === 'master' ? sandbox.keys.master : sandbox.keys.borrower,
});

interface Point {
	timestamp: string;
	price: number;
}

interface History {
	range: string;
	asset: string;
	count: number;
	first: Point;
	latest: Point;
	low: Point;
	high: Point;
	change_percent: number;
	prices: Point[];
}

async function getHistory(parameters: Record<string, unknown> = {}, keyType?: 'master') {
	const used = credential(keyType);
	const result = await runWorkflow(
		singleNodeWorkflow({ resource: 'price', operation: 'getHistory', ...parameters }),
		{ credential: used },
	);
	expect(everythingVisible(result.run, result.error)).not.toContain(used.apiKey);
	return { ...result, items: result.output(NODE).map((item) => item.json as unknown as History) };
}

const describedBy = (error: unknown) => String((error as { description?: string }).description);

describe('Price → Get History', () => {
	it("gives one item with the day's series, oldest first, and the points a threshold check needs", async () => {
		const { items, error } = await getHistory();

		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const [history] = items;
		expect(history.range).toBe('1D');
		expect(history.asset).toBe('Usd');
		expect(history.count).toBe(history.prices.length);
		expect(history.count).toBeGreaterThan(24);
		// Lendasat's live answer gives prices as text; the node gives numbers.
		expect(history.prices.every(({ price }) => typeof price === 'number')).toBe(true);
		const times = history.prices.map(({ timestamp }) => Date.parse(timestamp));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect(history.latest).toEqual({ timestamp: '2026-11-21T09:00:00.000Z', price: PRICE_NOW });
		expect(history.first).toEqual(history.prices[0]);
		const prices = history.prices.map(({ price }) => price);
		expect(history.low.price).toBe(Math.min(...prices));
		expect(history.high.price).toBe(Math.max(...prices));
		expect(history.change_percent).toBeCloseTo(
			((PRICE_NOW - history.first.price) / history.first.price) * 100,
			2,
		);

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe('/api/historical-prices');
		expect(request.query).toEqual({ range: '1D', asset: 'Usd' });
	});

	it('asks for the range and asset chosen: a year in euros', async () => {
		const { items } = await getHistory({ range: '1Y', asset: 'Eur' });

		const [history] = items;
		expect(sandbox.requests[0].query).toEqual({ range: '1Y', asset: 'Eur' });
		expect(history).toMatchObject({ range: '1Y', asset: 'Eur' });
		expect(history.latest.price).toBe(92_000);
		const span = Date.parse(history.latest.timestamp) - Date.parse(history.first.timestamp);
		expect(span).toBeGreaterThanOrEqual(364 * 86_400_000);
	});

	it("reads the schema's numbers as it reads the live text (the specification dialect)", async () => {
		const live = (await getHistory({ range: '1W' })).items[0];
		sandbox.configure({ dialect: 'spec' });

		const spec = (await getHistory({ range: '1W' })).items[0];

		expect(spec).toEqual(live);
	});

	it('works with a Partner Master Key too: Lendasat asks no key for prices', async () => {
		const { items, error } = await getHistory({ range: 'MAX' }, 'master');

		expect(error).toBeUndefined();
		expect(items[0].range).toBe('MAX');
		expect(sandbox.requests[0].headers['x-api-key']).toBe(sandbox.keys.master);
	});
});

describe('Price → Get History: bad input never reaches the API', () => {
	it.each([
		['range', 'Range', '2D', /Expected one of 1D, 1W, 1M, 1Y, MAX, got "2D"/],
		['asset', 'Asset', 'Btc', /Expected one of Chf, Eur, .*, got "Btc"/],
	])('%s: %s = %j', async (parameter, label, value, problem) => {
		const { error } = await getHistory({ [parameter]: `={{ ${JSON.stringify(value)} }}` });

		expect(error?.message).toBe(`Invalid ${label} [item 0]`);
		expect(describedBy(error)).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Price → Get History: failures', () => {
	it.each([
		['message-body', /error message, although the status says success/],
		['array', /an array of 2 where a JSON object belongs/],
	] as const)('a 200 with %s is an error, never an item', async (body200, problem) => {
		sandbox.configure({ faults: [{ kind: 'bad-200', body200, path: '/api/historical-prices' }] });

		const { items, error } = await getHistory();

		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(describedBy(error)).toMatch(problem);
	});

	it('explains a 500: the price source may be starting up', async () => {
		sandbox.configure({ faults: [{ kind: '500', path: '/api/historical-prices' }] });

		const { error } = await getHistory();

		expect(error?.message).toBe('Lendasat could not load the price history (HTTP 500)');
		expect(describedBy(error)).toContain('Try again shortly');
	});
});

describe("the sandbox's live dialect", () => {
	const get = (query: string) => fetch(`${sandbox.url}/api/historical-prices${query}`);

	it("needs no key and sends prices as decimal text, as Lendasat's mobile client reads them [INF]", async () => {
		const response = await get('?range=1D');
		expect(response.status).toBe(200);
		const body = (await response.json()) as { range: string; prices: { price: unknown }[] };
		expect(body.range).toBe('1D');
		expect(body.prices.at(-1)?.price).toBe('100000.00');
	});

	it.each([
		['', 'Failed to deserialize query string: missing field `range`'],
		[
			'?range=2D',
			'Failed to deserialize query string: unknown variant `2D`, expected one of `1D`, `1W`, `1M`, `1Y`, `MAX`',
		],
	])("refuses %j with axum's plain-text 400", async (query, text) => {
		const response = await get(query);
		expect(response.status).toBe(400);
		expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(await response.text()).toBe(text);
	});
});
