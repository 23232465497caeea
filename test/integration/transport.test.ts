/**
 * The transport every operation shares: rate limits, transient failures and duplicate-safe retries,
 * against the sandbox's injected faults.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox, SEED_IDS, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { useFakeTime } from '../helpers/fakeTime';
import { everythingVisible } from '../helpers/secrets';

let sandbox: Sandbox;

useFakeTime();
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const borrower = (overrides: Partial<TestCredential> = {}): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
	...overrides,
});

const received = () => sandbox.requests.map(({ method, path }) => `${method} ${path}`);

/** Fast retries for tests that exhaust them; the defaults are what users get. */
const quickRetries = { initialDelay: 20, maxDelay: 200 };

function contractCreate(options: Record<string, unknown> = {}) {
	return singleNodeWorkflow({
		resource: 'contract',
		operation: 'create',
		loanId: { __rl: true, mode: 'id', value: SEED_IDS.offers.usdcPolygon },
		loanAmount: '={{ $json.amount ?? 1500 }}',
		durationDays: 30,
		options,
	});
}

describe('rate limits', () => {
	/*
	 * The node remembers the rate each key may use on each server (that is the point of its shared
	 * pacing), so each test meets its limit on a server of its own.
	 */
	let limited: Sandbox;
	beforeEach(async () => {
		limited = await startSandbox();
	});
	afterEach(async () => limited.close());
	const onLimited = () => borrower({ baseUrl: limited.url, apiKey: limited.keys.borrower });

	it.each(['seconds', 'http-date'] as const)(
		'waits out a 429 (Retry-After as %s) and succeeds',
		async (retryAfter) => {
			limited.configure({ rateLimit: { requestsPerSecond: 2, retryAfter } });
			const { output, error } = await runWorkflow(contractCreate(), {
				credential: onLimited(),
				items: [{ amount: 101 }, { amount: 102 }, { amount: 103 }, { amount: 104 }],
			});
			expect(error).toBeUndefined();
			expect(output('Lendasat Borrower').map((item) => item.json.loan_amount)).toEqual([
				101, 102, 103, 104,
			]);
			expect(limited.stats().rateLimited).toBeGreaterThan(0);
			expect(limited.stats().contractsCreated).toBe(4);
		},
	);

	it('gets 200 items through a limit of 20 requests per second with default settings, no duplicate', async () => {
		limited.configure({ rateLimit: { requestsPerSecond: 20 }, idempotency: true });
		const items = Array.from({ length: 200 }, (_, index) => ({ amount: 100 + index }));
		const { output, error } = await runWorkflow(contractCreate(), {
			credential: onLimited(),
			items,
		});
		expect(error).toBeUndefined();
		const out = output('Lendasat Borrower');
		expect(out).toHaveLength(200);
		expect(out.every((item) => item.json.status === 'pending')).toBe(true);
		expect(new Set(out.map((item) => item.json.id)).size).toBe(200);
		expect(limited.stats()).toMatchObject({ contractsCreated: 200, duplicateContracts: 0 });
	});

	it('says how many attempts were made when the limit never lifts', async () => {
		limited.configure({ rateLimit: { requestsPerSecond: 0.01 } });
		const { error } = await runWorkflow(contractCreate({ ...quickRetries, maxRetries: 2 }), {
			credential: onLimited(),
			items: [{ amount: 101 }, { amount: 102 }],
		});
		expect(error?.message).toBe(
			'Lendasat is rate limiting this API key (HTTP 429, RATE_LIMITED) — 3 attempts made',
		);
		expect((error as { description?: string }).description).toContain(
			'Gave up after 3 attempts: HTTP 429, HTTP 429, HTTP 429.',
		);
	});
});

describe('transient failures', () => {
	it('retries a 503 until it succeeds, each time after making sure the contract was not created', async () => {
		sandbox.configure({
			faults: [{ kind: '503', method: 'POST', path: '/api/contracts', times: 2 }],
		});
		const { output, error } = await runWorkflow(contractCreate(quickRetries), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower')[0].json.status).toBe('pending');
		expect(received()).toEqual([
			'POST /api/contracts',
			'GET /api/contracts',
			'POST /api/contracts',
			'GET /api/contracts',
			'POST /api/contracts',
			'GET /api/contracts', // a request sent before may still land: one look for a second contract
		]);
		expect(sandbox.stats().contractsCreated).toBe(1);
	});

	it('retries a read (Contract → Get) on a 503 without looking anything up', async () => {
		sandbox.configure({ faults: [{ kind: '503', path: '/api/contracts', times: 2 }] });
		const { error } = await runWorkflow(
			singleNodeWorkflow({
				resource: 'contract',
				operation: 'get',
				contractId: SEED_IDS.contracts.approved,
				options: quickRetries,
			}),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		expect(sandbox.requests).toHaveLength(3);
	});

	it('gives up after the maximum retries and lists every attempt', async () => {
		sandbox.configure({
			faults: [{ kind: '503', method: 'POST', path: '/api/contracts', times: 10 }],
		});
		const { error } = await runWorkflow(contractCreate({ ...quickRetries, maxRetries: 2 }), {
			credential: borrower(),
		});
		expect(error?.message).toBe(
			'Lendasat is temporarily unavailable (HTTP 503, SERVICE_UNAVAILABLE) — 3 attempts made',
		);
		expect((error as { description?: string }).description).toContain(
			'Gave up after 3 attempts: HTTP 503, HTTP 503, HTTP 503.',
		);
		expect((error as { description?: string }).description).toContain('it was not created');
		expect(received().filter((request) => request === 'POST /api/contracts')).toHaveLength(3);
	});

	it('retries only the failures the user chose, and says the contract was not created', async () => {
		sandbox.configure({
			faults: [{ kind: '503', method: 'POST', path: '/api/contracts', times: 1 }],
		});
		const { error } = await runWorkflow(
			contractCreate({ ...quickRetries, retryOn: ['rateLimit'] }),
			{ credential: borrower() },
		);
		expect(error?.message).toMatch(/HTTP 503/);
		expect((error as { description?: string }).description).toMatch(
			/No contract with client_contract_id [0-9a-f-]{36} exists: it was not created\./,
		);
		expect(received()).toEqual(['POST /api/contracts', 'GET /api/contracts']);
	});

	it('retries a refused connection, then says the host could not be reached', async () => {
		const closed = http.createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const apiKey = 'lndst_sk_0123456789ab_UnreachableHostKey';
		const { error, run } = await runWorkflow(contractCreate({ ...quickRetries, maxRetries: 1 }), {
			credential: borrower({ baseUrl: `http://127.0.0.1:${port}`, apiKey }),
		});
		expect(error?.message).toBe('Could not get an answer from Lendasat: connection refused');
		expect((error as { description?: string }).description).toContain(
			'Gave up after 2 attempts: connection refused (ECONNREFUSED), connection refused (ECONNREFUSED).',
		);
		expect(everythingVisible(run, error)).not.toContain(apiKey);
	});
});

describe('duplicate-safe contract creation', () => {
	it.each([
		['a 503 after the contract was created', '503'],
		['a connection reset after the contract was created', 'reset'],
	] as const)('%s yields exactly one contract', async (_case, kind) => {
		sandbox.configure({
			faults: [{ kind, method: 'POST', path: '/api/contracts', after: true, times: 1 }],
		});
		const { output, error } = await runWorkflow(
			contractCreate({ ...quickRetries, sendIdempotencyKey: false }),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		// Found by its client_contract_id, without sending it again (and without the header).
		expect(received()).toEqual(['POST /api/contracts', 'GET /api/contracts']);
		expect(sandbox.stats().contractsCreated).toBe(1);
		const [contract] = output('Lendasat Borrower');
		expect(sandbox.state.contracts.has(String(contract.json.id))).toBe(true);
	});

	describe('on a server that lists no contracts (the specification shows no list)', () => {
		let server: http.Server;
		let url: string;
		let posts: Array<string | undefined>;
		beforeAll(async () => {
			// Every contract request fails with a 503 after it was processed; there is no GET /api/contracts.
			server = http.createServer((request, response) => {
				if (request.method === 'POST')
					posts.push(request.headers['idempotency-key'] as string | undefined);
				response.writeHead(request.method === 'POST' ? 503 : 404, {
					'content-type': 'application/json',
				});
				response.end(
					JSON.stringify({
						error: 'Unavailable',
						code: request.method === 'POST' ? 'UNAVAILABLE' : 'NOT_FOUND',
						details: '',
					}),
				);
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		});
		afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
		beforeEach(() => {
			posts = [];
		});

		it('sends again only with the Idempotency-Key, which lets such a server recognise the repeat', async () => {
			const { error } = await runWorkflow(contractCreate({ ...quickRetries, maxRetries: 2 }), {
				credential: borrower({ baseUrl: url }),
			});
			expect(posts).toHaveLength(3);
			expect(new Set(posts).size).toBe(1);
			expect(posts[0]).toMatch(/^n8n-/);
			expect((error as { description?: string }).description).toContain(
				'a repeat carried the same Idempotency-Key',
			);
		});

		it('does not send again without the header, and says why', async () => {
			const { error } = await runWorkflow(
				contractCreate({ ...quickRetries, sendIdempotencyKey: false }),
				{
					credential: borrower({ baseUrl: url }),
				},
			);
			expect(posts).toEqual([undefined]);
			expect(error?.message).toMatch(/HTTP 503/);
			expect((error as { description?: string }).description).toContain(
				'It may have been created: this server lists no contracts to check, and without an Idempotency-Key the node does not send it again.',
			);
		});
	});

	it('still retries a 429 without a key: a rate-limited request was not processed', async () => {
		sandbox.configure({ rateLimit: { requestsPerSecond: 1 } });
		const { error } = await runWorkflow(contractCreate({ sendIdempotencyKey: false }), {
			credential: borrower(),
			items: [{ amount: 101 }, { amount: 102 }],
		});
		expect(error).toBeUndefined();
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 2, duplicateContracts: 0 });
	});

	it('never retries account creation after a possible delivery: it has no idempotency key', async () => {
		sandbox.configure({
			faults: [{ kind: '503', path: '/api/create-api-account', after: true, times: 1 }],
		});
		const { error } = await runWorkflow(
			singleNodeWorkflow({
				resource: 'account',
				operation: 'create',
				name: 'Ada',
				email: 'ada@example.com',
				timezone: 'Europe/London',
			}),
			{
				credential: {
					environment: 'custom',
					baseUrl: sandbox.url,
					keyType: 'master',
					apiKey: sandbox.keys.master,
				},
			},
		);
		expect(error?.message).toMatch(/HTTP 503/);
		expect(sandbox.requests).toHaveLength(1);
	});
});

describe("one timeout: n8n's Request Options → Timeout, when set, is each attempt's", () => {
	const getContract = (parameters: Record<string, unknown>) =>
		runWorkflow(
			singleNodeWorkflow({
				resource: 'contract',
				operation: 'get',
				contractId: SEED_IDS.contracts.approved,
				...parameters,
			}),
			{ credential: borrower() },
		);

	it("a slow answer outlasts n8n's timeout: the attempt times out, the answer body included", async () => {
		sandbox.configure({ faults: [{ kind: 'trickle', delayMs: 200, path: '/api/contracts' }] });
		const { error } = await getContract({
			requestOptions: { timeout: 300 },
			options: { maxRetries: 0, attemptTimeout: 60_000 },
		});
		expect(error?.message).toBe('Could not get an answer from Lendasat: timed out');
	});

	it("without n8n's timeout the node's own Timeout per Attempt applies", async () => {
		sandbox.configure({ faults: [{ kind: 'slow', delayMs: 1_000, path: '/api/contracts' }] });
		const own = await getContract({ options: { maxRetries: 0, attemptTimeout: 300 } });
		expect(own.error?.message).toBe('Could not get an answer from Lendasat: timed out');

		sandbox.reset();
		sandbox.configure({ faults: [{ kind: 'slow', delayMs: 300, path: '/api/contracts' }] });
		const longer = await getContract({
			requestOptions: { timeout: 5_000 },
			options: { maxRetries: 0, attemptTimeout: 100 },
		});
		expect(longer.error).toBeUndefined();
	});

	it('refuses a timeout that is not a whole number of milliseconds, before sending', async () => {
		const { error } = await getContract({ requestOptions: { timeout: -5 } });
		expect(error?.message).toBe('Invalid Timeout [item 0]');
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('secrets', () => {
	it('keeps the key out of every output, error and description, whatever failed', async () => {
		sandbox.configure({
			idempotency: true,
			faults: [
				{ kind: '502-html', path: '/api/contracts', times: 1 },
				{ kind: 'truncated-json', path: '/api/contracts', times: 1 },
			],
		});
		const runs = await Promise.all([
			runWorkflow(contractCreate({ ...quickRetries, maxRetries: 0 }), { credential: borrower() }),
			runWorkflow(contractCreate({ ...quickRetries, maxRetries: 0 }), { credential: borrower() }),
			runWorkflow(contractCreate(), {
				credential: borrower({ apiKey: `${sandbox.keys.borrower}x` }),
			}),
			runWorkflow(contractCreate(), {
				credential: borrower(),
				items: [{ amount: 1 }, { amount: 1500 }],
			}),
		]);
		for (const { run, error } of runs) {
			const visible = everythingVisible(run, error);
			expect(visible).not.toContain(sandbox.keys.borrower);
			expect(visible).not.toContain(sandbox.keys.borrower.slice(-20));
		}
	});

	const reportInvoicePaid = (fields: Record<string, unknown>, options = {}) =>
		singleNodeWorkflow({
			resource: 'contract',
			operation: 'reportBtcInvoicePaid',
			contractId: { __rl: true, mode: 'id', value: SEED_IDS.contracts.principalGiven },
			invoiceId: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
			txid: 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
			...fields,
			options,
		});

	it.each([
		['the credential key, of any format', 'Partner-Secret-4711', {}],
		['a partner master key', 'las-fRBjjmgyCx6uZoJ7SxB0', {}],
	])('never quotes %s pasted into another field', async (_case, key, extra) => {
		const { error, run } = await runWorkflow(reportInvoicePaid({ txid: key, ...extra }), {
			credential: borrower({ apiKey: key }),
		});
		expect(error?.message).toBe('Invalid Transaction ID [item 0]');
		// The workflow's own parameters hold what the user typed; the error built from it must not.
		const { description } = error as { description?: string };
		expect(`${error?.message} ${description}`).not.toContain(key);
		expect(description).toMatch(
			/^Transaction ID: (\[redacted\]|"\[redacted\]"|a text holding a Lendasat API key \(not shown\)) is not hexadecimal/,
		);
		expect(JSON.stringify(run.data.resultData.error)).not.toMatch(
			new RegExp(`"(message|description)":"[^"]*${key}`),
		);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('never quotes the Act as Borrower key pasted into another field', async () => {
		const actAs = 'Borrower-Of-Ours-9f8e7d6c';
		const { error, run } = await runWorkflow(
			reportInvoicePaid({ invoiceId: actAs }, { borrowerApiKey: actAs }),
			{ credential: borrower() },
		);
		expect(error?.message).toBe('Invalid Invoice ID [item 0]');
		const { description } = error as { description?: string };
		expect(`${error?.message} ${description}`).not.toContain(actAs);
		expect(JSON.stringify(run.data.resultData.error)).not.toMatch(
			new RegExp(`"(message|description)":"[^"]*${actAs}`),
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});
