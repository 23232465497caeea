/**
 * Partners act for their borrowers: Options → Act as Borrower (API Key) on every operation that needs
 * a Borrower Key sends that key instead of the credential's, here a partner's master credential and
 * the key Account → Create returned the node before. Each test checks what the sandbox received.
 */
import { randomBytes } from 'node:crypto';

import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { onboardBorrowers, type OnboardedBorrower } from '../../dev/sandbox/partner';
import { issueKey, keysOfUser } from '../../dev/sandbox/state';
import {
	NODE_TYPE,
	runWorkflow,
	singleNodeWorkflow,
	type RunResult,
	type TestCredential,
	type WorkflowFixture,
} from '../../dev/harness/n8n';
import { clientContractIdFor } from '../../nodes/LendasatBorrower/resources/contract/createOnce';
import { sealKey } from '../../nodes/LendasatBorrower/encryption/sealedKeys';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

const ACCOUNT_NODE = 'Create borrower account';
const ACTING_NODE = 'Act as the new borrower';
const SINGLE_NODE = 'Lendasat Borrower';
const OFFER = SEED_IDS.offers.usdcPolygon;
const FROM_INPUT = '={{ $json.api_key }}';

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const credential = (keyType: 'master' | 'borrower', apiKey: string): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType,
	apiKey,
});
const master = () => credential('master', sandbox.keys.master);
const borrower = () => credential('borrower', sandbox.keys.borrower);

const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });

/** Account → Create with the partner's master credential, then `acting` acting as the account it made. */
function onboardAndAct(
	acting: Record<string, unknown>,
	accountOptions: Record<string, unknown> = {},
): WorkflowFixture {
	const { options, ...parameters } = acting as { options?: object };
	return {
		nodes: [
			{
				id: 'ac7a5000-0000-4000-8000-000000000001',
				name: ACCOUNT_NODE,
				type: NODE_TYPE,
				typeVersion: 1.1,
				position: [0, 0],
				parameters: {
					resource: 'account',
					operation: 'create',
					name: 'Grace Hopper',
					email: 'grace@example.com',
					timezone: 'America/New_York',
					options: accountOptions,
				},
			},
			{
				id: 'ac7a5000-0000-4000-8000-000000000002',
				name: ACTING_NODE,
				type: NODE_TYPE,
				typeVersion: 1.1,
				position: [220, 0],
				parameters: { ...parameters, options: { borrowerApiKey: FROM_INPUT, ...options } },
			},
		],
		connections: { [ACCOUNT_NODE]: { main: [[{ node: ACTING_NODE, type: 'main', index: 0 }]] } },
	};
}

/** One node acting with the key in each input item's api_key. */
function actWithInputKey(
	parameters: Record<string, unknown>,
	keys: unknown[],
	useCredential = master(),
): Promise<RunResult> {
	const { options, ...rest } = parameters as { options?: object };
	return runWorkflow(
		singleNodeWorkflow(
			{ ...rest, options: { borrowerApiKey: FROM_INPUT, ...options } },
			{ typeVersion: 1.1 },
		),
		{
			credential: useCredential,
			items: keys.map((key) => (key === undefined ? {} : { api_key: key })),
		},
	);
}

const describedBy = (error: unknown) =>
	String((error as { description?: string } | undefined)?.description ?? '');

/** The new account's key and user, from Account → Create's output. */
function newAccount(result: RunResult): { apiKey: string; userId: string } {
	const [account] = result.output(ACCOUNT_NODE);
	return { apiKey: String(account.json.api_key), userId: String(account.json.id) };
}

/** The forms a server or a message could carry a key in. */
const formsOf = (key: string) => [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)];

const actingOperations: Array<[string, Record<string, unknown>]> = [
	['User → Get Me', { resource: 'user', operation: 'getMe' }],
	['Offer → Get Many', { resource: 'offer', operation: 'getAll' }],
	[
		'Contract → Create',
		{
			resource: 'contract',
			operation: 'create',
			loanId: byId(OFFER),
			loanAmount: 1500,
			durationDays: 30,
		},
	],
	['Notification → Get Settings', { resource: 'notification', operation: 'getSettings' }],
	[
		'Notification → Update Settings',
		{
			resource: 'notification',
			operation: 'updateSettings',
			updateFields: { onLoginEmail: false },
		},
	],
	['API Key → Get Many', { resource: 'apiKey', operation: 'getAll' }],
];

describe("a partner's master credential acts as the borrower Account → Create made", () => {
	it.each(actingOperations)(
		'%s sends the new borrower key, never the master key, and outputs no key',
		async (_label, parameters) => {
			const result = await runWorkflow(onboardAndAct(parameters), { credential: master() });

			expect(result.error).toBeUndefined();
			const { apiKey } = newAccount(result);
			const [create, ...acting] = sandbox.requests;
			expect(create).toMatchObject({ method: 'POST', path: '/api/create-api-account' });
			expect(create.headers['x-api-key']).toBe(sandbox.keys.master);
			expect(acting.length).toBeGreaterThan(0);
			for (const request of acting) expect(request.headers['x-api-key']).toBe(apiKey);
			const output = result.output(ACTING_NODE);
			expect(output.length).toBeGreaterThan(0);
			const visible = everythingVisible(output);
			for (const key of [apiKey, sandbox.keys.master]) expect(visible).not.toContain(key);
		},
	);

	it('User → Get Me answers with the new account, in both dialects', async () => {
		for (const dialect of ['spec', 'live'] as const) {
			sandbox.reset();
			sandbox.configure({ dialect });
			const result = await runWorkflow(onboardAndAct({ resource: 'user', operation: 'getMe' }), {
				credential: master(),
			});
			expect(result.error).toBeUndefined();
			const { userId } = newAccount(result);
			expect(result.output(ACTING_NODE)[0].json.user).toMatchObject({
				id: userId,
				email: 'grace@example.com',
			});
		}
	});

	it('Contract → Create makes the contract on the new account, not the partner', async () => {
		const result = await runWorkflow(
			onboardAndAct({
				resource: 'contract',
				operation: 'create',
				loanId: byId(OFFER),
				loanAmount: 1500,
				durationDays: 30,
			}),
			{ credential: master() },
		);

		expect(result.error).toBeUndefined();
		const { userId } = newAccount(result);
		const [created] = result.output(ACTING_NODE);
		expect(sandbox.state.contracts.get(String(created.json.id))?.owner).toBe(userId);
		expect(sandbox.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'POST /api/create-api-account',
			'POST /api/contracts',
		]);
	});
});

describe('each item acts with its own key', () => {
	it("two items with two borrowers' keys read two borrowers' contracts", async () => {
		const result = await actWithInputKey(
			{ resource: 'contract', operation: 'getAll', returnAll: true, simplify: false },
			[sandbox.keys.borrower, sandbox.keys.otherBorrower],
		);

		expect(result.error).toBeUndefined();
		expect(sandbox.requests.map((request) => request.headers['x-api-key'])).toEqual([
			sandbox.keys.borrower,
			sandbox.keys.otherBorrower,
		]);
		const ownerOf = (id: unknown) => sandbox.state.contracts.get(String(id))?.owner;
		const output = result.output(SINGLE_NODE);
		const byItem = (item: number) =>
			output.filter((entry) => (entry.pairedItem as { item: number }).item === item);
		expect(byItem(0).length).toBeGreaterThan(0);
		expect(byItem(1).length).toBeGreaterThan(0);
		expect(byItem(0).every((entry) => ownerOf(entry.json.id) === SEED_IDS.users.borrower)).toBe(
			true,
		);
		expect(
			byItem(1).every((entry) => ownerOf(entry.json.id) === SEED_IDS.users.otherBorrower),
		).toBe(true);
	});

	it("Contract → Create's exactly-once lookup searches the acting borrower's contracts only", async () => {
		// Borrower A already has the contract of key order-1; borrower B has none.
		const clientId = clientContractIdFor('order-1');
		const existing = sandbox.admin.createContract(sandbox.keys.borrower, {
			client_contract_id: clientId,
		});

		const result = await actWithInputKey(
			{
				resource: 'contract',
				operation: 'create',
				loanId: byId(OFFER),
				loanAmount: 1500,
				durationDays: 30,
				options: { idempotencyKey: 'order-1' },
			},
			[sandbox.keys.borrower, sandbox.keys.otherBorrower],
		);

		expect(result.error).toBeUndefined();
		const lines = sandbox.requests.map((request) => [
			request.method,
			request.path,
			request.headers['x-api-key'],
		]);
		// One walk per key; only B's request is sent, with B's key.
		expect(lines.filter(([method]) => method === 'GET')).toEqual(
			expect.arrayContaining([
				['GET', '/api/contracts', sandbox.keys.borrower],
				['GET', '/api/contracts', sandbox.keys.otherBorrower],
			]),
		);
		expect(lines.filter(([method]) => method === 'POST')).toEqual([
			['POST', '/api/contracts', sandbox.keys.otherBorrower],
		]);
		const [forA, forB] = result.output(SINGLE_NODE);
		expect(forA.json.id).toBe(existing.id);
		expect(forB.json.id).not.toBe(existing.id);
		expect(sandbox.state.contracts.get(String(forB.json.id))?.owner).toBe(
			SEED_IDS.users.otherBorrower,
		);
	});
});

describe('the act-as key in errors', () => {
	it.each([400, 500, 503])(
		'an error of status %i echoing the key shows it redacted in the message and description',
		async (status) => {
			sandbox.configure({
				faults: [{ kind: 'echo-key-error', path: '/api/users/me', errorStatus: status, times: 99 }],
			});

			const result = await runWorkflow(
				onboardAndAct({
					resource: 'user',
					operation: 'getMe',
					options: { maxRetries: 1, initialDelay: 10 },
				}),
				{
					credential: master(),
				},
			);

			const { apiKey } = newAccount(result);
			const meRequests = sandbox.requests.filter((request) => request.path === '/api/users/me');
			expect(meRequests.length).toBeGreaterThan(0);
			for (const request of meRequests) expect(request.headers['x-api-key']).toBe(apiKey);
			expect(result.error?.message).toMatch(new RegExp(`HTTP ${status}`));
			const text = `${result.error?.message}\n${describedBy(result.error)}`;
			expect(text).toContain('[redacted]');
			for (const form of formsOf(apiKey)) {
				expect(text).not.toContain(form);
				expect(everythingVisible(result.error, result.output(ACTING_NODE))).not.toContain(form);
			}
		},
	);

	it('a key with characters JSON escapes and URLs encode is redacted in every form', async () => {
		const key = 'partner/"borrower"\\key+1=&';
		const { error, output } = await (async () => {
			sandbox.configure({ faults: [{ kind: 'echo-key-error', path: '/api/offers', times: 99 }] });
			return await actWithInputKey({ resource: 'offer', operation: 'getAll' }, [key]);
		})();

		expect(sandbox.requests[0].headers['x-api-key']).toBe(key);
		expect(error?.message).toBe('Lendasat rejected the request (HTTP 400, ECHO_KEY)');
		const text = `${error?.message}\n${describedBy(error)}`;
		for (const form of formsOf(key)) {
			expect(text).not.toContain(form);
			expect(everythingVisible(error, output(SINGLE_NODE))).not.toContain(form);
		}
		expect(text).toContain('Request refused for key [redacted] (key=[redacted])');
	});

	it('an answer that echoes the act-as key is never an output item', async () => {
		sandbox.configure({
			faults: [{ kind: 'bad-200', body200: 'echo-key', path: '/api/users/me' }],
		});

		const { error, output } = await actWithInputKey({ resource: 'user', operation: 'getMe' }, [
			sandbox.keys.otherBorrower,
		]);

		expect(describedBy(error)).toContain('it contains the API key');
		expect(output(SINGLE_NODE)).toEqual([]);
		expect(everythingVisible(error)).not.toContain(sandbox.keys.otherBorrower);
	});

	it.each(['spec', 'live'] as const)(
		'%s: a Partner Master Key given as the act-as key is sent as a borrower key and refused by the server (401)',
		async (dialect) => {
			sandbox.configure({ dialect });

			const { error } = await actWithInputKey({ resource: 'offer', operation: 'getAll' }, [
				sandbox.keys.master,
			]);

			expect(sandbox.requests).toHaveLength(1);
			expect(sandbox.requests[0].headers['x-api-key']).toBe(sandbox.keys.master);
			expect(error?.message).toBe(
				`Lendasat rejected the Act as Borrower API key (HTTP 401${dialect === 'spec' ? ', UNAUTHORIZED' : ''})`,
			);
			expect(describedBy(error)).toMatch(
				/^Offer → Get Many: the key in Options → Act as Borrower \(API Key\) was sent instead of the credential's\..*a Partner Master Key does not work there/,
			);
			expect(everythingVisible(error)).not.toContain(sandbox.keys.master);
		},
	);
});

describe('what is refused before anything is sent', () => {
	it('a key with a space, line break or control character inside', async () => {
		const key = sandbox.keys.otherBorrower;
		for (const broken of [
			`${key.slice(0, 20)} ${key.slice(20)}`,
			`${key.slice(0, 20)}\n${key.slice(20)}`,
			`${key.slice(0, 20)}\u0007${key.slice(20)}`,
		]) {
			const { error, output } = await actWithInputKey({ resource: 'user', operation: 'getMe' }, [
				broken,
			]);
			expect(error?.message).toBe('Invalid Act as Borrower (API Key) [item 0]');
			expect(describedBy(error)).toBe(
				'User → Get Me: Act as Borrower (API Key): The API key contains a space, line break or control character: paste it again as one line. Nothing was sent.',
			);
			expect(everythingVisible(error, output(SINGLE_NODE))).not.toContain(key.slice(20));
		}
		expect(sandbox.requests).toEqual([]);
	});

	it("an expression that gives no key for an item: no fall back to the credential's key", async () => {
		const { error } = await actWithInputKey(
			{ resource: 'user', operation: 'getMe' },
			[undefined],
			borrower(),
		);

		expect(error?.message).toBe('Invalid Act as Borrower (API Key) [item 0]');
		expect(describedBy(error)).toContain(
			"The expression gave no key for this item, so the node did not fall back to the credential's key.",
		);
		expect(sandbox.requests).toEqual([]);
	});

	it('a value that is not text', async () => {
		const { error } = await actWithInputKey({ resource: 'user', operation: 'getMe' }, [
			{ nested: 'x' },
		]);

		expect(error?.message).toBe('Invalid Act as Borrower (API Key) [item 0]');
		expect(describedBy(error)).toContain("Expected the borrower's API key as text, got a object");
		expect(sandbox.requests).toEqual([]);
	});
});

describe('without the option, or where it does not apply', () => {
	it("an empty option uses the credential's key", async () => {
		const { error, output } = await runWorkflow(
			singleNodeWorkflow({ resource: 'user', operation: 'getMe', options: { borrowerApiKey: '' } }),
			{
				credential: borrower(),
			},
		);

		expect(error).toBeUndefined();
		expect(sandbox.requests[0].headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect(output(SINGLE_NODE)[0].json.user).toMatchObject({ id: SEED_IDS.users.borrower });
	});

	it('a master credential without the option is refused for a borrower operation, and told about the option', async () => {
		const { error } = await runWorkflow(
			singleNodeWorkflow({ resource: 'user', operation: 'getMe', options: { borrowerApiKey: '' } }),
			{
				credential: master(),
			},
		);

		expect(error?.message).toBe(
			'User → Get Me needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(describedBy(error)).toContain(
			"set Options → Act as Borrower (API Key) to that borrower's key",
		);
		expect(sandbox.requests).toEqual([]);
	});

	it('Account → Create does not offer it: a value saved there is dropped and the master key is sent', async () => {
		const { error, output } = await runWorkflow(
			singleNodeWorkflow({
				resource: 'account',
				operation: 'create',
				name: 'Ada Lovelace',
				email: 'ada@example.com',
				timezone: 'Europe/London',
				options: { borrowerApiKey: sandbox.keys.otherBorrower },
			}),
			{ credential: master() },
		);

		expect(error).toBeUndefined();
		expect(output(SINGLE_NODE)[0].json.api_key).toEqual(expect.any(String));
		expect(sandbox.requests).toHaveLength(1);
		expect(sandbox.requests[0].headers['x-api-key']).toBe(sandbox.keys.master);
	});

	it('a borrower credential may act as another borrower too', async () => {
		const extra = issueKey(sandbox.state, SEED_IDS.users.otherBorrower, 'borrower', 'partner-made');

		const { error, output } = await actWithInputKey(
			{ resource: 'user', operation: 'getMe' },
			[extra.key],
			borrower(),
		);

		expect(error).toBeUndefined();
		expect(sandbox.requests[0].headers['x-api-key']).toBe(extra.key);
		expect(output(SINGLE_NODE)[0].json.user).toMatchObject({ id: SEED_IDS.users.otherBorrower });
	});
});

describe("keys at rest sealed with the credential's Key Sealing Secret", () => {
	const SECRET = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
	const OTHER_SECRET = '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';
	const sealing = (keyType: 'master' | 'borrower' = 'master', sealingSecret = SECRET) => ({
		...credential(keyType, keyType === 'master' ? sandbox.keys.master : sandbox.keys.borrower),
		sealingSecret,
	});
	const FROM_SEALED = '={{ $json.api_key_sealed }}';
	const sealed = (key: string, secret = SECRET) => sealKey(key, secret, randomBytes);

	/** Contract → Get Many acting with each input item's api_key, failed items to the error output. */
	function getManyActingAs(keys: string[], useCredential: TestCredential, parameters = {}) {
		return runWorkflow(
			singleNodeWorkflow(
				{
					resource: 'contract',
					operation: 'getAll',
					returnAll: true,
					options: { borrowerApiKey: FROM_INPUT },
					...parameters,
				},
				{ typeVersion: 1.1, onError: 'continueErrorOutput' },
			),
			{ credential: useCredential, items: keys.map((api_key) => ({ api_key })) },
		);
	}

	it.each([
		['User → Get Me', { resource: 'user', operation: 'getMe' }],
		['Contract → Get Many', { resource: 'contract', operation: 'getAll', returnAll: true }],
	])(
		'Account → Create with Seal API Key, then %s acting with api_key_sealed: the plain key is sent and appears nowhere in the run',
		async (_label, acting) => {
			const result = await runWorkflow(
				onboardAndAct(
					{ ...acting, options: { borrowerApiKey: FROM_SEALED } },
					{ sealApiKey: true },
				),
				{ credential: sealing() },
			);

			expect(result.error).toBeUndefined();
			const [account] = result.output(ACCOUNT_NODE);
			expect(account.json).not.toHaveProperty('api_key');
			const [{ key }] = keysOfUser(sandbox.state, String(account.json.id));
			const [, ...acted] = sandbox.requests;
			expect(acted.length).toBeGreaterThan(0);
			for (const request of acted) expect(request.headers['x-api-key']).toBe(key);
			const visible = everythingVisible(result.run, result.error);
			for (const secret of [key, SECRET, sandbox.keys.master])
				expect(visible).not.toContain(secret);
		},
	);

	it('the new borrower reads its own account with the sealed key', async () => {
		const result = await runWorkflow(
			onboardAndAct(
				{ resource: 'user', operation: 'getMe', options: { borrowerApiKey: FROM_SEALED } },
				{ sealApiKey: true },
			),
			{ credential: sealing() },
		);

		expect(result.output(ACTING_NODE)[0].json.user).toMatchObject({
			id: result.output(ACCOUNT_NODE)[0].json.id,
			email: 'grace@example.com',
		});
	});

	it('sealed and plain keys side by side: each item acts as its borrower; a plain key works as before', async () => {
		const result = await getManyActingAs(
			[sealed(sandbox.keys.borrower), sandbox.keys.otherBorrower],
			sealing(),
		);

		expect(result.error).toBeUndefined();
		expect(result.output(SINGLE_NODE, 1)).toEqual([]);
		expect(sandbox.requests.map((request) => request.headers['x-api-key'])).toEqual([
			sandbox.keys.borrower,
			sandbox.keys.otherBorrower,
		]);
		const ownerOf = (id: unknown) => sandbox.state.contracts.get(String(id))?.owner;
		const owners = new Set(result.output(SINGLE_NODE).map((item) => ownerOf(item.json.id)));
		expect(owners).toEqual(new Set([SEED_IDS.users.borrower, SEED_IDS.users.otherBorrower]));
		// The sealed one's plain key is in no saved data: not the input, not the output.
		expect(everythingVisible(result.run)).not.toContain(sandbox.keys.borrower);
	});

	it('a borrower credential opens sealed keys too', async () => {
		const result = await getManyActingAs([sealed(sandbox.keys.otherBorrower)], sealing('borrower'));

		expect(result.error).toBeUndefined();
		expect(sandbox.requests.map((request) => request.headers['x-api-key'])).toEqual([
			sandbox.keys.otherBorrower,
		]);
	});

	it.each([
		[
			"sealed with another credential's secret",
			() => sealing('master', OTHER_SECRET),
			'Cannot open the sealed key in Act as Borrower (API Key) [item 0]',
			"Contract → Get Many: Act as Borrower (API Key): It could not be opened with this credential's Key Sealing Secret: it was sealed with another secret, or altered. Nothing was sent.",
		],
		[
			'and a credential without a Key Sealing Secret',
			() => credential('master', sandbox.keys.master),
			"The credential's Key Sealing Secret cannot be used [item 0]",
			'Contract → Get Many: The credential has no Key Sealing Secret. Act as Borrower (API Key) holds a sealed key, which opens only with the Key Sealing Secret it was sealed with: enter that secret in the credential. Nothing was sent.',
		],
	])(
		'a sealed key %s fails its item, sends nothing for it, and the other items go on',
		async (_case, useCredential, message, description) => {
			const result = await getManyActingAs(
				[sealed(sandbox.keys.borrower), sandbox.keys.otherBorrower],
				useCredential(),
			);

			expect(result.error).toBeUndefined();
			const [failed, ...more] = result.output(SINGLE_NODE, 1);
			expect(more).toEqual([]);
			expect(failed.error?.message).toBe(message);
			expect(describedBy(failed.error)).toBe(description);
			expect(failed.pairedItem).toEqual({ item: 0 });
			expect(sandbox.requests.map((request) => request.headers['x-api-key'])).toEqual([
				sandbox.keys.otherBorrower,
			]);
			const visible = everythingVisible(result.run);
			for (const secret of [sandbox.keys.borrower, SECRET, OTHER_SECRET]) {
				expect(visible).not.toContain(secret);
			}
		},
	);

	it('an altered sealed key fails closed, as does one of another version', async () => {
		const good = sealed(sandbox.keys.borrower);
		const altered = `${good.slice(0, 30)}${good[30] === 'A' ? 'B' : 'A'}${good.slice(31)}`;
		const otherVersion = good.replace(':v1:', ':v2:');

		const result = await getManyActingAs([altered, otherVersion], sealing());

		expect(sandbox.requests).toEqual([]);
		expect(result.output(SINGLE_NODE, 1).map((item) => describedBy(item.error))).toEqual([
			expect.stringMatching(
				/could not be opened .*sealed with another secret, or altered\. Nothing was sent\.$/,
			),
			expect.stringMatching(
				/not sealed in the form this node opens .*another version of the node, or altered\. Nothing was sent\.$/,
			),
		]);
		expect(everythingVisible(result.run)).not.toContain(sandbox.keys.borrower);
	});

	it.each([
		[
			'Lendasat refuses the opened key (401)',
			() => sandbox.state.keys.delete(sandbox.keys.borrower),
			/^Lendasat rejected the Act as Borrower API key \(HTTP 401/,
		],
		[
			'an error echoes the opened key',
			() =>
				sandbox.configure({
					faults: [{ kind: 'echo-key-error', path: '/api/contracts', times: 99 }],
				}),
			/^Lendasat rejected the request \(HTTP 400/,
		],
	])(
		'%s: the error output item and the whole run hold no plain key',
		async (_case, arrange, message) => {
			arrange();

			const result = await getManyActingAs([sealed(sandbox.keys.borrower)], sealing());

			expect(sandbox.requests[0].headers['x-api-key']).toBe(sandbox.keys.borrower);
			const [failed] = result.output(SINGLE_NODE, 1);
			expect(failed.error?.message).toMatch(message);
			for (const form of formsOf(sandbox.keys.borrower)) {
				expect(everythingVisible(result.run, result.error)).not.toContain(form);
			}
		},
	);
});

describe('many borrowers in one run share Max Parallel Requests: a slot is held only on the wire', () => {
	const LATENCY_MS = 200;
	const PARALLEL = 4;

	/** Contract → Get of each item's contract, acting as the item's borrower, 4 requests of the run at most. */
	async function readContracts(items: Array<{ api_key: string; contract_id: string }>) {
		const from = sandbox.requests.length;
		const startedAt = Date.now();
		const result = await runWorkflow(
			singleNodeWorkflow(
				{
					resource: 'contract',
					operation: 'get',
					contractId: { __rl: true, mode: 'id', value: '={{ $json.contract_id }}' },
					options: { borrowerApiKey: FROM_INPUT, maxConcurrent: PARALLEL },
				},
				{ typeVersion: 1.1, onError: 'continueRegularOutput' },
			),
			{ credential: master(), items },
		);
		return { ...result, startedAt, requests: sandbox.requests.slice(from) };
	}

	const itemOf = (borrower: OnboardedBorrower) => ({
		api_key: borrower.api_key,
		contract_id: borrower.contracts[0],
	});

	it("one borrower whose every request fails slows the others by no more than its own requests' time on the wire", async () => {
		const [failing, ...others] = await onboardBorrowers(sandbox.url, sandbox.keys.master, 41, [
			{ status: 'PrincipalGiven' },
		]);
		sandbox.configure({
			latencyMs: LATENCY_MS,
			faults: [{ kind: '503', path: `/api/contracts/${failing.contracts[0]}`, probability: 1 }],
		});
		/** When the last of the others' answers came, from the start of the run. */
		const othersDoneAfter = (run: Awaited<ReturnType<typeof readContracts>>) =>
			Math.max(
				...run.requests
					.filter((request) => request.headers['x-api-key'] !== failing.api_key)
					.map((request) => request.at),
			) +
			LATENCY_MS -
			run.startedAt;

		const alone = await readContracts(others.map(itemOf));
		expect(alone.output(SINGLE_NODE).map((item) => item.json.id)).toEqual(
			others.map((borrower) => borrower.contracts[0]),
		);
		// 40 borrowers, 4 at a time, 200 ms each.
		expect(othersDoneAfter(alone)).toBe((40 / PARALLEL) * LATENCY_MS);

		// The failing borrower comes first, with as many items as the run has slots.
		const withFailing = await readContracts([
			...Array.from({ length: PARALLEL }, () => itemOf(failing)),
			...others.map(itemOf),
		]);
		const output = withFailing.output(SINGLE_NODE);
		for (const item of output.slice(0, PARALLEL))
			expect(String(item.json.error)).toMatch(/HTTP 503.* — 9 attempts made$/);
		expect(output.slice(PARALLEL).map((item) => item.json.id)).toEqual(
			others.map((borrower) => borrower.contracts[0]),
		);
		const lastOther = othersDoneAfter(withFailing) + withFailing.startedAt - LATENCY_MS;
		const failingMeanwhile = withFailing.requests.filter(
			(request) => request.headers['x-api-key'] === failing.api_key && request.at <= lastOther,
		).length;
		// Each of its requests held a slot for one answer's time, never during its back-off.
		expect(othersDoneAfter(withFailing)).toBeLessThanOrEqual(
			othersDoneAfter(alone) + Math.ceil(failingMeanwhile / PARALLEL) * LATENCY_MS,
		);
		expect(failingMeanwhile).toBeLessThanOrEqual(PARALLEL);
		// The run-wide cap holds across all keys, retries included.
		expect(sandbox.stats().peakRequestsInFlight).toBe(PARALLEL);
	});

	it('an item waits for its place among the items at work, then for a slot, both within the time budget of its request', async () => {
		const borrowers = await onboardBorrowers(sandbox.url, sandbox.keys.master, 10, [
			{ status: 'PrincipalGiven' },
		]);
		sandbox.configure({ latencyMs: LATENCY_MS });
		const from = sandbox.requests.length;
		const startedAt = Date.now();
		// One slot: the run works on 4 items at once, and the others wait before they build anything.
		const result = await runWorkflow(
			singleNodeWorkflow(
				{
					resource: 'contract',
					operation: 'get',
					contractId: { __rl: true, mode: 'id', value: '={{ $json.contract_id }}' },
					options: { borrowerApiKey: FROM_INPUT, maxConcurrent: 1, timeBudget: 1_100 },
				},
				{ typeVersion: 1.1, onError: 'continueRegularOutput' },
			),
			{ credential: master(), items: borrowers.map(itemOf) },
		);

		const output = result.output(SINGLE_NODE);
		// One answer every 200 ms, every budget counted from the start of the run: five are answered
		// within it; the sixth's slot would come at 1,000 ms with 100 ms left, less than a tenth of its
		// budget, so it is not sent, and the others never get a slot either.
		expect(output.slice(0, 5).map((item) => item.json.id)).toEqual(
			borrowers.slice(0, 5).map((borrower) => borrower.contracts[0]),
		);
		for (const item of output.slice(5))
			expect(item.json.error).toBe(
				'Max Parallel Requests reached: no request slot came free within the time budget',
			);
		expect(sandbox.requests.slice(from)).toHaveLength(5);
		// The waiting items give up at 990 ms (a tenth of the budget before its end); the fifth answer comes at 1,000.
		expect(Date.now() - startedAt).toBe(1_000);
	});
});
