import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import partnerOnboarding from '../workflows/partner-onboarding.json';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const master = (): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'master',
	apiKey: sandbox.keys.master,
});

function createAccount(parameters: Record<string, unknown>, credential = master()) {
	return runWorkflow(
		singleNodeWorkflow({
			resource: 'account',
			operation: 'create',
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			timezone: 'Europe/London',
			...parameters,
		}),
		{ credential },
	);
}

describe('Account → Create: a partner creates a borrower account', () => {
	it('sends the specification request and returns the new account with its borrower key', async () => {
		const { output, error } = await createAccount({});
		expect(error).toBeUndefined();
		const [account] = output('Lendasat Borrower');
		expect(account.json).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			timezone: 'Europe/London',
			api_key: expect.stringMatching(/^lndst_sk_[0-9a-f]{12}_[A-Za-z0-9]+$/),
		});

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/api/create-api-account');
		expect(request.headers['x-api-key']).toBe(sandbox.keys.master);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			timezone: 'Europe/London',
		});
	});

	it('accepts 201 Created as success too', async () => {
		sandbox.configure({ createStatus: 201 });
		const { output, error } = await createAccount({});
		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower')[0].json.api_key).toEqual(expect.any(String));
	});

	it('sends trimmed text when the input carries stray white space', async () => {
		await createAccount({ name: '  Ada ', email: ' ada@example.com ', timezone: 'Europe/London ' });
		expect(sandbox.requests[0].body).toEqual({
			name: 'Ada',
			email: 'ada@example.com',
			timezone: 'Europe/London',
		});
	});

	it('runs the partner onboarding fixture: the returned key then takes a loan', async () => {
		const { output, error } = await runWorkflow(partnerOnboarding, { credential: master() });
		expect(error).toBeUndefined();
		const [account] = output('Create Borrower Account');
		expect(account.json.api_key).toEqual(expect.any(String));
		expect(sandbox.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'POST /api/create-api-account',
		]);
		const followUp = await runWorkflow(
			singleNodeWorkflow({
				resource: 'contract',
				operation: 'create',
				loanId: { __rl: true, mode: 'id', value: '0ffe0000-0000-4000-8000-000000000001' },
				loanAmount: 1500,
				durationDays: 30,
			}),
			{
				credential: {
					environment: 'custom',
					baseUrl: sandbox.url,
					keyType: 'borrower',
					apiKey: String(account.json.api_key),
				},
			},
		);
		expect(followUp.error).toBeUndefined();
		expect(followUp.output('Lendasat Borrower')[0].json.status).toBe('pending');
	});
});

describe('Account → Create: bad input is refused before any request', () => {
	it.each([
		['an empty name', { name: '   ' }, 'Invalid Name [item 0]'],
		['an over-long name', { name: 'x'.repeat(101) }, 'Invalid Name [item 0]'],
		['a name with a line break inside', { name: 'Ada\nLovelace' }, 'Invalid Name [item 0]'],
		['a name with a control character', { name: 'Ada\u0007 Lovelace' }, 'Invalid Name [item 0]'],
		['a malformed e-mail', { email: 'ada.example.com' }, 'Invalid Email [item 0]'],
		[
			'a time zone that does not exist',
			{ timezone: 'Europe/Atlantis' },
			'Invalid Timezone [item 0]',
		],
		['a zone that is not Area/City', { timezone: 'UTC' }, 'Invalid Timezone [item 0]'],
		['an expression giving no time zone', { timezone: '={{ "" }}' }, 'Invalid Timezone [item 0]'],
	])('%s', async (_case, parameters, message) => {
		const { error } = await createAccount(parameters);
		expect(error?.message).toBe(message);
		expect(String((error as { description?: string }).description)).toMatch(
			/e\.g\.|example|like|at most|Area\/City/i,
		);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('leaves an empty required field to n8n, which names it before running', async () => {
		const { error } = await createAccount({ timezone: '' });
		expect(error?.message).toContain('Parameter "Timezone" is required');
		expect(sandbox.requests).toHaveLength(0);
	});

	it('refuses a borrower key: account creation needs the partner master key', async () => {
		const { error } = await createAccount(
			{},
			{ ...master(), keyType: 'borrower', apiKey: sandbox.keys.borrower },
		);
		expect(error?.message).toBe(
			'Account → Create needs a Partner Master Key, but the credential holds a Borrower Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Account → Create: API errors are mapped', () => {
	it('explains a rejected master key and never shows it', async () => {
		const wrongKey = 'las-not-a-real-master-key-123';
		const { error, run } = await createAccount({}, { ...master(), apiKey: wrongKey });
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect((error as { description?: string }).description).toContain(
			'this operation needs a Partner Master Key',
		);
		expect(everythingVisible(run, error)).not.toContain(wrongKey);
	});

	it("maps the live backend's {message} dialect", async () => {
		sandbox.configure({ dialect: 'live' });
		const { error } = await createAccount({}, { ...master(), apiKey: 'las-wrong-key-0000' });
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401)');
		expect((error as { description?: string }).description).toContain(
			'Server said: "Invalid API key".',
		);
	});
});
