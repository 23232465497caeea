import { randomBytes } from 'node:crypto';

import { startSandbox, SEED_IDS, type Sandbox } from '../../dev/sandbox/server';
import { keysOfUser } from '../../dev/sandbox/state';
import { checkOwnApiKey, generateApiKey } from '../../nodes/LendasatBorrower/validation/apiKeys';
import { openSealedKey, sealKey } from '../../nodes/LendasatBorrower/encryption/sealedKeys';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import partnerOnboarding from '../workflows/partner-onboarding.json';
import { useFakeTime } from '../helpers/fakeTime';

let sandbox: Sandbox;

useFakeTime();

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

describe('Account → Create With Own Key: an account from a referral code, with a key made here', () => {
	const REFERRAL = SEED_IDS.referralCodes;
	const KEY_FORMAT = /^lndst_sk_[0-9a-f]{12}_[A-Za-z0-9]{43}$/;
	const OWN_KEY = 'lndst_sk_0a1b2c3d4e5f_' + 'Q'.repeat(20) + 'r'.repeat(20) + '0123';

	function createWithOwnKey(
		parameters: Record<string, unknown>,
		credential = borrowerCredential(),
	) {
		return runWorkflow(
			singleNodeWorkflow({
				resource: 'account',
				operation: 'createWithOwnKey',
				name: 'Grace Hopper',
				email: 'grace@example.com',
				referralCode: REFERRAL.active,
				...parameters,
			}),
			{ credential },
		);
	}

	const borrowerCredential = (): TestCredential => ({
		environment: 'custom',
		baseUrl: sandbox.url,
		keyType: 'borrower',
		apiKey: sandbox.keys.borrower,
	});

	it('generates a key in Lendasat’s format, sends it once and shows it once, in api_key', async () => {
		const { output, error, run } = await createWithOwnKey({
			additionalFields: { timezone: 'America/New_York' },
		});
		expect(error).toBeUndefined();
		const [account] = output('Lendasat Borrower');
		const key = String(account.json.api_key);
		expect(key).toMatch(KEY_FORMAT);
		expect(account.json).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			name: 'Grace Hopper',
			email: 'grace@example.com',
			timezone: 'America/New_York',
			api_key: key,
		});

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe('POST /api/create-api-account/byok');
		expect(request.body).toEqual({
			name: 'Grace Hopper',
			email: 'grace@example.com',
			timezone: 'America/New_York',
			api_key: key,
			referral_code: REFERRAL.active,
		});
		// Once in the whole run's data: the output item; nowhere else (no parameter, no log).
		const runData = JSON.stringify(run.data.resultData.runData);
		expect(runData.split(key)).toHaveLength(2);
		expect(everythingVisible(run)).not.toContain(sandbox.keys.borrower);
	});

	it('makes a new key for every item, and the new key works at once', async () => {
		const result = await runWorkflow(
			singleNodeWorkflow({
				resource: 'account',
				operation: 'createWithOwnKey',
				name: '={{ $json.name }}',
				email: '={{ $json.email }}',
				referralCode: REFERRAL.active,
			}),
			{
				credential: borrowerCredential(),
				items: [
					{ name: 'Ada', email: 'ada@example.org' },
					{ name: 'Alan', email: 'alan@example.org' },
				],
			},
		);
		expect(result.error).toBeUndefined();
		const keys = result.output('Lendasat Borrower').map((item) => String(item.json.api_key));
		expect(keys).toHaveLength(2);
		expect(new Set(keys).size).toBe(2);
		const me = await fetch(`${sandbox.url}/api/users/me`, { headers: { 'x-api-key': keys[1] } });
		expect(((await me.json()) as { user: { name: string } }).user.name).toBe('Alan');
	});

	it('sends a key given in Account API Key as it is, with a master key or against the live backend', async () => {
		sandbox.configure({ dialect: 'live' });
		const { output, error, run } = await createWithOwnKey(
			{ accountApiKey: ` ${OWN_KEY} ` },
			{ ...borrowerCredential(), keyType: 'master', apiKey: sandbox.keys.master },
		);
		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower')[0].json).toMatchObject({ api_key: OWN_KEY, timezone: null });
		expect(sandbox.requests[0].body).toEqual({
			name: 'Grace Hopper',
			email: 'grace@example.com',
			api_key: OWN_KEY,
			referral_code: REFERRAL.active,
		});
		expect(everythingVisible(run)).not.toContain(sandbox.keys.master);
	});

	it.each([
		[
			'an empty referral code',
			{ referralCode: '={{ " " }}' },
			'Referral Code',
			/Must not be empty/,
		],
		['a referral code with spaces', { referralCode: 'LAS SANDB' }, 'Referral Code', /spaces/],
		['no e-mail', { email: '={{ "" }}' }, 'Email', /Must not be empty/],
		['a malformed e-mail', { email: 'grace.example.com' }, 'Email', /has no @/],
		[
			'a zone that is not Area/City',
			{ additionalFields: { timezone: 'UTC' } },
			'Timezone',
			/Area\/City/,
		],
		[
			'a key without the prefix',
			{ accountApiKey: 'sk_0a1b2c3d4e5f_' + 'x'.repeat(40) },
			'Account API Key',
			/does not start with lndst_sk_/,
		],
		[
			'a key with an upper-case key ID',
			{ accountApiKey: 'lndst_sk_0A1B2C3D4E5F_' + 'x'.repeat(40) },
			'Account API Key',
			/12 lower-case hexadecimal/,
		],
		[
			'a key with a short secret',
			{ accountApiKey: 'lndst_sk_0a1b2c3d4e5f_tooShort123' },
			'Account API Key',
			/has 11 characters, not 32 to 128/,
		],
		[
			'a key with a second _',
			{ accountApiKey: 'lndst_sk_0a1b2c3d4e5f_' + 'x'.repeat(20) + '_' + 'y'.repeat(20) },
			'Account API Key',
			/exactly one _/,
		],
	])(
		'refuses %s before sending anything, never repeating the key',
		async (_case, parameters, field, problem) => {
			const { error, run } = await createWithOwnKey(parameters);
			expect(error?.message).toBe(`Invalid ${field} [item 0]`);
			expect((error as { description?: string }).description).toMatch(problem);
			expect(sandbox.requests).toHaveLength(0);
			// The message and its description only: n8n's error carries the node, parameters included.
			const given = (parameters as { accountApiKey?: string }).accountApiKey;
			const shown = `${error?.message} ${(error as { description?: string }).description}`;
			if (given) expect(shown).not.toContain(given.slice(22, 40));
			expect(everythingVisible(run, error)).not.toContain(sandbox.keys.borrower);
		},
	);

	it("refuses the credential's own key as the new account's key", async () => {
		const { error } = await createWithOwnKey({ accountApiKey: sandbox.keys.borrower });
		expect(error?.message).toBe('Invalid Account API Key [item 0]');
		const shown = `${error?.message} ${(error as { description?: string }).description}`;
		expect(shown).toMatch(/own credential/);
		expect(shown).not.toContain(sandbox.keys.borrower);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		[
			'spec',
			REFERRAL.expired,
			'Lendasat does not accept this referral code (HTTP 400, INVALID_REFERRAL_CODE)',
		],
		['live', 'las-sandb', 'Lendasat does not accept this referral code (HTTP 400)'],
	])(
		'maps an unknown or expired referral code (%s dialect)',
		async (dialect, referralCode, message) => {
			sandbox.configure({ dialect: dialect as 'spec' | 'live' });
			const { error } = await createWithOwnKey({ referralCode });
			expect(error?.message).toBe(message);
			expect((error as { description?: string }).description).toMatch(
				/letter case included.*Nothing was created/,
			);
			expect(sandbox.state.accounts).toHaveLength(0);
		},
	);

	it('maps an e-mail address that has an account already, and sends it only once', async () => {
		sandbox.configure({ dialect: 'live' });
		const { error } = await createWithOwnKey({ email: 'Borrower@Sandbox.example' });
		expect(error?.message).toBe('This e-mail address already has a Lendasat account (HTTP 400)');
		expect((error as { description?: string }).description).toContain(
			'Server said: "Email already in use".',
		);
		expect(sandbox.requests).toHaveLength(1);
	});

	it('explains the live 500 for a key already in use, without showing the key', async () => {
		sandbox.configure({ dialect: 'live' });
		await createWithOwnKey({ accountApiKey: OWN_KEY });
		sandbox.requests.length = 0;
		const { error, run } = await createWithOwnKey({
			accountApiKey: OWN_KEY,
			email: 'grace.two@example.com',
		});
		expect(error?.message).toBe('Lendasat could not create the account (HTTP 500)');
		expect((error as { description?: string }).description).toMatch(
			/already in use by another account.*Server said: "Something went wrong"/,
		);
		expect(sandbox.requests).toHaveLength(1);
		// The key given is a node parameter (n8n's error carries the node); message and description never show it.
		expect(`${error?.message} ${(error as { description?: string }).description}`).not.toContain(
			OWN_KEY,
		);
		expect(everythingVisible(run, error)).not.toContain(sandbox.keys.borrower);
	});

	it("refuses the live backend's error body sent with a 200", async () => {
		sandbox.configure({
			faults: [{ kind: 'bad-200', body200: 'error-body', path: '/api/create-api-account/byok' }],
		});
		const { error, output } = await createWithOwnKey({});
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(output('Lendasat Borrower')).toEqual([]);
	});
});

describe("Seal API Key: the new account's key output sealed with the credential's Key Sealing Secret", () => {
	const SECRET = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00';
	const sealing = (): TestCredential => ({ ...master(), sealingSecret: SECRET });
	/** The key Lendasat holds for an account: the plain key its output must not show. */
	const keyOf = (accountId: unknown) => keysOfUser(sandbox.state, String(accountId))[0].key;

	it('Account → Create outputs api_key_sealed in place of api_key, and the plain key is nowhere in the run', async () => {
		const { output, error, run } = await createAccount(
			{ options: { sealApiKey: true } },
			sealing(),
		);

		expect(error).toBeUndefined();
		const [account] = output('Lendasat Borrower');
		expect(Object.keys(account.json)).toEqual([
			'id',
			'name',
			'email',
			'timezone',
			'api_key_sealed',
		]);
		const key = keyOf(account.json.id);
		expect(key).toMatch(/^lndst_sk_/);
		expect(account.json.api_key_sealed).toMatch(/^lendasat-sealed:v1:[A-Za-z0-9+/]+$/);
		expect(openSealedKey(String(account.json.api_key_sealed), SECRET)).toEqual({ key });
		expect(everythingVisible(run, error)).not.toContain(key);
		expect(everythingVisible(run, error)).not.toContain(SECRET);
		expect(sandbox.requests).toHaveLength(1);
	});

	it('Account → Create With Own Key: the generated key, and a key given, are output sealed only', async () => {
		const ownKey = 'lndst_sk_0a1b2c3d4e5f_' + 'S'.repeat(20) + 't'.repeat(20) + '0456';
		for (const accountApiKey of ['', ownKey]) {
			sandbox.reset();
			const { output, error, run } = await runWorkflow(
				singleNodeWorkflow({
					resource: 'account',
					operation: 'createWithOwnKey',
					name: 'Grace Hopper',
					email: 'grace@example.com',
					referralCode: SEED_IDS.referralCodes.active,
					accountApiKey,
					options: { sealApiKey: true },
				}),
				{ credential: { ...sealing(), keyType: 'borrower', apiKey: sandbox.keys.borrower } },
			);

			expect(error).toBeUndefined();
			const [account] = output('Lendasat Borrower');
			expect(Object.keys(account.json)).toEqual([
				'id',
				'name',
				'email',
				'timezone',
				'api_key_sealed',
			]);
			const sent = String((sandbox.requests[0].body as { api_key: string }).api_key);
			if (accountApiKey) expect(sent).toBe(ownKey);
			expect(openSealedKey(String(account.json.api_key_sealed), SECRET)).toEqual({ key: sent });
			// The run's output holds no plain key; only the parameter typed in holds the key given.
			expect(everythingVisible(output('Lendasat Borrower'))).not.toContain(sent);
			if (!accountApiKey) expect(everythingVisible(run, error)).not.toContain(sent);
		}
	});

	it.each([
		['no Key Sealing Secret', '', /The credential has no Key Sealing Secret\./],
		['a Key Sealing Secret of 31 characters', SECRET.slice(0, 31), /shorter than 32 characters/],
	])('with %s, creates nothing and says why', async (_case, sealingSecret, problem) => {
		const { error, output, run } = await createAccount(
			{ options: { sealApiKey: true } },
			{ ...master(), sealingSecret },
		);

		expect(error?.message).toBe("The credential's Key Sealing Secret cannot be used [item 0]");
		const description = String((error as { description?: string }).description);
		expect(description).toMatch(/^Account → Create: /);
		expect(description).toMatch(problem);
		expect(description).toContain('openssl rand -hex 32');
		expect(description).toMatch(/Nothing was sent\.$/);
		expect(sandbox.requests).toEqual([]);
		expect(sandbox.state.accounts).toHaveLength(0);
		expect(output('Lendasat Borrower')).toEqual([]);
		if (sealingSecret) expect(everythingVisible(run, error)).not.toContain(sealingSecret);
	});

	it('off (the default), Account → Create outputs api_key as before, even with a Key Sealing Secret', async () => {
		const { output, error } = await createAccount({ options: { sealApiKey: false } }, sealing());

		expect(error).toBeUndefined();
		const [account] = output('Lendasat Borrower');
		expect(account.json.api_key).toBe(keyOf(account.json.id));
		expect(account.json).not.toHaveProperty('api_key_sealed');
	});
});

describe('Account → Seal API Key: a key stored in plain text, checked with Lendasat and sealed', () => {
	const SECRET = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00';
	const sealing = (): TestCredential => ({ ...master(), sealingSecret: SECRET });

	/** Seal API Key on each input item's api_key, as a partner runs it over its Data table. */
	function sealEach(keys: unknown[], credential = sealing(), keyToSeal = '={{ $json.api_key }}') {
		return runWorkflow(
			singleNodeWorkflow(
				{ resource: 'account', operation: 'sealApiKey', keyToSeal },
				{ onError: 'continueErrorOutput' },
			),
			{ credential, items: keys.map((api_key) => ({ borrower_id: 'b-1', api_key })) },
		);
	}

	it('checks the key with GET /api/users/me sent with it, and outputs the account and the sealed key only', async () => {
		const { output, error } = await sealEach([sandbox.keys.borrower, sandbox.keys.otherBorrower]);

		expect(error).toBeUndefined();
		expect(
			sandbox.requests.map((request) => [
				request.method,
				request.path,
				request.headers['x-api-key'],
			]),
		).toEqual([
			['GET', '/api/users/me', sandbox.keys.borrower],
			['GET', '/api/users/me', sandbox.keys.otherBorrower],
		]);
		const items = output('Lendasat Borrower').map((item) => item.json);
		expect(items).toEqual([
			{
				id: SEED_IDS.users.borrower,
				name: expect.any(String),
				api_key_sealed: expect.stringMatching(/^lendasat-sealed:v1:/),
			},
			{
				id: SEED_IDS.users.otherBorrower,
				name: expect.any(String),
				api_key_sealed: expect.stringMatching(/^lendasat-sealed:v1:/),
			},
		]);
		expect(items.map((item) => openSealedKey(String(item.api_key_sealed), SECRET))).toEqual([
			{ key: sandbox.keys.borrower },
			{ key: sandbox.keys.otherBorrower },
		]);
		const shown = everythingVisible(output('Lendasat Borrower'), output('Lendasat Borrower', 1));
		for (const key of [
			sandbox.keys.borrower,
			sandbox.keys.otherBorrower,
			sandbox.keys.master,
			SECRET,
		]) {
			expect(shown).not.toContain(key);
		}
	});

	it.each(['spec', 'live'] as const)(
		'%s: a revoked key is not sealed: that item fails with 401, the others are sealed',
		async (dialect) => {
			sandbox.configure({ dialect });
			const revoked = sandbox.keys.otherBorrower;
			sandbox.state.keys.delete(revoked);

			const { output, error } = await sealEach([revoked, sandbox.keys.borrower]);

			expect(error).toBeUndefined();
			expect(sandbox.requests).toHaveLength(2);
			const [failed] = output('Lendasat Borrower', 1);
			expect(failed.json.error).toBe(
				`Lendasat rejected the key to seal (HTTP 401${dialect === 'spec' ? ', UNAUTHORIZED' : ''})`,
			);
			expect(String((failed.error as { description?: string }).description)).toMatch(
				/^Account → Seal API Key: the key in API Key to Seal does not work: .*It was not sealed\./,
			);
			expect(output('Lendasat Borrower').map((item) => item.json.id)).toEqual([
				SEED_IDS.users.borrower,
			]);
			const shown = `${failed.json.error} ${(failed.error as { description?: string }).description}`;
			expect(shown).not.toContain(revoked);
			expect(everythingVisible(output('Lendasat Borrower'))).not.toContain(revoked);
		},
	);

	it('a key already sealed is opened, checked and sealed again: a table half sealed can be run again', async () => {
		const sealed = sealKey(sandbox.keys.borrower, SECRET, randomBytes);

		const { output, error } = await sealEach([sealed]);

		expect(error).toBeUndefined();
		expect(sandbox.requests[0].headers['x-api-key']).toBe(sandbox.keys.borrower);
		const [item] = output('Lendasat Borrower');
		expect(item.json.api_key_sealed).not.toBe(sealed);
		expect(openSealedKey(String(item.json.api_key_sealed), SECRET)).toEqual({
			key: sandbox.keys.borrower,
		});
	});

	it('without a Key Sealing Secret in the credential, nothing is sent', async () => {
		const { output, error } = await sealEach([sandbox.keys.borrower], master());

		expect(error).toBeUndefined();
		const [failed] = output('Lendasat Borrower', 1);
		expect(failed.json.error).toBe("The credential's Key Sealing Secret cannot be used [item 0]");
		expect(String((failed.error as { description?: string }).description)).toMatch(
			/^Account → Seal API Key: The credential has no Key Sealing Secret\./,
		);
		expect(sandbox.requests).toEqual([]);
	});

	it('an item without a key is refused, and nothing is sent for it', async () => {
		const { output, error } = await sealEach(['  ', undefined]);

		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower', 1).map((item) => item.json.error)).toEqual([
			'Invalid API Key to Seal [item 0]',
			'Invalid API Key to Seal [item 1]',
		]);
		expect(
			String((output('Lendasat Borrower', 1)[0].error as { description?: string }).description),
		).toMatch(/^API Key to Seal: Must not be empty/);
		expect(sandbox.requests).toEqual([]);
	});
});

describe('the generated key', () => {
	it('has a 12-hex key ID and a 43-character secret drawn without bias from the given bytes', () => {
		let next = 0;
		const counting = (count: number) => Uint8Array.from({ length: count }, () => next++ % 256);
		const key = generateApiKey(counting);
		expect(key).toBe('lndst_sk_000102030405_' + 'GHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvw');
		// Bytes 248–255 would favour the first letters: they are skipped.
		const high = (count: number) =>
			Uint8Array.from({ length: count }, (_, index) => (index % 2 ? 250 : 1));
		expect(generateApiKey(high)).toMatch(/^lndst_sk_01fa01fa01fa_B{43}$/);
	});

	it('passes the node’s own check', () => {
		expect(checkOwnApiKey(generateApiKey(randomBytes))).toBeNull();
	});
});
