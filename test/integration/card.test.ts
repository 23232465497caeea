import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { SEEDED_CARD_SECRETS } from '../../dev/sandbox/moon';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * PayWithMoon cards: list them (the moon_card_id a PayWithMoon loan tops up), order one or load one
 * through an invoice, read a card's transactions, and the checks Lendasat makes when a loan loads a
 * card. Against the sandbox's live dialect (hub 0.8.2 routes/borrower/cards.rs, contracts.rs).
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

const NODE = 'Lendasat Borrower';
const CARDS = SEED_IDS.cards;
const MAIN = SEEDED_CARD_SECRETS[CARDS.main];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_CARD = 'ca000000-0000-4000-8000-0000000000ff';

const credential = (apiKey = sandbox.keys.borrower): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey,
});

/** Runs one node of the resource; nothing of the key shows anywhere in the run. */
async function run(
	resource: string,
	operation: string,
	parameters: Record<string, unknown> = {},
	used = credential(),
) {
	const result = await runWorkflow(
		singleNodeWorkflow({ resource, operation, ...parameters }, { typeVersion: 1.1 }),
		{ credential: used },
	);
	const visible = everythingVisible(result.run, result.error);
	expect(visible).not.toContain(used.apiKey);
	return { ...result, visible, items: result.output(NODE).map((item) => item.json) };
}

const card = (operation: string, parameters?: Record<string, unknown>, used?: TestCredential) =>
	run('card', operation, parameters, used);

const describedBy = (error: unknown) => String((error as { description?: string }).description);

describe('Card → Get Many', () => {
	it("lists the account's cards with the last four digits of the number, never the number or the security code", async () => {
		const { items, error, visible } = await card('getAll', { returnAll: true });

		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				id: CARDS.main,
				balance: 250.5,
				available_balance: 226.75,
				expiration: '09/29',
				pan_last4: '4242',
			},
			{
				id: CARDS.nearLimit,
				balance: 4990,
				available_balance: 4990,
				expiration: '03/28',
				pan_last4: '5556',
			},
		]);
		// The run is what n8n keeps in the execution log: the card number is nowhere in it.
		expect(visible).not.toContain(MAIN.pan);
		expect(visible).not.toContain(SEEDED_CARD_SECRETS[CARDS.nearLimit].pan);
		expect(visible).not.toMatch(/"cvv"/);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe('/api/moon/cards');
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it('gives the number and security code only with Include Card Secrets on', async () => {
		const { items } = await card('getAll', { returnAll: true, includeCardSecrets: true });

		expect(items[0]).toEqual({
			id: CARDS.main,
			balance: 250.5,
			available_balance: 226.75,
			expiration: '09/29',
			pan_last4: '4242',
			pan: MAIN.pan,
			cvv: MAIN.cvv,
		});
	});

	it('cuts the list to the Limit after receiving it whole', async () => {
		const { items } = await card('getAll', { returnAll: false, limit: 1 });

		expect(items.map((item) => item.id)).toEqual([CARDS.main]);
		expect(sandbox.requests.map((request) => request.query)).toEqual([{}]);
	});

	it('shows each borrower only their own cards', async () => {
		const { items } = await card(
			'getAll',
			{ returnAll: true },
			credential(sandbox.keys.otherBorrower),
		);
		expect(items.map((item) => item.id)).toEqual([CARDS.otherBorrowers]);
	});

	it("keeps the card's number and security code out of the error about an answer it cannot use", async () => {
		const body = JSON.stringify([{ id: 'card-1', pan: MAIN.pan, cvv: MAIN.cvv, balance: 1 }]);
		sandbox.configure({ faults: [{ kind: 'trickle', path: '/api/moon/cards', delayMs: 1, body }] });

		const { items, error, visible } = await card('getAll', { returnAll: true });

		expect(items).toEqual([]);
		expect(describedBy(error)).toContain('its card 1 has the ID "card-1", not a UUID');
		expect(describedBy(error)).toContain('"pan":"[redacted]","cvv":"[redacted]"');
		expect(visible).not.toContain(MAIN.pan);
	});

	it('refuses an error body sent with 200: an error, never a card', async () => {
		sandbox.configure({
			faults: [{ kind: 'bad-200', body200: 'message-body', path: '/api/moon/cards' }],
		});

		const { items, error } = await card('getAll', { returnAll: true });

		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
	});
});

describe('Card → Create and Card → Top Up: an invoice to pay', () => {
	it('orders a card: the invoice says where to pay how much; once it is paid, the card is listed', async () => {
		const ordered = await card('create', { amountUsd: 100, currency: 'UsdcPolygon' });

		expect(ordered.error).toBeUndefined();
		const [request] = sandbox.requests;
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/api/moon/new');
		expect(request.body).toEqual({ amount_usd: 100, currency: 'UsdcPolygon' });
		const [invoice] = ordered.items as [Record<string, unknown>];
		expect(invoice).toEqual({
			invoice_id: expect.stringMatching(UUID),
			address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
			// The amount plus the sandbox's 1 % top-up fee, in USDC at par.
			usd_amount: 101,
			crypto_amount: 101,
			currency: 'UsdcPolygon',
			expires_at: expect.any(String),
		});

		// PayWithMoon sees the payment (outside the API).
		const made = sandbox.admin.payMoonInvoice(String(invoice.invoice_id));

		const listed = await card('getAll', { returnAll: true });
		expect(listed.items.map((item) => item.id)).toContain(made.id);
		expect(listed.items.find((item) => item.id === made.id)).toMatchObject({ balance: 100 });
	});

	it('tops up a card in bitcoin: the item names the card, the invoice a Bitcoin address and sats', async () => {
		const { items, error } = await card('topUp', {
			cardId: CARDS.main.toUpperCase(),
			amountUsd: 49.99,
			currency: 'BtcBitcoin',
		});

		expect(error).toBeUndefined();
		expect(sandbox.requests[0].path).toBe('/api/moon/topup');
		expect(sandbox.requests[0].body).toEqual({
			card_id: CARDS.main,
			amount_usd: 49.99,
			currency: 'BtcBitcoin',
		});
		expect(items).toEqual([
			{
				invoice_id: expect.stringMatching(UUID),
				card_id: CARDS.main,
				address: expect.stringMatching(/^tb1/),
				usd_amount: 50.49,
				crypto_amount: 0.0005049,
				currency: 'BtcBitcoin',
				expires_at: expect.any(String),
			},
		]);

		sandbox.admin.payMoonInvoice(String(items[0].invoice_id));
		expect(sandbox.state.moonCards.get(CARDS.main)?.balance).toBe(300.49);
	});

	it('pays in USDT on Tron too', async () => {
		const { items } = await card('topUp', {
			cardId: CARDS.main,
			amountUsd: 20,
			currency: 'UsdtTron',
		});
		expect(items[0]).toMatchObject({ currency: 'UsdtTron', address: expect.stringMatching(/^T/) });
	});

	it.each([
		["another borrower's card", CARDS.otherBorrowers],
		['an unknown card', UNKNOWN_CARD],
	])('says "Card not found" for %s', async (_what, cardId) => {
		const { items, error } = await card('topUp', {
			cardId,
			amountUsd: 10,
			currency: 'UsdcPolygon',
		});

		expect(items).toEqual([]);
		expect(error?.message).toBe('Card not found (HTTP 400)');
		expect(describedBy(error)).toContain('Card → Get Many lists the IDs of your cards');
		expect(sandbox.state.moonInvoices.size).toBe(0);
	});

	it("explains an invoice PayWithMoon refused (the sandbox's Moon takes at least 1 USD)", async () => {
		const { error } = await card('create', { amountUsd: 0.5, currency: 'UsdcPolygon' });

		expect(error?.message).toBe('PayWithMoon could not make the invoice (HTTP 500)');
		expect(describedBy(error)).toContain('no invoice was stored and nothing is owed');
	});

	it.each(['create', 'topUp'])(
		'%s is sent once: after a failure that may have made an invoice, never again',
		async (operation) => {
			const path = operation === 'create' ? '/api/moon/new' : '/api/moon/topup';
			sandbox.configure({ faults: [{ kind: '503', method: 'POST', path, after: true }] });

			const { error } = await card(operation, {
				cardId: CARDS.main,
				amountUsd: 25,
				currency: 'UsdcPolygon',
			});

			expect(error?.message).toMatch(/HTTP 503/);
			expect(sandbox.requests).toHaveLength(1);
			expect(sandbox.state.moonInvoices.size).toBe(1);
		},
	);

	it.each(['create', 'topUp'])('%s refuses an error body sent with 200', async (operation) => {
		sandbox.configure({
			faults: [{ kind: 'bad-200', body200: 'message-body', path: '/api/moon' }],
		});

		const { items, error } = await card(operation, {
			cardId: CARDS.main,
			amountUsd: 25,
			currency: 'UsdcPolygon',
		});

		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(describedBy(error)).toMatch(/error message, although the status says success/);
	});
});

describe('Card → Get Transactions', () => {
	it("lists a card's payments, refunds and declined payments as {type, data}", async () => {
		const { items, error } = await card('getTransactions', { cardId: CARDS.main, returnAll: true });

		expect(error).toBeUndefined();
		expect(sandbox.requests[0].path).toBe(`/api/moon/transactions/${CARDS.main}`);
		expect(items.map((item) => item.type)).toEqual([
			'Card',
			'CardAuthorizationRefund',
			'DeclineData',
			'Card',
		]);
		expect(items[0]).toEqual({
			type: 'Card',
			data: expect.objectContaining({
				merchant: 'Sandbox Coffee Roasters',
				amount: 4.5,
				transaction_status: 'Settled',
				datetime: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
			}),
		});
		expect(items[2]).toEqual({
			type: 'DeclineData',
			data: expect.objectContaining({ customer_friendly_description: 'Insufficient funds' }),
		});
	});

	it('cuts the list to the Limit', async () => {
		const { items } = await card('getTransactions', { cardId: CARDS.main, limit: 2 });
		expect(items).toHaveLength(2);
	});

	it('says "Card not found" for a card that is not yours', async () => {
		const { error } = await card('getTransactions', { cardId: CARDS.otherBorrowers });
		expect(error?.message).toBe('Card not found (HTTP 400)');
	});
});

describe('Card: bad input never reaches the API', () => {
	it.each([
		['create', { amountUsd: 0 }, 'Amount (USD)', /Must be greater than 0/],
		['create', { amountUsd: -5 }, 'Amount (USD)', /Must be greater than 0/],
		['create', { amountUsd: 12.345 }, 'Amount (USD)', /at most 2 decimal places/],
		[
			'create',
			{ amountUsd: 5000.01 },
			'Amount (USD)',
			/at most 5000.*a Moon card holds at most 5000 USD/,
		],
		['create', { amountUsd: '={{ "ten" }}' }, 'Amount (USD)', /Expected an amount/],
		['create', { amountUsd: '={{ "12,50" }}' }, 'Amount (USD)', /uses a comma/],
		[
			'create',
			{ currency: '={{ "Eth" }}' },
			'Currency',
			/Expected one of BtcBitcoin, UsdcPolygon, UsdtTron/,
		],
		['topUp', { cardId: 'my card' }, 'Card ID', /contains spaces/],
		['topUp', { cardId: '  ' }, 'Card ID', /Must not be empty/],
		['getTransactions', { cardId: '4242' }, 'Card ID', /is not an ID/],
		['getTransactions', { cardId: CARDS.main, returnAll: false, limit: 0 }, 'Limit', /at least 1/],
	])('%s with %j', async (operation, parameters, label, problem) => {
		const { error } = await card(operation, {
			cardId: CARDS.main,
			amountUsd: 10,
			currency: 'UsdcPolygon',
			...parameters,
		});

		expect(error?.message).toBe(`Invalid ${label} [item 0]`);
		expect(describedBy(error)).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('refuses a Partner Master Key before sending anything', async () => {
		const { error } = await card(
			'getAll',
			{},
			{ ...credential(sandbox.keys.master), keyType: 'master' },
		);
		expect(error?.message).toBe(
			'Card → Get Many needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('loading a card with a loan: Contract → Create with a moon_card_id', () => {
	/** A PayWithMoon loan on the USDC-on-Polygon offer, topping up `moonCardId`. */
	const takeMoonLoan = (moonCardId: string, loanAmount = 100) =>
		run('contract', 'create', {
			loanId: { __rl: true, mode: 'id', value: SEED_IDS.offers.usdcPolygon },
			loanAmount,
			durationDays: 30,
			additionalFields: {
				collateralAddress: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
				borrowerPublicKey: '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
				derivationPath: "m/84'/1'/0'/0/0",
				loanType: 'PayWithMoon',
				extraBodyFields: JSON.stringify({ moon_card_id: moonCardId }),
			},
		});

	it('takes a card ID from Card → Get Many', async () => {
		const listed = await card('getAll', { returnAll: true });
		const { items, error } = await takeMoonLoan(String(listed.items[0].id));

		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({ status: 'Requested', loan_type: 'PayWithMoon' });
	});

	it.each([
		['US', 'Moon cards cannot be topped up from the US (HTTP 451)', /outside the US/],
		['unknown', 'Lendasat could not tell where the request comes from (HTTP 451)', /saw none/],
	] as const)('is refused from a caller located %s', async (location, message, hint) => {
		sandbox.admin.setClientLocation(location);

		const { error } = await takeMoonLoan(CARDS.main);

		expect(error?.message).toBe(message);
		expect(describedBy(error)).toMatch(hint);
		expect(sandbox.state.contracts.size).toBe(6);
	});

	it('is refused when the card would hold more than 5,000 USD', async () => {
		const { error } = await takeMoonLoan(CARDS.nearLimit, 100);

		expect(error?.message).toBe('The card would hold more than 5000 USD (HTTP 400)');
		expect(describedBy(error)).toContain(
			'Server said: "Invalid Moon card top-up request: current balance (4990) + loan amount (100) > limit (5000)".',
		);
	});

	it('says "Card not found", not "offer not found", for an unknown card (404)', async () => {
		const { error } = await takeMoonLoan(UNKNOWN_CARD);
		expect(error?.message).toBe('Card not found (HTTP 404)');
	});
});

describe("the sandbox's live dialect, as hub 0.8.2's cards router answers", () => {
	const post = (path: string, body: string, type = 'application/json') =>
		fetch(`${sandbox.url}${path}`, {
			method: 'POST',
			headers: { 'x-api-key': sandbox.keys.borrower, 'content-type': type },
			body,
		});

	it.each([
		[
			'{"currency":"UsdcPolygon"}',
			'Invalid JSON: Failed to deserialize the JSON body into the target type',
		],
		['{"currency":', 'Invalid JSON: Failed to parse the request body as JSON'],
	])(
		'answers the body %j with 400 {message} (cards.rs:549-555, 617-620)',
		async (body, message) => {
			const response = await post('/api/moon/new', body);
			expect(response.status).toBe(400);
			expect(await response.json()).toEqual({ message });
		},
	);

	it('answers a card ID that is not a UUID with 400 "Invalid card ID provided" (cards.rs:134, 608-611)', async () => {
		const response = await fetch(`${sandbox.url}/api/moon/transactions/not-a-card`, {
			headers: { 'x-api-key': sandbox.keys.borrower },
		});
		expect(response.status).toBe(400);
		expect(await response.json()).toEqual({ message: 'Invalid card ID provided' });
	});
});
