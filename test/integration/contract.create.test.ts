import { startSandbox, SEED_IDS, type Sandbox } from '../sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../helpers/n8n';
import { everythingVisible } from '../helpers/secrets';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const OFFER = SEED_IDS.offers.usdcPolygon; // 100–10,000 USD, 7–365 days
const borrower = (overrides: Partial<TestCredential> = {}): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
	...overrides,
});

function contractCreate(parameters: Record<string, unknown> = {}, settings = {}) {
	return singleNodeWorkflow(
		{
			resource: 'contract',
			operation: 'create',
			loanId: { __rl: true, mode: 'id', value: OFFER },
			loanAmount: 1500,
			durationDays: 30,
			...parameters,
		},
		settings,
	);
}

describe('Contract → Create: a borrower asks for a loan', () => {
	it('sends exactly the specification body and returns the pending contract', async () => {
		const { output, error } = await runWorkflow(
			contractCreate({
				additionalFields: {
					collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
					repaymentAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
				},
			}),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		const [contract] = output('Lendasat Borrower');
		expect(contract.json).toMatchObject({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			status: 'pending',
			loan_amount: 1500,
			created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
		});
		expect(contract.pairedItem).toEqual({ item: 0 });

		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe('POST /api/contracts');
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({
			loan_id: OFFER,
			loan_amount: 1500,
			duration_days: 30,
			collateral_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
			repayment_address: '0x52908400098527886E0F7030069857D2E4169EE7',
		});
	});

	it('sends the minimal request when no additional field is set', async () => {
		await runWorkflow(contractCreate(), { credential: borrower() });
		expect(sandbox.requests[0].body).toEqual({ loan_id: OFFER, loan_amount: 1500, duration_days: 30 });
	});

	it('takes the offer ID as a plain string too (workflows saved before the picker)', async () => {
		const { error } = await runWorkflow(contractCreate({ loanId: OFFER }), { credential: borrower() });
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].body).toMatchObject({ loan_id: OFFER });
	});

	it('converts numbers that arrive as text from an expression', async () => {
		await runWorkflow(contractCreate({ loanAmount: '={{ "250.50" }}', durationDays: '={{ "14" }}' }), { credential: borrower() });
		expect(sandbox.requests[0].body).toMatchObject({ loan_amount: 250.5, duration_days: 14 });
	});

	it('merges extra JSON body fields the live backend needs', async () => {
		await runWorkflow(
			contractCreate({ additionalFields: { extraBodyFields: '{"loan_type": "StableCoin", "borrower_pk": "02ab"}' } }),
			{ credential: borrower() },
		);
		expect(sandbox.requests[0].body).toEqual({
			loan_id: OFFER,
			loan_amount: 1500,
			duration_days: 30,
			loan_type: 'StableCoin',
			borrower_pk: '02ab',
		});
	});

	it('creates one contract per item, each with its own idempotency key', async () => {
		sandbox.configure({ idempotency: true });
		const { output } = await runWorkflow(contractCreate({ loanAmount: '={{ $json.amount }}' }), {
			credential: borrower(),
			items: [{ amount: 100 }, { amount: 200 }, { amount: 300 }],
		});
		expect(output('Lendasat Borrower').map((item) => item.json.loan_amount)).toEqual([100, 200, 300]);
		const keys = sandbox.requests.map((request) => request.headers['idempotency-key']);
		expect(new Set(keys).size).toBe(3);
		expect(sandbox.stats().contractsCreated).toBe(3);
	});
});

describe('Contract → Create: the idempotency key', () => {
	it('is the same for an item in every run of the same execution, and differs across items', async () => {
		const run = () =>
			runWorkflow(contractCreate(), { credential: borrower(), executionId: '4711', items: [{}, {}] });
		await run();
		await run();
		const keys = sandbox.requests.map((request) => request.headers['idempotency-key']);
		expect(keys[0]).toBe(keys[2]);
		expect(keys[1]).toBe(keys[3]);
		expect(keys[0]).not.toBe(keys[1]);
		expect(keys[0]).toMatch(/^n8n-4711-/);
	});

	it('makes a repeated execution (n8n Retry On Fail) return the first contract instead of a second one', async () => {
		sandbox.configure({ idempotency: true });
		const first = await runWorkflow(contractCreate(), { credential: borrower(), executionId: '4712' });
		const again = await runWorkflow(contractCreate(), { credential: borrower(), executionId: '4712' });
		expect(again.output('Lendasat Borrower')[0].json.id).toBe(first.output('Lendasat Borrower')[0].json.id);
		expect(sandbox.stats().contractsCreated).toBe(1);
	});

	it('can be set by an expression', async () => {
		await runWorkflow(contractCreate({ options: { idempotencyKey: '={{ "order-" + $json.order }}' } }), {
			credential: borrower(),
			items: [{ order: 1042 }],
		});
		expect(sandbox.requests[0].headers['idempotency-key']).toBe('order-1042');
	});

	it('can be turned off', async () => {
		await runWorkflow(contractCreate({ options: { sendIdempotencyKey: false } }), { credential: borrower() });
		expect(sandbox.requests[0].headers['idempotency-key']).toBeUndefined();
	});

	it('must be printable and at most 255 characters', async () => {
		const { error } = await runWorkflow(contractCreate({ options: { idempotencyKey: 'has space' } }), { credential: borrower() });
		expect(error?.message).toBe('Invalid Idempotency Key [item 0]');
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract → Create: bad input is refused before any request', () => {
	const cases: Array<[string, Record<string, unknown>, string, Partial<TestCredential>?]> = [
		['an offer ID from an expression that is not a UUID', { loanId: { __rl: true, mode: 'id', value: '={{ "offer-1" }}' } }, 'Invalid Loan Offer [item 0]'],
		['a zero amount', { loanAmount: 0 }, 'Invalid Loan Amount [item 0]'],
		['a negative amount', { loanAmount: -5 }, 'Invalid Loan Amount [item 0]'],
		['an amount that is not a number', { loanAmount: '={{ "lots" }}' }, 'Invalid Loan Amount [item 0]'],
		['an infinite amount', { loanAmount: '={{ Infinity }}' }, 'Invalid Loan Amount [item 0]'],
		['a zero duration', { durationDays: 0 }, 'Invalid Duration (Days) [item 0]'],
		['a fractional duration', { durationDays: 1.5 }, 'Invalid Duration (Days) [item 0]'],
		['a mistyped Bitcoin address', { additionalFields: { collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr' } }, 'Invalid Collateral Address [item 0]'],
		['a base58 address with a bad checksum', { additionalFields: { collateralAddress: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb' } }, 'Invalid Collateral Address [item 0]'],
		['a mainnet address in development', { additionalFields: { collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' } }, 'Invalid Collateral Address [item 0]', { environment: 'development' }],
		['a test-network address in production', { additionalFields: { collateralAddress: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' } }, 'Invalid Collateral Address [item 0]', { environment: 'production' }],
		['an empty repayment address', { additionalFields: { repaymentAddress: '' } }, 'Invalid Repayment Address [item 0]'],
		['extra JSON that does not parse', { additionalFields: { extraBodyFields: '{"a": ' } }, 'Invalid Extra Body Fields (JSON) [item 0]'],
		['extra JSON that is not an object', { additionalFields: { extraBodyFields: '[1, 2]' } }, 'Invalid Extra Body Fields (JSON) [item 0]'],
		['extra JSON overriding a field of the node', { additionalFields: { extraBodyFields: '{"loan_amount": 5}' } }, 'Invalid Extra Body Fields (JSON) [item 0]'],
	];

	it.each(cases)('%s', async (_case, parameters, message, credential = {}) => {
		const { error } = await runWorkflow(contractCreate(parameters), { credential: borrower(credential) });
		expect(error?.message).toBe(message);
		expect((error as { description?: string }).description).toEqual(expect.any(String));
		expect(sandbox.requests).toHaveLength(0);
	});

	it('leaves a typed offer ID that is not a UUID to n8n, which flags the field before running', async () => {
		const { error } = await runWorkflow(contractCreate({ loanId: { __rl: true, mode: 'id', value: 'offer-1' } }), { credential: borrower() });
		expect(error?.message).toMatch(/Not a loan offer ID|UUID/);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('names the network a wrong-network address belongs to', async () => {
		const { error } = await runWorkflow(
			contractCreate({ additionalFields: { collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' } }),
			{ credential: borrower({ environment: 'development' }) },
		);
		expect((error as { description?: string }).description).toMatch(/mainnet.*Development/s);
	});

	it('refuses a partner master key: contracts need a borrower key', async () => {
		const { error } = await runWorkflow(contractCreate(), { credential: borrower({ keyType: 'master', apiKey: sandbox.keys.master }) });
		expect(error?.message).toBe('Contract → Create needs a Borrower Key, but the credential holds a Partner Master Key');
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract → Create: API errors are mapped', () => {
	it('explains INVALID_AMOUNT with the offer limits', async () => {
		const { error } = await runWorkflow(contractCreate({ loanAmount: 50 }), { credential: borrower() });
		expect(error?.message).toBe('The loan amount is outside what the offer allows (HTTP 400, INVALID_AMOUNT)');
		expect((error as { description?: string }).description).toContain('$50 not in range $100-$10000');
		expect((error as { httpCode?: string }).httpCode).toBe('400');
	});

	it('names the loan offer that does not exist', async () => {
		const missing = '0ffe0000-0000-4000-8000-00000000ffff';
		const { error } = await runWorkflow(contractCreate({ loanId: { __rl: true, mode: 'id', value: missing } }), { credential: borrower() });
		expect(error?.message).toBe(`Not found: loan offer ${missing} (HTTP 404, OFFER_NOT_FOUND)`);
	});

	it('explains a rejected key and never shows it anywhere', async () => {
		const wrongKey = 'lndst_sk_0123456789ab_ThisKeyDoesNotExist42';
		const { error, run } = await runWorkflow(contractCreate(), { credential: borrower({ apiKey: wrongKey }) });
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect((error as { description?: string }).description).toContain('this operation needs a Borrower Key');
		expect(everythingVisible(run, error)).not.toContain(wrongKey);
		expect(everythingVisible(run, error)).not.toContain('ThisKeyDoesNotExist42');
	});

	it("maps the live backend's {message} errors", async () => {
		sandbox.configure({ dialect: 'live' });
		const { error } = await runWorkflow(contractCreate({ loanAmount: 50 }), { credential: borrower() });
		expect(error?.message).toBe('Lendasat rejected the request (HTTP 400)');
		expect((error as { description?: string }).description).toContain('Invalid loan amount: $50 not in range $100-$10000');
	});

	it.each([
		['an HTML page from a proxy', '502-html', /Lendasat is temporarily unavailable \(HTTP 502\)/, /502 Bad Gateway/],
		['truncated JSON', 'truncated-json', /Lendasat had an internal error .*\(HTTP 500\)/, /Server answered: "\{/],
		['an empty body', 'empty-body', /Lendasat had an internal error .*\(HTTP 500\)/, /no explanation with status 500/],
	] as const)('reads %s without crashing', async (_case, kind, message, description) => {
		sandbox.configure({ faults: [{ kind, path: '/api/contracts', times: 10 }] });
		const { error } = await runWorkflow(contractCreate({ options: { sendIdempotencyKey: false } }), { credential: borrower() });
		expect(error?.message).toMatch(message);
		expect((error as { description?: string }).description).toMatch(description);
	});
});

describe('Contract → Create: continue on fail and the error output', () => {
	const items = [{ amount: 1500 }, { amount: 50 }, { amount: 2500 }];

	it('keeps going with Continue On Fail; the failed item carries its error and pairedItem', async () => {
		const { output, error } = await runWorkflow(contractCreate({ loanAmount: '={{ $json.amount }}' }, { onError: 'continueRegularOutput' }), {
			credential: borrower(),
			items,
		});
		expect(error).toBeUndefined();
		const out = output('Lendasat Borrower');
		expect(out).toHaveLength(3);
		expect(out[0].json.status).toBe('pending');
		expect(out[1].json.error).toEqual(expect.stringContaining('outside what the offer allows'));
		expect(out.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('routes failures to the error output with their pairedItem', async () => {
		const { output } = await runWorkflow(contractCreate({ loanAmount: '={{ $json.amount }}' }, { onError: 'continueErrorOutput' }), {
			credential: borrower(),
			items,
		});
		expect(output('Lendasat Borrower', 0).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(output('Lendasat Borrower', 1).map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
	});

	it('does the same for input refused before sending', async () => {
		const { output } = await runWorkflow(contractCreate({ loanAmount: '={{ $json.amount }}' }, { onError: 'continueErrorOutput' }), {
			credential: borrower(),
			items: [{ amount: 1500 }, { amount: -1 }],
		});
		expect(output('Lendasat Borrower', 1)).toEqual([
			expect.objectContaining({ pairedItem: { item: 1 }, json: expect.objectContaining({ error: expect.stringContaining('Invalid Loan Amount') }) }),
		]);
	});
});
