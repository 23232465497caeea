import http from 'node:http';
import net from 'node:net';
import { publicKeyOf, standInSignMessage } from '../dev/sandbox/messageSigner';
import {
	SEED_IDS,
	startRedirectTarget,
	startSandbox,
	type RedirectTarget,
	type Sandbox,
} from '../dev/sandbox/server';
import { parseBitcoinAddress } from '../nodes/LendasatBorrower/validation/bitcoin';
import {
	checkArkAddress,
	checkCompressedPublicKey,
	checkNpub,
} from '../nodes/LendasatBorrower/validation/checks';
import { useFakeTime } from './helpers/fakeTime';

const OFFER = SEED_IDS.offers.usdcPolygon; // 100–10000 USD, 7–365 days
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BORROWER_KEY = /^lndst_sk_[0-9a-f]{12}_[A-Za-z0-9]{43}$/;

let sandbox: Sandbox;

useFakeTime();

interface CallOptions {
	key?: string | null;
	body?: unknown;
	raw?: string;
	headers?: Record<string, string>;
	signal?: AbortSignal;
}

interface Answer {
	status: number;
	headers: Headers;
	text: string;
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
	const headers: Record<string, string> = { ...options.headers };
	const key = options.key === undefined ? sandbox.keys.borrower : options.key;
	if (key !== null) headers['x-api-key'] = key;
	let body: string | undefined = options.raw;
	if (options.body !== undefined) {
		body = JSON.stringify(options.body);
		headers['content-type'] ??= 'application/json';
	}
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers,
		body,
		signal: options.signal,
	});
	const text = await response.text();
	let json: unknown;
	try {
		json = text === '' ? undefined : JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.status, headers: response.headers, text, json };
}

const createContract = (body: Record<string, unknown>, options: CallOptions = {}) =>
	call('POST', '/api/contracts', { ...options, body });

const validContract = { loan_id: OFFER, loan_amount: 500, duration_days: 30 };
/** secp256k1's generator point and BIP-173's test-network address: values the live backend parses. */
const LIVE_PK = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const LIVE_BTC_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const LOAN_ADDRESS = '0x1111111111111111111111111111111111111111';
/** A body the live backend accepts (ContractRequestSchema). */
const liveContract = {
	id: OFFER,
	loan_amount: 500,
	duration_days: 30,
	borrower_btc_address: LIVE_BTC_ADDRESS,
	borrower_pk: LIVE_PK,
	borrower_derivation_path: "m/84'/1'/0'/0/0",
	borrower_loan_address: LOAN_ADDRESS,
	loan_type: 'StableCoin',
};
/** What the node sends: both dialects' fields in one body. */
const bothDialects = {
	...liveContract,
	loan_id: OFFER,
	collateral_address: LIVE_BTC_ADDRESS,
	repayment_address: LOAN_ADDRESS,
};
const validAccount = { name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' };

function expectSpecError(answer: Answer, status: number, code: string): void {
	expect(answer.status).toBe(status);
	expect(Object.keys(answer.json).sort()).toEqual(['code', 'details', 'error']);
	expect(answer.json.code).toBe(code);
	expect(typeof answer.json.error).toBe('string');
	expect(typeof answer.json.details).toBe('string');
}

beforeAll(async () => {
	sandbox = await startSandbox();
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(() => sandbox.reset());

describe('authentication', () => {
	it('answers 401 without a key, with an unknown key and with the wrong kind of key', async () => {
		expectSpecError(await call('GET', '/api/contracts', { key: null }), 401, 'UNAUTHORIZED');
		expectSpecError(
			await call('GET', '/api/contracts', { key: 'lndst_sk_000000000000_nope' }),
			401,
			'UNAUTHORIZED',
		);
		expectSpecError(
			await createContract(validContract, { key: sandbox.keys.master }),
			401,
			'UNAUTHORIZED',
		);
		expectSpecError(
			await call('POST', '/api/create-api-account', { body: validAccount }),
			401,
			'UNAUTHORIZED',
		);
		expectSpecError(
			await call('POST', '/api/create-api-account', { key: null, body: validAccount }),
			401,
			'UNAUTHORIZED',
		);
	});

	it('never echoes the key and speaks the live dialect when asked', async () => {
		const secret = 'lndst_sk_abcdefabcdef_secretsecretsecret';
		expect((await call('GET', '/api/offers', { key: secret })).text).not.toContain('secret');
		sandbox.configure({ dialect: 'live' });
		expect((await call('GET', '/api/offers', { key: secret })).json).toEqual({
			message: 'Invalid API key',
		});
		expect((await call('GET', '/api/offers', { key: null })).json).toEqual({
			message: 'Missing JWT or API key.',
		});
	});

	it('serves health and version without a key', async () => {
		expect((await call('GET', '/api/health', { key: null })).json).toEqual({
			message: 'Up and running',
		});
		const version = await call('GET', '/api/version', { key: null });
		expect(Object.keys(version.json).sort()).toEqual(['commit_hash', 'tag']);
	});

	it('answers 404 for unknown paths and 405 for a wrong method', async () => {
		expectSpecError(await call('GET', '/api/nothing-here'), 404, 'NOT_FOUND');
		expectSpecError(await call('PATCH', '/api/contracts'), 405, 'METHOD_NOT_ALLOWED');
	});
});

describe('POST /api/create-api-account', () => {
	it('creates an account whose key works at once', async () => {
		const answer = await call('POST', '/api/create-api-account', {
			key: sandbox.keys.master,
			body: validAccount,
		});
		expect(answer.status).toBe(200);
		expect(Object.keys(answer.json).sort()).toEqual(['api_key', 'email', 'id', 'name', 'timezone']);
		expect(answer.json).toMatchObject(validAccount);
		expect(answer.json.id).toMatch(UUID);
		expect(answer.json.api_key).toMatch(BORROWER_KEY);
		const me = await call('GET', '/api/users/me', { key: answer.json.api_key });
		expect(me.json.user).toMatchObject({
			id: answer.json.id,
			name: 'Ada Lovelace',
			email: 'ada@example.com',
		});
		expect((await createContract(validContract, { key: answer.json.api_key })).status).toBe(200);
		expect(sandbox.state.accounts).toHaveLength(1);
	});

	it.each([
		[{ email: 'a@b.co', timezone: 'Europe/Berlin' }, 'MISSING_FIELD', 'name'],
		[{ name: 'A', timezone: 'Europe/Berlin' }, 'MISSING_FIELD', 'email'],
		[{ name: 'A', email: 'a@b.co' }, 'MISSING_FIELD', 'timezone'],
		[{ ...validAccount, name: '   ' }, 'INVALID_NAME', 'name'],
		[{ ...validAccount, name: 'x'.repeat(101) }, 'INVALID_NAME', 'name'],
		[{ ...validAccount, name: 42 }, 'INVALID_NAME', 'name'],
		[{ ...validAccount, email: 'not-an-email' }, 'INVALID_EMAIL', 'email'],
		[{ ...validAccount, email: 'a@b' }, 'INVALID_EMAIL', 'email'],
		[{ ...validAccount, timezone: 'Mars/Olympus_Mons' }, 'INVALID_TIMEZONE', 'timezone'],
		[{ ...validAccount, timezone: 'UTC' }, 'INVALID_TIMEZONE', 'timezone'],
		[{ ...validAccount, timezone: 'europe/berlin' }, 'INVALID_TIMEZONE', 'timezone'],
	])('rejects %j with %s', async (body, code, field) => {
		const answer = await call('POST', '/api/create-api-account', {
			key: sandbox.keys.master,
			body,
		});
		expectSpecError(answer, 400, code);
		expect(answer.json.details).toContain(field);
	});

	it('accepts multi-level zones', async () => {
		const body = { ...validAccount, timezone: 'America/Argentina/Buenos_Aires' };
		expect(
			(await call('POST', '/api/create-api-account', { key: sandbox.keys.master, body })).status,
		).toBe(200);
	});
});

describe('POST /api/contracts', () => {
	it('creates a contract with the spec shape', async () => {
		const body = {
			...validContract,
			collateral_address: 'tb1qcollateral',
			repayment_address: '0xrepay',
		};
		const answer = await createContract(body);
		expect(answer.status).toBe(200);
		expect(answer.json).toMatchObject({ ...body, status: 'pending' });
		expect(answer.json.id).toMatch(UUID);
		expect(answer.json.created_at).toMatch(ISO_UTC);
		expect(answer.json.updated_at).toBe(answer.json.created_at);
		expect(answer.json.installments).toHaveLength(1);
		const fetched = await call('GET', `/api/contracts/${answer.json.id}`);
		expect(fetched.json).toEqual(answer.json);
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 1, duplicateContracts: 0 });
	});

	it('answers 201 when configured, for both create endpoints', async () => {
		sandbox.configure({ createStatus: 201 });
		expect((await createContract(validContract)).status).toBe(201);
		const account = await call('POST', '/api/create-api-account', {
			key: sandbox.keys.master,
			body: validAccount,
		});
		expect(account.status).toBe(201);
	});

	it("accepts both dialects' fields in one body, stores client_contract_id and stays strict on loan_id", async () => {
		const clientId = 'cccccccc-0000-4000-8000-000000000001';
		const body = { ...bothDialects, client_contract_id: clientId, some_future_field: { a: 1 } };
		const answer = await createContract(body);
		expect(answer.status).toBe(200);
		expect(answer.json).toMatchObject({
			status: 'pending',
			loan_amount: 500,
			client_contract_id: clientId,
			collateral_address: bothDialects.collateral_address,
			borrower_btc_address: bothDialects.borrower_btc_address,
			borrower_loan_address: bothDialects.borrower_loan_address,
		});
		expect(sandbox.state.contracts.get(answer.json.id)?.request).toEqual(body);
		const listed = (await call('GET', '/api/contracts?limit=100')).json.data;
		expect(
			listed.filter(
				(contract: { client_contract_id: string }) => contract.client_contract_id === clientId,
			),
		).toHaveLength(1);
		const { loan_id: _loanId, ...liveOnly } = bothDialects;
		void _loanId;
		const noLoanId = await createContract(liveOnly);
		expectSpecError(noLoanId, 400, 'MISSING_FIELD');
		expect(noLoanId.json.details).toContain('loan_id');
	});

	it.each([
		[{ loan_amount: 500, duration_days: 30 }, 400, 'MISSING_FIELD', 'loan_id'],
		[{ loan_id: OFFER, duration_days: 30 }, 400, 'MISSING_FIELD', 'loan_amount'],
		[{ loan_id: OFFER, loan_amount: 500 }, 400, 'MISSING_FIELD', 'duration_days'],
		[{ ...validContract, loan_id: 'offer-1' }, 400, 'INVALID_LOAN_ID', 'loan_id'],
		[{ ...validContract, loan_amount: -5 }, 400, 'INVALID_AMOUNT', 'loan_amount'],
		[{ ...validContract, loan_amount: '500' }, 400, 'INVALID_AMOUNT', 'loan_amount'],
		[
			{ ...validContract, loan_amount: 50 },
			400,
			'INVALID_AMOUNT',
			'Invalid loan amount: $50 not in range $100-$10000',
		],
		[{ ...validContract, loan_amount: 10000.01 }, 400, 'INVALID_AMOUNT', '$10000.01'],
		[{ ...validContract, duration_days: 1.5 }, 400, 'INVALID_DURATION', 'duration_days'],
		[{ ...validContract, duration_days: 0 }, 400, 'INVALID_DURATION', 'duration_days'],
		[
			{ ...validContract, duration_days: 400 },
			400,
			'INVALID_DURATION',
			'400 days not in range 7-365',
		],
		[
			{ ...validContract, loan_id: '11111111-1111-4111-8111-111111111111' },
			404,
			'OFFER_NOT_FOUND',
			'11111111',
		],
	])('rejects %j: %i %s', async (body, status, code, detail) => {
		const answer = await createContract(body);
		expectSpecError(answer, status, code);
		expect(answer.json.details).toContain(detail);
		expect(sandbox.stats().contractsCreated).toBe(0);
	});

	it('checks Content-Type and JSON syntax', async () => {
		const wrongType = await call('POST', '/api/contracts', {
			raw: JSON.stringify(validContract),
			headers: { 'content-type': 'text/plain' },
		});
		expectSpecError(wrongType, 400, 'INVALID_CONTENT_TYPE');
		const noType = await call('POST', '/api/contracts', { raw: JSON.stringify(validContract) });
		expectSpecError(noType, 400, 'INVALID_CONTENT_TYPE');
		const charset = await call('POST', '/api/contracts', {
			raw: JSON.stringify(validContract),
			headers: { 'content-type': 'application/json; charset=utf-8' },
		});
		expect(charset.status).toBe(200);
		const broken = await call('POST', '/api/contracts', {
			raw: '{"loan_id":',
			headers: { 'content-type': 'application/json' },
		});
		expectSpecError(broken, 400, 'INVALID_JSON');
		sandbox.configure({ dialect: 'live' });
		const live = await call('POST', '/api/contracts', {
			raw: '{}',
			headers: { 'content-type': 'text/plain' },
		});
		expect(live.status).toBe(415);
		expect(Object.keys(live.json)).toEqual(['message']);
	});

	it('counts duplicates of the same canonical body per key', async () => {
		await createContract(validContract);
		await createContract(validContract);
		await createContract({ ...validContract, loan_amount: 501 });
		await createContract(validContract, { key: sandbox.keys.otherBorrower });
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 4, duplicateContracts: 1 });
	});

	it('counts duplicates by client_contract_id when sent, else by body and Idempotency-Key', async () => {
		const clientId = (n: number) => `cccccccc-0000-4000-8000-${String(n).padStart(12, '0')}`;
		// 30 identical bodies, each with its own client id: no duplicates.
		for (let index = 0; index < 30; index += 1)
			await createContract({ ...validContract, client_contract_id: clientId(index) });
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 30, duplicateContracts: 0 });
		// The same client id again (even with another amount): a duplicate.
		await createContract({ ...validContract, loan_amount: 700, client_contract_id: clientId(3) });
		expect(sandbox.stats().duplicateContracts).toBe(1);
		// Without a client id: identical bodies with distinct Idempotency-Keys are distinct requests…
		await createContract(validContract, { headers: { 'idempotency-key': 'a' } });
		await createContract(validContract, { headers: { 'idempotency-key': 'b' } });
		expect(sandbox.stats().duplicateContracts).toBe(1);
		// …the same key and body again is a duplicate (idempotency is off here).
		await createContract(validContract, { headers: { 'idempotency-key': 'a' } });
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 34, duplicateContracts: 2 });
	});
});

describe('rate limiting', () => {
	async function burst(count: number): Promise<Answer[]> {
		return Promise.all(Array.from({ length: count }, () => call('GET', '/api/offers')));
	}

	it('answers 429 with Retry-After in seconds', async () => {
		sandbox.configure({ rateLimit: { requestsPerSecond: 3 } });
		const answers = await burst(10);
		const limited = answers.filter((answer) => answer.status === 429);
		expect(limited.length).toBeGreaterThanOrEqual(4);
		expectSpecError(limited[0], 429, 'RATE_LIMITED');
		expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
		expect(sandbox.stats().rateLimited).toBe(limited.length);
		expect((await call('GET', '/api/offers', { key: sandbox.keys.otherBorrower })).status).toBe(
			200,
		);
	});

	it('answers with an HTTP date or without Retry-After when configured', async () => {
		sandbox.configure({ rateLimit: { requestsPerSecond: 1, retryAfter: 'http-date' } });
		const dated = (await burst(3)).find((answer) => answer.status === 429);
		const retryAt = Date.parse(dated?.headers.get('retry-after') ?? '');
		expect(retryAt).toBeGreaterThan(Date.now() - 1000);
		expect(retryAt).toBeLessThanOrEqual(Date.now() + 2000);
		sandbox.configure({ rateLimit: { requestsPerSecond: 1, retryAfter: 'none' } });
		const bare = (await burst(3)).find((answer) => answer.status === 429);
		expect(bare?.headers.get('retry-after')).toBeNull();
	});

	it('answers 429 to every request during a storm, and applies the limit after it', async () => {
		sandbox.configure({ rateLimit: { requestsPerSecond: 100, stormUntilMs: Date.now() + 60_000 } });
		const stormy = await burst(3);
		expect(stormy.map((answer) => answer.status)).toEqual([429, 429, 429]);
		expect(Number(stormy[0].headers.get('retry-after'))).toBe(1);
		expect((await call('GET', '/api/offers', { key: sandbox.keys.otherBorrower })).status).toBe(
			429,
		);
		sandbox.configure({ rateLimit: { requestsPerSecond: 100, stormUntilMs: Date.now() - 1 } });
		expect((await burst(3)).map((answer) => answer.status)).toEqual([200, 200, 200]);
	});

	it('refuses a storm end that is not a time', () => {
		expect(() =>
			sandbox.configure({
				rateLimit: { requestsPerSecond: 1, stormUntilMs: 'soon' as unknown as number },
			}),
		).toThrow(/stormUntilMs/);
	});
});

describe('idempotency', () => {
	it('replays the stored answer and creates nothing new', async () => {
		sandbox.configure({ idempotency: true });
		const headers = { 'idempotency-key': 'order-42' };
		const first = await createContract(validContract, { headers });
		const second = await createContract(
			{ duration_days: 30, loan_amount: 500, loan_id: OFFER },
			{ headers },
		);
		expect(second.status).toBe(first.status);
		expect(second.json).toEqual(first.json);
		expect(second.headers.get('idempotent-replayed')).toBe('true');
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		expect(sandbox.stats().contractsCreated).toBe(1);
		const otherKey = await createContract(validContract, {
			headers,
			key: sandbox.keys.otherBorrower,
		});
		expect(otherKey.json.id).not.toBe(first.json.id);
	});

	it('refuses a reused key with another body and does not store errors', async () => {
		sandbox.configure({ idempotency: true });
		const headers = { 'idempotency-key': 'order-43' };
		expectSpecError(
			await createContract({ ...validContract, loan_amount: 5 }, { headers }),
			400,
			'INVALID_AMOUNT',
		);
		expect((await createContract(validContract, { headers })).status).toBe(200);
		expectSpecError(
			await createContract({ ...validContract, loan_amount: 600 }, { headers }),
			422,
			'IDEMPOTENCY_KEY_REUSED',
		);
		expect(sandbox.stats().contractsCreated).toBe(1);
	});

	it('creates one contract for concurrent requests with the same key', async () => {
		sandbox.configure({ idempotency: true });
		const headers = { 'idempotency-key': 'burst-1' };
		const answers = await Promise.all(
			Array.from({ length: 25 }, () => createContract(validContract, { headers })),
		);
		expect(new Set(answers.map((answer) => answer.json.id)).size).toBe(1);
		expect(sandbox.stats().contractsCreated).toBe(1);
	});

	it('ignores the header when switched off', async () => {
		const headers = { 'idempotency-key': 'order-44' };
		await createContract(validContract, { headers });
		await createContract(validContract, { headers });
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 2, duplicateContracts: 1 });
	});
});

describe('faults', () => {
	it('after:true really creates the contract and loses the answer; the idempotent retry recovers it', async () => {
		sandbox.configure({
			idempotency: true,
			faults: [{ kind: '500', method: 'POST', path: '/api/contracts', after: true }],
		});
		const headers = { 'idempotency-key': 'lost-1' };
		const lost = await createContract(validContract, { headers });
		expectSpecError(lost, 500, 'INTERNAL_ERROR');
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 1, faultsInjected: 1 });
		const retry = await createContract(validContract, { headers });
		expect(retry.status).toBe(200);
		expect(retry.headers.get('idempotent-replayed')).toBe('true');
		expect(sandbox.state.contracts.get(retry.json.id)).toBeDefined();
	});

	it('reset drops the connection', async () => {
		sandbox.configure({ faults: [{ kind: 'reset', path: '/api/contracts', after: true }] });
		await expect(createContract(validContract)).rejects.toThrow();
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 1, faultsInjected: 1 });
		expect((await createContract(validContract)).status).toBe(200);
	});

	it('serves the other kinds and uses each rule up', async () => {
		sandbox.configure({
			faults: [
				{ kind: '502-html', path: '/api/offers', times: 2 },
				{ kind: '503', path: '/api/offers' },
				{ kind: 'truncated-json', path: '/api/offers' },
				{ kind: 'empty-body', path: '/api/offers' },
			],
		});
		const html = await call('GET', '/api/offers');
		expect(html.status).toBe(502);
		expect(html.headers.get('content-type')).toContain('text/html');
		expect(html.text).toContain('<h1>502 Bad Gateway</h1>');
		expect((await call('GET', '/api/offers')).status).toBe(502);
		const unavailable = await call('GET', '/api/offers');
		expectSpecError(unavailable, 503, 'SERVICE_UNAVAILABLE');
		expect(unavailable.headers.get('retry-after')).toBe('1');
		const truncated = await call('GET', '/api/offers');
		expect(truncated.status).toBe(500);
		expect(truncated.headers.get('content-type')).toContain('application/json');
		expect(truncated.json).toBeUndefined();
		expect(truncated.text.length).toBeGreaterThan(0);
		const empty = await call('GET', '/api/offers');
		expect([empty.status, empty.text]).toEqual([500, '']);
		expect((await call('GET', '/api/offers')).status).toBe(200);
		expect(sandbox.stats().faultsInjected).toBe(5);
	});

	it('slow: a client that gives up first leaves no contract unless the rule is after:true', async () => {
		const abandon = async (): Promise<void> => {
			await expect(
				createContract(validContract, { signal: AbortSignal.timeout(50) }),
			).rejects.toThrow();
			await new Promise((resolve) => setTimeout(resolve, 250));
		};
		sandbox.configure({ faults: [{ kind: 'slow', path: '/api/contracts', delayMs: 200 }] });
		await abandon();
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 0, faultsInjected: 1 });
		sandbox.configure({
			faults: [{ kind: 'slow', path: '/api/contracts', delayMs: 200, after: true }],
		});
		await abandon();
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 1, faultsInjected: 2 });
	});

	it('slow delays the answer; probability rules are deterministic', async () => {
		sandbox.configure({ faults: [{ kind: 'slow', path: '/api/health', delayMs: 300 }] });
		const started = Date.now();
		expect((await call('GET', '/api/health')).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(250);
		const pattern = async (): Promise<number[]> => {
			sandbox.configure({ faults: [{ kind: '500', path: '/api/health', probability: 0.5 }] });
			const statuses: number[] = [];
			for (let index = 0; index < 20; index += 1)
				statuses.push((await call('GET', '/api/health')).status);
			return statuses;
		};
		const first = await pattern();
		expect(first).toContain(500);
		expect(first).toContain(200);
		expect(await pattern()).toEqual(first);
	});
});

describe('contract listing', () => {
	it('pages through 250+ contracts without gaps or repeats', async () => {
		sandbox.admin.createContracts(sandbox.keys.borrower, 250);
		const first = await call('GET', '/api/contracts?limit=100');
		expect(Object.keys(first.json).sort()).toEqual([
			'data',
			'limit',
			'page',
			'total',
			'total_pages',
		]);
		expect(first.json).toMatchObject({ page: 1, limit: 100, total: 255, total_pages: 3 });
		const ids = new Set<string>();
		for (let page = 1; page <= 3; page += 1) {
			const answer = await call('GET', `/api/contracts?page=${page}&limit=100`);
			for (const contract of answer.json.data) ids.add(contract.id);
		}
		expect(ids.size).toBe(255);
		expect((await call('GET', '/api/contracts?page=4&limit=100')).json.data).toEqual([]);
	});

	it('defaults to 10 newest first and validates page and limit', async () => {
		const answer = await call('GET', '/api/contracts');
		expect(answer.json).toMatchObject({ page: 1, limit: 10, total: 5, total_pages: 1 });
		const created = answer.json.data.map((contract: { created_at: string }) => contract.created_at);
		expect([...created].sort().reverse()).toEqual(created);
		expect((await call('GET', '/api/contracts?page=0')).json.details).toBe(
			'Page must be greater than 0',
		);
		expect((await call('GET', '/api/contracts?limit=101')).json.details).toBe(
			'Limit must be between 1 and 100',
		);
		sandbox.configure({ dialect: 'live' });
		expect((await call('GET', '/api/contracts?limit=0')).json).toEqual({
			message: 'Limit must be between 1 and 100',
		});
	});

	it('filters by status case-insensitively and sorts by a field', async () => {
		const filtered = await call('GET', '/api/contracts?status=principal_given,REQUESTED');
		expect(
			filtered.json.data.map((contract: { status: string }) => contract.status).sort(),
		).toEqual(['PrincipalGiven', 'PrincipalGiven', 'Requested']);
		const sorted = await call('GET', '/api/contracts?sort_by=loan_amount&sort_order=asc');
		const amounts = sorted.json.data.map(
			(contract: { loan_amount: number }) => contract.loan_amount,
		);
		expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
		expectSpecError(await call('GET', '/api/contracts?sort_by=colour'), 400, 'INVALID_QUERY');
	});

	it("hides other borrowers' contracts", async () => {
		const foreign = SEED_IDS.contracts.otherBorrowers;
		expectSpecError(await call('GET', `/api/contracts/${foreign}`), 404, 'CONTRACT_NOT_FOUND');
		sandbox.configure({ dialect: 'live' });
		const live = await call('GET', `/api/contracts/${foreign}`);
		expect([live.status, live.json]).toEqual([500, { message: 'Something went wrong' }]);
		expect(
			(await call('GET', `/api/contracts/${foreign}`, { key: sandbox.keys.otherBorrower })).status,
		).toBe(200);
	});
});

describe('contract life cycle', () => {
	const { requested, approved, principalGiven, closed } = SEED_IDS.contracts;

	it('cancels only Requested/pending/Approved contracts', async () => {
		const cancel = await call('DELETE', `/api/contracts/${requested}`);
		expect([cancel.status, cancel.text]).toEqual([200, '']);
		expect(sandbox.state.contracts.get(requested)?.contract.status).toBe('Cancelled');
		expect((await call('DELETE', `/api/contracts/${approved}`)).status).toBe(200);
		const refused = await call('DELETE', `/api/contracts/${closed}`);
		expectSpecError(refused, 400, 'INVALID_STATE');
		expect(refused.json.details).toBe('Cannot cancel a contract request with status Closed');
	});

	it('extends a PrincipalGiven contract into a new one', async () => {
		const answer = await call('POST', `/api/contracts/${principalGiven}/extend`, {
			body: { new_duration: 30 },
		});
		expect(answer.status).toBe(200);
		expect(answer.json).toMatchObject({
			status: 'PrincipalGiven',
			extends_contract: principalGiven,
			duration_days: 210,
		});
		const old = await call('GET', `/api/contracts/${principalGiven}`);
		expect(old.json).toMatchObject({ status: 'Extended', extended_by_contract: answer.json.id });
	});

	it('refuses extensions that break the rules', async () => {
		sandbox.configure({ dialect: 'live' });
		const extend = (id: string, days: unknown) =>
			call('POST', `/api/contracts/${id}/extend`, { body: { new_duration: days } });
		expect((await extend(requested, 30)).json).toEqual({
			message: 'The contract cannnot be extended',
		});
		expect((await extend(principalGiven, 0)).json).toEqual({
			message: 'Loan extension duration cannot be zero',
		});
		const tooLong = await extend(principalGiven, 181);
		expect(tooLong.status).toBe(400);
		expect(tooLong.json.message).toContain('Maximum extension is 180 days');
		sandbox.admin.setContractStatus(SEED_IDS.contracts.marginCall, 'PrincipalGiven');
		sandbox.state.contracts.get(SEED_IDS.contracts.marginCall)!.contract.can_extend = false;
		expect((await extend(SEED_IDS.contracts.marginCall, 10)).json).toEqual({
			message: 'The contract cannnot be extended',
		});
	});

	it('marks installments paid and reaches RepaymentProvided', async () => {
		const contract = sandbox.state.contracts.get(principalGiven)!.contract;
		const pending = contract.installments.filter((installment) => installment.status === 'pending');
		expect(pending.length).toBeGreaterThan(1);
		for (const installment of pending) {
			const answer = await call('PUT', `/api/contracts/${principalGiven}/installment-paid`, {
				body: { installment_id: installment.id, payment_id: `0x${installment.id.slice(0, 8)}` },
			});
			expect([answer.status, answer.text]).toEqual([200, '']);
		}
		expect(contract.status).toBe('RepaymentProvided');
		const refused = await call('PUT', `/api/contracts/${closed}/installment-paid`, {
			body: { installment_id: pending[0].id, payment_id: 'x' },
		});
		expect(refused.json.details).toBe(
			'Cannot mark an installment as paid for a contract with status Closed',
		);
	});
});

describe('offers', () => {
	it('lists Direct offers by default and applies the filters', async () => {
		const ids = async (query: string): Promise<string[]> =>
			(await call('GET', `/api/offers${query}`)).json.map((offer: { id: string }) => offer.id);
		const { offers } = SEED_IDS;
		expect(await ids('')).toHaveLength(6);
		expect(await ids('?loan_type=All')).toHaveLength(7);
		expect(await ids('?loan_type=Indirect')).toEqual([offers.usdtPolygonIndirect]);
		expect(await ids('?asset_type=fiat')).toEqual([offers.eurBankKyc]);
		expect(await ids('?kyc=with_kyc')).toEqual([offers.eurBankKyc]);
		expect(await ids('?loan_assets=UsdcPol,UsdcSol')).toEqual([
			offers.usdcPolygon,
			offers.usdcSolanaShort,
		]);
		expect(await ids('?min_loan_amount=20000')).toEqual([
			offers.usdtEthereumMonthly,
			offers.eurBankKyc,
			offers.autoAccept,
		]);
		expect(await ids('?max_interest_rate=0.1')).toEqual([
			offers.usdtEthereumMonthly,
			offers.eurBankKyc,
		]);
		expect(await ids('?duration_min=400')).toEqual([offers.eurBankKyc]);
	});

	it('gets one offer, or 404 (spec) / 400 (live)', async () => {
		const offer = await call('GET', `/api/offers/${OFFER}`);
		expect(offer.json).toMatchObject({
			id: OFFER,
			loan_amount_min: 100,
			loan_amount_max: 10000,
			status: 'Available',
		});
		expectSpecError(
			await call('GET', '/api/offers/11111111-1111-4111-8111-111111111111'),
			404,
			'OFFER_NOT_FOUND',
		);
		sandbox.configure({ dialect: 'live' });
		const live = await call('GET', '/api/offers/11111111-1111-4111-8111-111111111111');
		expect([live.status, live.json]).toEqual([400, { message: 'Loan offer not found' }]);
	});
});

describe('keys', () => {
	it('lists, creates and deletes keys', async () => {
		const listed = await call('GET', '/api/keys');
		expect(listed.json).toEqual([
			{
				id: expect.any(Number),
				description: expect.any(String),
				created_at: expect.stringMatching(ISO_UTC),
			},
		]);
		const created = await call('POST', '/api/keys', { body: { description: 'n8n' } });
		expect(created.json.api_key).toMatch(BORROWER_KEY);
		expect((await call('GET', '/api/contracts', { key: created.json.api_key })).json.total).toBe(5);
		const keys = (await call('GET', '/api/keys')).json;
		const id = keys.find((key: { description: string }) => key.description === 'n8n').id;
		const removed = await call('DELETE', `/api/keys/${id}`);
		expect([removed.status, removed.text]).toEqual([200, '']);
		expect((await call('GET', '/api/contracts', { key: created.json.api_key })).status).toBe(401);
	});
});

describe('notifications', () => {
	it('lists unread notifications newest first and marks them read', async () => {
		const unread = await call('GET', '/api/notifications');
		expect(unread.json).toMatchObject({ page: 1, limit: 20, total: 4, total_pages: 1 });
		const timestamps = unread.json.data.map(
			(message: { data: { timestamp: string } }) => message.data.timestamp,
		);
		expect([...timestamps].sort().reverse()).toEqual(timestamps);
		expect((await call('GET', '/api/notifications?unread_only=false')).json.total).toBe(5);
		const one = unread.json.data[0].data.id;
		expect((await call('PUT', `/api/notifications/${one}`)).text).toBe('null');
		expect((await call('GET', '/api/notifications')).json.total).toBe(3);
		expect((await call('PUT', '/api/notifications')).text).toBe('null');
		expect((await call('GET', '/api/notifications')).json.total).toBe(0);
	});

	it('appends a ContractUpdate on every status change', async () => {
		await call('PUT', '/api/notifications');
		const before = sandbox.state.contracts.get(SEED_IDS.contracts.approved)?.contract.updated_at;
		sandbox.admin.setLiquidationStatus(SEED_IDS.contracts.marginCall, 'SecondMarginCall');
		await call('DELETE', `/api/contracts/${SEED_IDS.contracts.approved}`);
		const feed = (await call('GET', '/api/notifications')).json.data;
		expect(
			feed.map((message: { type: string; data: { contract_id: string } }) => [
				message.type,
				message.data.contract_id,
			]),
		).toEqual([
			['ContractUpdate', SEED_IDS.contracts.approved],
			['ContractUpdate', SEED_IDS.contracts.marginCall],
		]);
		expect(sandbox.state.contracts.get(SEED_IDS.contracts.approved)?.contract.updated_at).not.toBe(
			before,
		);
	});
});

/** hub 0.8.2 BorrowerNotificationSettingsResponse, in its declaration order. */
const SETTING_FIELDS = [
	'on_login_email',
	'on_login_telegram',
	'daily_offer_digest_email',
	'new_loan_offer_telegram',
	'contract_status_changed_email',
	'contract_status_changed_telegram',
	'new_chat_message_email',
	'new_chat_message_telegram',
];
const allSettings = (value: boolean) =>
	Object.fromEntries(SETTING_FIELDS.map((field) => [field, value]));

describe('notification settings (both dialects)', () => {
	it.each(['spec', 'live'] as const)(
		'%s: all true without a stored row; a PUT stores and answers the eight fields',
		async (dialect) => {
			sandbox.configure({ dialect });
			const fresh = await call('GET', '/api/notification-settings');
			expect([fresh.status, fresh.json]).toEqual([200, allSettings(true)]);
			expect(Object.keys(fresh.json)).toEqual(SETTING_FIELDS);
			expect(sandbox.state.notificationSettings.size).toBe(0);

			const wanted = {
				...allSettings(true),
				new_chat_message_email: false,
				on_login_telegram: false,
			};
			const put = await call('PUT', '/api/notification-settings', {
				body: { ...wanted, unknown_switch: 'ignored' },
			});
			expect([put.status, put.json]).toEqual([200, wanted]);
			expect(Object.keys(put.json)).toEqual(SETTING_FIELDS);
			expect((await call('GET', '/api/notification-settings')).json).toEqual(wanted);
			// Per borrower: the other one still has the defaults.
			expect(
				(await call('GET', '/api/notification-settings', { key: sandbox.keys.otherBorrower })).json,
			).toEqual(allSettings(true));
		},
	);

	it("live: a missing field is serde's 422 and stores nothing", async () => {
		sandbox.configure({ dialect: 'live' });
		const answer = await call('PUT', '/api/notification-settings', {
			raw: '{"on_login_email":true}',
			headers: { 'content-type': 'application/json' },
		});
		expect(answer.status).toBe(422);
		expect(answer.json).toEqual({
			message:
				'Failed to deserialize the JSON body into the target type: missing field `on_login_telegram` at line 1 column 23',
		});
		const mistyped = await call('PUT', '/api/notification-settings', {
			body: { ...allSettings(true), on_login_email: 'no' },
		});
		expect(mistyped.status).toBe(422);
		expect(mistyped.json.message).toMatch(
			/^Failed to deserialize the JSON body into the target type: on_login_email: invalid type: string "no", expected a boolean at line 1 column \d+$/,
		);
		expect(sandbox.state.notificationSettings.size).toBe(0);
	});

	it('spec: a missing or mistyped field is a 400 in the spec envelope', async () => {
		const missing = await call('PUT', '/api/notification-settings', {
			body: { on_login_email: true },
		});
		expectSpecError(missing, 400, 'MISSING_FIELD');
		expect(missing.json.details).toContain('on_login_telegram');
		expectSpecError(
			await call('PUT', '/api/notification-settings', {
				body: { ...allSettings(false), new_chat_message_telegram: 1 },
			}),
			400,
			'INVALID_FIELD',
		);
		expect(sandbox.state.notificationSettings.size).toBe(0);
	});

	it('needs a borrower key', async () => {
		expect(
			(await call('GET', '/api/notification-settings', { key: sandbox.keys.master })).status,
		).toBe(401);
		expect(
			(await call('PUT', '/api/notification-settings', { key: null, body: allSettings(true) }))
				.status,
		).toBe(401);
	});
});

describe('disputes (routes/borrower/dispute.rs)', () => {
	const { approved, otherBorrowers } = SEED_IDS.contracts;
	const UNKNOWN = '99999999-0000-4000-8000-000000000000';
	const open = (contractId: string, options: CallOptions = {}) =>
		call('POST', '/api/disputes', {
			...options,
			body: { contract_id: contractId, reason: 'Payment issue', comment: 'Not paid out' },
		});
	const list = (contractId: string, options: CallOptions = {}) =>
		call('GET', `/api/disputes?contract_id=${contractId}`, options);

	it('live: open, write, list and resolve; the contract goes into dispute and back', async () => {
		sandbox.configure({ dialect: 'live' });
		const contract = sandbox.state.contracts.get(approved)!.contract;
		const opened = await open(approved);
		expect(opened.status).toBe(200);
		expect(opened.json).toEqual({
			id: expect.stringMatching(UUID),
			contract_id: approved,
			initiator_type: 'Borrower',
			initiator_id: SEED_IDS.users.borrower,
			status: 'DisputeStartedBorrower',
			reason: 'Payment issue. Not paid out',
			created_at: expect.stringMatching(ISO_UTC),
			updated_at: expect.stringMatching(ISO_UTC),
			resolved_at: null,
			resolution_notes: null,
		});
		expect(contract.status).toBe('DisputeBorrowerStarted');
		const id = opened.json.id as string;

		const written = await call('PUT', `/api/disputes/${id}`, { body: { message: 'Any news?' } });
		expect([written.status, written.text]).toEqual([200, '']);
		const listed = await list(approved);
		expect(listed.json).toEqual([
			{
				...opened.json,
				messages: [
					{
						id: expect.stringMatching(UUID),
						dispute_id: id,
						sender_type: 'Borrower',
						sender_id: SEED_IDS.users.borrower,
						message: 'Any news?',
						created_at: expect.stringMatching(ISO_UTC),
					},
				],
			},
		]);

		const resolved = await call('PUT', `/api/disputes/${id}/resolve`);
		expect([resolved.status, resolved.text]).toEqual([200, '']);
		expect(contract.status).toBe('Approved');
		// update_dispute writes the status only.
		expect((await list(approved)).json[0]).toMatchObject({
			status: 'Closed',
			resolved_at: null,
			updated_at: opened.json.updated_at,
		});
		const again = await call('PUT', `/api/disputes/${id}/resolve`);
		expect([again.status, again.json]).toEqual([
			400,
			{ message: 'Dispute was not started by you' },
		]);
		// A closed dispute still takes messages; a new dispute can be opened.
		expect((await call('PUT', `/api/disputes/${id}`, { body: { message: 'Thanks' } })).status).toBe(
			200,
		);
		expect((await open(approved)).status).toBe(200);
		expect(
			(await list(approved)).json.map((dispute: { status: string }) => dispute.status),
		).toEqual(['DisputeStartedBorrower', 'Closed']);
	});

	it("live: the backend's habits: no ownership check on reads and messages, 500 for what it cannot load", async () => {
		sandbox.configure({ dialect: 'live' });
		const noQuery = await call('GET', '/api/disputes');
		expect([noQuery.status, noQuery.headers.get('content-type'), noQuery.text]).toEqual([
			400,
			'text/plain; charset=utf-8',
			'Failed to deserialize query string: missing field `contract_id`',
		]);
		expect((await list(UNKNOWN)).json).toEqual([]);
		expect(await open(otherBorrowers)).toMatchObject({
			status: 500,
			json: { message: 'Something went wrong' },
		});

		const theirs = await open(otherBorrowers, { key: sandbox.keys.otherBorrower });
		const theirId = theirs.json.id as string;
		expect((await list(otherBorrowers)).json.map((dispute: { id: string }) => dispute.id)).toEqual([
			theirId,
		]);
		expect(
			(await call('PUT', `/api/disputes/${theirId}`, { body: { message: 'hi' } })).status,
		).toBe(200);
		expect(await call('PUT', `/api/disputes/${theirId}/resolve`)).toMatchObject({
			status: 500,
			json: { message: 'Something went wrong' },
		});
		expect(
			await call('PUT', `/api/disputes/${UNKNOWN}`, { body: { message: 'hi' } }),
		).toMatchObject({ status: 500, json: { message: 'Something went wrong' } });
		const badPath = await call('PUT', '/api/disputes/first/resolve');
		expect([badPath.status, badPath.headers.get('content-type')]).toEqual([
			400,
			'text/plain; charset=utf-8',
		]);
		expect(badPath.text).toMatch(/^Invalid URL: UUID parsing failed: /);

		const raw = `{"contract_id":"${approved}","reason":"x"}`;
		const noComment = await call('POST', '/api/disputes', {
			raw,
			headers: { 'content-type': 'application/json' },
		});
		expect([noComment.status, noComment.json]).toEqual([
			422,
			{
				message: `Failed to deserialize the JSON body into the target type: missing field \`comment\` at line 1 column ${raw.length}`,
			},
		]);
		expect((await open(approved)).status).toBe(200);
		expect(await open(approved)).toMatchObject({
			status: 400,
			json: { message: 'Dispute already in progress' },
		});
	});

	it("live: resolve refuses the lender's dispute (400) and fails while the contract is out of dispute (500)", async () => {
		sandbox.configure({ dialect: 'live' });
		const lenders = sandbox.admin.startLenderDispute(approved);
		expect(lenders).toMatchObject({ initiator_type: 'Lender', status: 'DisputeStartedLender' });
		expect(sandbox.state.contracts.get(approved)!.contract.status).toBe('DisputeLenderStarted');
		expect((await call('PUT', `/api/disputes/${lenders.id}/resolve`)).json).toEqual({
			message: 'Dispute was not started by you',
		});

		const { requested } = SEED_IDS.contracts;
		const mine = (await open(requested)).json.id as string;
		sandbox.admin.setContractStatus(requested, 'Cancelled');
		expect(await call('PUT', `/api/disputes/${mine}/resolve`)).toMatchObject({
			status: 500,
			json: { message: 'Something went wrong' },
		});
		expect((await list(requested)).json[0].status).toBe('DisputeStartedBorrower');
	});

	it('spec: the same routes, strictly: only your own contracts and disputes', async () => {
		expectSpecError(await list(otherBorrowers), 404, 'CONTRACT_NOT_FOUND');
		expectSpecError(await call('GET', '/api/disputes'), 400, 'INVALID_QUERY');
		expectSpecError(
			await call('POST', '/api/disputes', { body: { contract_id: approved } }),
			400,
			'MISSING_FIELD',
		);
		const theirs = await open(otherBorrowers, { key: sandbox.keys.otherBorrower });
		expectSpecError(
			await call('PUT', `/api/disputes/${theirs.json.id}`, { body: { message: 'hi' } }),
			404,
			'DISPUTE_NOT_FOUND',
		);
		const mine = await open(approved);
		expectSpecError(await open(approved), 400, 'DISPUTE_IN_PROGRESS');
		expect((await call('PUT', `/api/disputes/${mine.json.id}/resolve`)).status).toBe(200);
		expectSpecError(
			await call('PUT', `/api/disputes/${mine.json.id}/resolve`),
			400,
			'DISPUTE_NOT_STARTED_BY_BORROWER',
		);
	});

	it('admin over HTTP: the lender opens a dispute', async () => {
		const response = await fetch(`${sandbox.url}/__admin/contracts/${approved}/lender-dispute`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ reason: 'Collateral below the agreed value' }),
		});
		expect(response.status).toBe(200);
		expect(await response.json()).toMatchObject({
			contract_id: approved,
			initiator_type: 'Lender',
			reason: 'Collateral below the agreed value',
			messages: [],
		});
	});
});

describe('fault echo-key-error', () => {
	it.each(['spec', 'live'] as const)(
		'%s: answers an error whose text carries the key raw and URL-encoded',
		async (dialect) => {
			sandbox.configure({
				dialect,
				faults: [
					{ kind: 'echo-key-error', path: '/api/users/me' },
					{ kind: 'echo-key-error', errorStatus: 503 },
				],
			});
			const first = await call('GET', '/api/users/me');
			expect(first.status).toBe(400);
			const text = `Request refused for key ${sandbox.keys.borrower} (key=${encodeURIComponent(sandbox.keys.borrower)})`;
			expect(first.json).toEqual(
				dialect === 'live'
					? { message: text }
					: { error: 'ECHO_KEY', code: 'ECHO_KEY', details: text },
			);
			expect((await call('GET', '/api/offers')).status).toBe(503);
			expect((await call('GET', '/api/offers')).status).toBe(200);
		},
	);

	it('refuses errorStatus outside 400–599 or on another kind', () => {
		expect(() =>
			sandbox.configure({ faults: [{ kind: 'echo-key-error', errorStatus: 302 }] }),
		).toThrow('errorStatus');
		expect(() => sandbox.configure({ faults: [{ kind: '500', errorStatus: 500 }] })).toThrow(
			'errorStatus',
		);
	});
});

describe('admin over HTTP', () => {
	const admin = (method: string, path: string, body?: unknown) =>
		call(method, `/__admin${path}`, { key: null, body });

	it('changes contracts, offers and notifications', async () => {
		const status = await admin('POST', `/contracts/${SEED_IDS.contracts.approved}/status`, {
			status: 'CollateralConfirmed',
		});
		expect(status.json).toMatchObject({
			status: 'CollateralConfirmed',
			deposited_sats: expect.any(Number),
		});
		const offer = await admin('POST', '/offers', {
			name: 'Flash offer',
			loan_amount_min: 10,
			loan_amount_max: 20,
		});
		expect(offer.json).toMatchObject({ name: 'Flash offer', status: 'Available' });
		expect(
			(await createContract({ ...validContract, loan_id: offer.json.id })).json.details,
		).toContain('$10-$20');
		await admin('POST', `/offers/${offer.json.id}/withdraw`);
		expectSpecError(
			await createContract({ ...validContract, loan_id: offer.json.id, loan_amount: 15 }),
			404,
			'OFFER_NOT_FOUND',
		);
		const posted = await admin('POST', '/notifications', {
			api_key: sandbox.keys.borrower,
			type: 'ChatMessage',
			data: { counterparty_name: 'Bob' },
		});
		expect(posted.json).toMatchObject({
			type: 'ChatMessage',
			data: { counterparty_name: 'Bob', read: false },
		});
		const bulk = await admin('POST', '/contracts', {
			api_key: sandbox.keys.borrower,
			count: 20,
			status: 'Approved',
		});
		expect(bulk.json.created).toBe(20);
	});

	it("onboards a partner's borrowers in bulk, stored as create-api-account stores them (benchmark setup)", async () => {
		const made = await admin('POST', '/borrowers', {
			master_key: sandbox.keys.master,
			count: 3,
			contracts: [{ status: 'PrincipalGiven' }],
		});
		expect(made.status).toBe(200);
		expect(made.json).toHaveLength(3);
		expect(made.json.map((borrower: { name: string }) => borrower.name)).toEqual([
			'Borrower 1',
			'Borrower 2',
			'Borrower 3',
		]);
		const [first] = made.json;
		expect(first.id).toMatch(UUID);
		expect(first.api_key).toMatch(BORROWER_KEY);
		const me = await call('GET', '/api/users/me', { key: first.api_key });
		expect(me.json.user).toMatchObject({
			id: first.id,
			email: 'borrower-1@partner.example',
			timezone: 'Europe/Vienna',
		});
		const listed = await call('GET', '/api/contracts', { key: first.api_key });
		expect(listed.json.data.map((contract: { id: string }) => contract.id)).toEqual(
			first.contracts,
		);
		expect(listed.json.data[0].status).toBe('PrincipalGiven');
		expect(sandbox.state.accounts.map((account) => account.api_key)).toEqual(
			made.json.map((borrower: { api_key: string }) => borrower.api_key),
		);
		// Only a partner's master key makes accounts, in bulk as through the API.
		expect(
			(await admin('POST', '/borrowers', { master_key: sandbox.keys.borrower, count: 1 })).status,
		).toBe(400);
		expect(
			(await admin('POST', '/borrowers', { master_key: sandbox.keys.master, count: 0 })).status,
		).toBe(400);
	});

	it('reports redacted requests, stats and config, and resets', async () => {
		await call('GET', '/api/offers');
		const requests = (await admin('GET', '/requests')).json;
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({
			method: 'GET',
			path: '/api/offers',
			headers: { 'x-api-key': '<redacted>' },
		});
		expect(JSON.stringify(requests)).not.toContain(sandbox.keys.borrower);
		expect(sandbox.requests[0].headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect((await admin('GET', '/stats')).json).toMatchObject({
			requests: 1,
			byStatus: { '200': 1 },
		});
		await call('GET', `/api/contracts/${SEED_IDS.contracts.requested}`);
		await call('GET', '/api/contracts?page=2&limit=5');
		await call('DELETE', '/api/offers');
		expect((await admin('GET', '/stats')).json.byRoute).toEqual({
			'GET /api/offers': 1,
			'GET /api/contracts/:id': 1,
			'GET /api/contracts': 1,
			'DELETE /api/offers': 1,
		});
		expect((await admin('PUT', '/config', { dialect: 'live' })).json.dialect).toBe('live');
		expect((await admin('PUT', '/config', { dialect: 'xml' })).status).toBe(400);
		expect((await admin('GET', '/keys')).json).toEqual(sandbox.keys);
		await admin('POST', '/reset');
		expect(sandbox.config.dialect).toBe('spec');
		expect(sandbox.requests).toHaveLength(0);
		expect(sandbox.stats().byRoute).toEqual({});
	});
});

describe('concurrency', () => {
	it('handles hundreds of simultaneous requests', async () => {
		const answers = await Promise.all(
			Array.from({ length: 300 }, (_, index) =>
				index % 3 === 0
					? createContract({ ...validContract, loan_amount: 100 + index })
					: call('GET', '/api/contracts?limit=5'),
			),
		);
		expect(answers.every((answer) => answer.status === 200)).toBe(true);
		expect(sandbox.stats()).toMatchObject({
			requests: 300,
			contractsCreated: 100,
			duplicateContracts: 0,
		});
		expect((await call('GET', '/api/contracts?limit=1')).json.total).toBe(105);
	});
});

describe('live dialect: POST /api/contracts deserialises like ContractRequestSchema', () => {
	const rejection = 'Failed to deserialize the JSON body into the target type: ';
	const columnAtEnd = (body: unknown): number => JSON.stringify(body).length;

	beforeEach(() => sandbox.configure({ dialect: 'live' }));

	it('ignores loan_id and unknown fields; a body with only loan_id misses `id` (422)', async () => {
		const onlyLoanId = { loan_id: OFFER };
		const answer = await createContract(onlyLoanId);
		expect(answer.status).toBe(422);
		expect(answer.headers.get('content-type')).toContain('application/json');
		expect(answer.json).toEqual({
			message: `${rejection}missing field \`id\` at line 1 column ${columnAtEnd(onlyLoanId)}`,
		});
		expect((await createContract({})).json).toEqual({
			message: `${rejection}missing field \`id\` at line 1 column 2`,
		});
		const noLoanType = { ...liveContract, loan_type: undefined };
		expect((await createContract(noLoanType)).json.message).toBe(
			`${rejection}missing field \`loan_type\` at line 1 column ${columnAtEnd(noLoanType)}`,
		);
		const extra = await createContract({ ...bothDialects, some_future_field: { a: [1, 2] } });
		expect(extra.status).toBe(200);
		expect(extra.json).not.toHaveProperty('collateral_address');
		expect(extra.json).not.toHaveProperty('repayment_address');
		expect(sandbox.stats().contractsCreated).toBe(1);
		const simple = await createContract({
			...liveContract,
			client_contract_id: 'DDDDDDDD00004000800000000000000A',
		});
		expect(simple.json.client_contract_id).toBe('dddddddd-0000-4000-8000-00000000000a');
	});

	it.each([
		[
			'loan_amount',
			'500',
			'loan_amount: invalid type: string "500", expected a Decimal type representing a fixed-point number',
		],
		['duration_days', 1.5, 'duration_days: invalid type: floating point `1.5`, expected i32'],
		[
			'duration_days',
			3000000000,
			'duration_days: invalid value: integer `3000000000`, expected i32',
		],
		['id', 5, 'id: invalid type: integer `5`, expected a string'],
		[
			'loan_type',
			'Loan',
			'loan_type: unknown variant `Loan`, expected one of `PayWithMoon`, `MoonCardInstant`, `StableCoin`, `Fiat`, `Bringin`',
		],
		['borrower_pk', '02ab', 'borrower_pk: pubkey string should be 66 or 130 digits long, got: 4'],
		['borrower_btc_address', 'tb1qrefund', 'borrower_btc_address: bech32 segwit decoding error'],
		[
			'borrower_derivation_path',
			'84/0',
			'borrower_derivation_path: invalid derivation path format',
		],
		['client_contract_id', 'order-1', 'client_contract_id: UUID parsing failed: invalid character'],
		[
			'borrower_btc_address',
			null,
			'borrower_btc_address: invalid type: null, expected a Bitcoin address',
		],
	])('rejects %s = %j with 422', async (field, value, text) => {
		const answer = await createContract({ ...liveContract, [field]: value });
		expect(answer.status).toBe(422);
		expect(answer.json.message).toContain(`${rejection}${text}`);
		expect(answer.json.message).toMatch(/ at line 1 column \d+$/);
		expect(sandbox.stats().contractsCreated).toBe(0);
	});

	it('reports the first bad value in document order, with its serde_json position', async () => {
		const raw = `{"loan_amount":"x","id":7}`;
		const answer = await call('POST', '/api/contracts', {
			raw,
			headers: { 'content-type': 'application/json' },
		});
		expect(answer.json.message).toBe(
			`${rejection}loan_amount: invalid type: string "x", expected a Decimal type representing a fixed-point number at line 1 column 18`,
		);
		const enumAsNumber = await createContract({ ...liveContract, loan_type: 5 });
		expect(enumAsNumber.status).toBe(400);
		expect(enumAsNumber.json.message).toMatch(
			/^Failed to parse the request body as JSON: loan_type: expected value at line 1 column \d+$/,
		);
	});
});

describe('live dialect: POST /api/contracts handler checks and record', () => {
	const { offers } = SEED_IDS;

	beforeEach(() => sandbox.configure({ dialect: 'live' }));

	it('checks in the handler order with the real messages and creates nothing', async () => {
		const cases: [Record<string, unknown>, number, string][] = [
			[{ id: '11111111-1111-4111-8111-111111111111' }, 500, 'Something went wrong'],
			[
				{ duration_days: 400, loan_amount: 5 },
				400,
				'Invalid loan duration: 400 days not in range 7-365',
			],
			[{ loan_amount: 5 }, 400, 'Invalid loan amount: $5 not in range $100-$10000'],
			[
				{ borrower_loan_address: undefined },
				400,
				'Failed to provide borrower loan address for stablecoin loan',
			],
			[{ loan_type: 'Fiat' }, 400, 'Cannot create fiat contract with asset: UsdcPol'],
			[
				{ id: offers.eurBankKyc, loan_type: 'Fiat', loan_amount: 1000, duration_days: 90 },
				400,
				'Failed to provide bank details for fiat loan',
			],
			[
				{ id: offers.usdtEthereumMonthly, loan_type: 'PayWithMoon' },
				400,
				'Cannot create loan request for Moon card with asset UsdtEth. Moon only supports USDC on Polygon',
			],
			[
				{ loan_type: 'MoonCardInstant' },
				400,
				'MoonCardInstant loan type requires MoonCardInstant loan payout, but got Direct',
			],
			[
				{ loan_type: 'PayWithMoon', moon_card_id: 'aaaaaaaa-0000-4000-8000-000000000001' },
				404,
				'Card not found',
			],
			[{ loan_type: 'Bringin' }, 400, 'Cannot use Bringin without a Bringin API key'],
			// Last: it takes the offer's whole capacity (10000 → 0, Unavailable).
			[{ loan_amount: 10000.004 }, 200, ''],
		];
		for (const [patch, status, message] of cases) {
			const answer = await createContract({ ...liveContract, ...patch });
			expect([JSON.stringify(patch), answer.status]).toEqual([JSON.stringify(patch), status]);
			if (status !== 200) expect(answer.json).toEqual({ message });
		}
		expect(sandbox.stats().contractsCreated).toBe(1);
		expect(sandbox.state.offers.get(OFFER)).toMatchObject({
			loan_amount_max: 0,
			status: 'Unavailable',
		});
	});

	it('keeps a fiat contract whose bank details lack IBAN and SWIFT, although it answers 400', async () => {
		const details = {
			bank_name: 'B',
			bank_address: 'A',
			bank_country: 'DE',
			purpose_of_remittance: 'P',
			full_name: 'F',
			address: 'A',
			city: 'C',
			post_code: '1',
			country: 'DE',
		};
		const fiat = {
			...liveContract,
			id: offers.eurBankKyc,
			loan_type: 'Fiat',
			loan_amount: 1000,
			duration_days: 90,
		};
		const wrapper = {
			details,
			encrypted_encryption_key_borrower: 'kb',
			encrypted_encryption_key_lender: 'kl',
		};
		const refused = await createContract({ ...fiat, fiat_loan_details: wrapper });
		expect([refused.status, refused.json]).toEqual([
			400,
			{ message: 'Failed to provide bank details for fiat loan' },
		]);
		expect(sandbox.stats().contractsCreated).toBe(1);
		const withIban = {
			...wrapper,
			details: { ...details, iban_transfer_details: { iban: 'DE89370400440532013000' } },
		};
		const accepted = await createContract({ ...fiat, fiat_loan_details: withIban });
		expect(accepted.json).toMatchObject({
			status: 'Requested',
			loan_type: 'Fiat',
			borrower_loan_address: null,
		});
		expect(accepted.json.fiat_loan_details_borrower).toEqual({
			details: withIban.details,
			encrypted_encryption_key: 'kb',
		});
	});

	it('returns the Contract record of the backend', async () => {
		const clientId = 'dddddddd-0000-4000-8000-000000000001';
		const answer = await createContract({ ...bothDialects, client_contract_id: clientId });
		expect(answer.status).toBe(200);
		const contract = answer.json;
		expect(contract).toMatchObject({
			status: 'Requested',
			client_contract_id: clientId,
			loan_type: 'StableCoin',
			borrower_btc_address: LIVE_BTC_ADDRESS,
			borrower_loan_address: LOAN_ADDRESS,
			borrower_pk: LIVE_PK,
			loan_repayment_address: sandbox.state.offers.get(OFFER)?.loan_repayment_address,
			collateral_asset: 'BitcoinBtc',
			liquidation_status: 'Healthy',
			can_extend: true,
			contract_address: null,
			fiat_loan_details_borrower: null,
			fiat_loan_details_lender: null,
		});
		// interest 500 × 12 % × 30/365 = 4.93; collateral (500 + 4.93) / 0.5 at 100,000 USD/BTC; fee 1 % of 500.
		expect(contract.origination_fee_sats).toBe(5000);
		expect(contract.initial_collateral_sats).toBe(1_009_860 + 5000);
		expect(Object.keys(contract.installments[0]).sort()).toEqual([
			'due_date',
			'id',
			'interest',
			'paid_date',
			'payment_id',
			'principal',
			'status',
		]);
		expect(contract).not.toHaveProperty('collateral_address');
		const listed = (await call('GET', '/api/contracts')).json.data[0];
		expect(listed).toMatchObject({ id: contract.id, client_contract_id: clientId });
	});

	it('approves at once when the offer auto-accepts, needs no KYC and is not fiat', async () => {
		const approved = await createContract({ ...liveContract, id: offers.autoAccept });
		expect(approved.json.status).toBe('Approved');
		expect(approved.json.contract_address).toMatch(/^tb1p/);
		expect(
			approved.json.timeline.map((event: { event: { status: string } }) => event.event.status),
		).toEqual(['Requested', 'Approved']);
		const kycOffer = sandbox.admin.addOffer({
			kyc_link: 'https://kyc.example/x',
			auto_accept: true,
			loan_asset: 'UsdtPol',
		});
		expect(kycOffer).not.toHaveProperty('auto_accept');
		expect((await createContract({ ...liveContract, id: kycOffer.id })).json.status).toBe(
			'Requested',
		);
		expect((await createContract(liveContract)).json.status).toBe('Requested');
		sandbox.configure({ dialect: 'spec' });
		expect(
			(await createContract({ ...validContract, loan_id: offers.autoAccept })).json.status,
		).toBe('pending');
	});

	it('takes and serves withdrawn offers (loan_by_id ignores the status)', async () => {
		sandbox.admin.withdrawOffer(OFFER);
		expect((await createContract(liveContract)).status).toBe(200);
		expect((await call('GET', `/api/offers/${OFFER}`)).json.status).toBe('Unavailable');
		expect(
			(await call('GET', '/api/offers')).json.map((offer: { id: string }) => offer.id),
		).not.toContain(OFFER);
	});
});

describe('live dialect: idempotency, duplicates and faults', () => {
	it('never honours Idempotency-Key, even when switched on', async () => {
		sandbox.configure({ dialect: 'live', idempotency: true });
		const headers = { 'idempotency-key': 'same-1' };
		const first = await createContract(liveContract, { headers });
		const second = await createContract(liveContract, { headers });
		expect(second.json.id).not.toBe(first.json.id);
		expect(second.headers.get('idempotent-replayed')).toBeNull();
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 2, duplicateContracts: 1 });
	});

	it('a fault after the commit loses the answer; the retry with the same client_contract_id is a duplicate', async () => {
		sandbox.configure({
			dialect: 'live',
			faults: [
				{ kind: '500', method: 'POST', path: '/api/contracts', after: true },
				{ kind: 'reset', method: 'POST', path: '/api/contracts', after: true },
				{ kind: '503', method: 'POST', path: '/api/contracts', after: true },
			],
		});
		const body = { ...liveContract, client_contract_id: 'eeeeeeee-0000-4000-8000-000000000001' };
		const lost = await createContract(body);
		expect([lost.status, lost.json]).toEqual([500, { message: 'Something went wrong' }]);
		await expect(createContract(body)).rejects.toThrow();
		expect((await createContract(body)).status).toBe(503);
		expect((await createContract(body)).status).toBe(200);
		expect(sandbox.stats()).toMatchObject({
			contractsCreated: 4,
			duplicateContracts: 3,
			faultsInjected: 3,
		});
		const mine = (await call('GET', '/api/contracts?limit=100')).json.data.filter(
			(contract: { client_contract_id: string | null }) =>
				contract.client_contract_id === body.client_contract_id,
		);
		expect(mine).toHaveLength(4);
	});
});

describe('live dialect: other endpoints', () => {
	beforeEach(() => sandbox.configure({ dialect: 'live' }));

	/** A PUT of `raw` (JSON without `field`) answered with serde's 422 for that field. */
	async function expectMissingField(path: string, raw: string, field: string): Promise<void> {
		const answer = await call('PUT', path, {
			raw,
			headers: { 'content-type': 'application/json' },
		});
		expect([answer.status, answer.json]).toEqual([
			422,
			{
				message: `Failed to deserialize the JSON body into the target type: missing field \`${field}\` at line 1 column ${raw.length}`,
			},
		]);
	}

	it('installment-paid with an unknown installment id answers 200 and changes nothing but the transactions', async () => {
		const { principalGiven } = SEED_IDS.contracts;
		const contract = sandbox.state.contracts.get(principalGiven)!.contract;
		const before = contract.installments.map((installment) => installment.status);
		const answer = await call('PUT', `/api/contracts/${principalGiven}/installment-paid`, {
			body: {
				installment_id: '99999999-0000-4000-8000-000000000000',
				payment_id: '0xabc',
				amount: null,
			},
		});
		expect([answer.status, answer.text]).toEqual([200, '']);
		expect(contract.installments.map((installment) => installment.status)).toEqual(before);
		expect(contract.status).toBe('PrincipalGiven');
		expect(contract.transactions.at(-1)).toMatchObject({
			txid: '0xabc',
			transaction_type: 'InstallmentPaid',
		});
		const notUuid = await call('PUT', `/api/contracts/${principalGiven}/installment-paid`, {
			body: { installment_id: 'first', payment_id: 'x' },
		});
		expect(notUuid.status).toBe(422);
		expect(notUuid.json.message).toContain('installment_id: UUID parsing failed');
		// Spec dialect: still a 400 for an installment that is not on the contract.
		sandbox.configure({ dialect: 'spec' });
		const spec = await call('PUT', `/api/contracts/${principalGiven}/installment-paid`, {
			body: { installment_id: '99999999-0000-4000-8000-000000000000', payment_id: '0xabc' },
		});
		expectSpecError(spec, 400, 'INSTALLMENT_NOT_FOUND');
	});

	it("installment-paid needs `amount` present, a number or null, as Lendasat's clients send it [INF]", async () => {
		const { principalGiven } = SEED_IDS.contracts;
		const [installment] = sandbox.state.contracts
			.get(principalGiven)!
			.contract.installments.filter((candidate) => candidate.status === 'pending');
		const path = `/api/contracts/${principalGiven}/installment-paid`;
		const raw = `{"installment_id":"${installment.id}","payment_id":"0xabc"}`;
		await expectMissingField(path, raw, 'amount');
		expect(installment.status).toBe('pending');
		const text = await call('PUT', path, {
			body: { installment_id: installment.id, payment_id: '0xabc', amount: '250' },
		});
		expect(text.status).toBe(422);
		expect(text.json.message).toContain(
			'amount: invalid type: string "250", expected a Decimal type representing a fixed-point number',
		);
		const given = await call('PUT', path, {
			body: { installment_id: installment.id, payment_id: '0xabc', amount: 250.5 },
		});
		expect([given.status, given.text]).toEqual([200, '']);
		expect(installment.status).toBe('paid');
		// The specification's dialect takes the body with or without it.
		sandbox.configure({ dialect: 'spec' });
		const [next] = sandbox.state.contracts
			.get(principalGiven)!
			.contract.installments.filter((candidate) => candidate.status === 'pending');
		expect(
			(await call('PUT', path, { body: { installment_id: next.id, payment_id: '0xdef' } })).status,
		).toBe(200);
	});

	it("installment-paid takes an empty payment_id on any loan but needs it present, as the backend's String does", async () => {
		const { principalGiven } = SEED_IDS.contracts;
		const contract = sandbox.state.contracts.get(principalGiven)!.contract;
		expect(contract.loan_asset).toBe('UsdtEth');
		const [installment] = contract.installments.filter(
			(candidate) => candidate.status === 'pending',
		);
		const path = `/api/contracts/${principalGiven}/installment-paid`;
		const raw = `{"installment_id":"${installment.id}","amount":null}`;
		await expectMissingField(path, raw, 'payment_id');
		expect(installment.status).toBe('pending');
		const empty = await call('PUT', path, {
			body: { installment_id: installment.id, payment_id: '', amount: null },
		});
		expect([empty.status, empty.text]).toEqual([200, '']);
		expect(installment).toMatchObject({ status: 'paid', payment_id: '' });
		expect(contract.transactions.at(-1)).toMatchObject({
			txid: '',
			transaction_type: 'InstallmentPaid',
		});
	});

	it('extend of an unknown contract is 400 "Missing contract: …", of a foreign one 500', async () => {
		const unknown = await call(
			'POST',
			'/api/contracts/11111111-1111-4111-8111-111111111111/extend',
			{ body: { new_duration: 30 } },
		);
		expect([unknown.status, unknown.json]).toEqual([
			400,
			{
				message:
					'Missing contract: no rows returned by a query that expected to return at least one row',
			},
		]);
		const foreign = await call(
			'POST',
			`/api/contracts/${SEED_IDS.contracts.otherBorrowers}/extend`,
			{ body: { new_duration: 30 } },
		);
		expect([foreign.status, foreign.json]).toEqual([500, { message: 'Something went wrong' }]);
		const noBody = await call(
			'POST',
			`/api/contracts/${SEED_IDS.contracts.principalGiven}/extend`,
			{ body: {} },
		);
		expect(noBody.json).toEqual({
			message:
				'Failed to deserialize the JSON body into the target type: missing field `new_duration` at line 1 column 2',
		});
		sandbox.configure({ dialect: 'spec' });
		expectSpecError(
			await call('POST', '/api/contracts/11111111-1111-4111-8111-111111111111/extend', {
				body: { new_duration: 30 },
			}),
			404,
			'CONTRACT_NOT_FOUND',
		);
	});

	it("create-api-account only checks the e-mail; a missing name is axum's 422", async () => {
		const create = (body: unknown) =>
			call('POST', '/api/create-api-account', { key: sandbox.keys.master, body });
		const loose = await create({
			name: '',
			timezone: 'Mars/Olympus_Mons',
			email: 'Ada@Example.COM',
		});
		expect(loose.status).toBe(200);
		expect(loose.json).toMatchObject({
			name: '',
			email: 'ada@example.com',
			timezone: 'Mars/Olympus_Mons',
		});
		const bare = await create({ name: 'Bob' });
		expect(bare.json).toMatchObject({ name: 'Bob', email: null, timezone: null });
		expect((await call('GET', '/api/keys', { key: bare.json.api_key })).json[0].description).toBe(
			'account key',
		);
		const badEmail = await create({ name: 'Bob', email: 'bob@localhost' });
		expect([badEmail.status, badEmail.json]).toEqual([400, { message: 'Invalid email address' }]);
		const noName = { email: 'a@b.co' };
		const missing = await create(noName);
		expect([missing.status, missing.json]).toEqual([
			422,
			{
				message: `Failed to deserialize the JSON body into the target type: missing field \`name\` at line 1 column ${JSON.stringify(noName).length}`,
			},
		]);
	});

	it('caps API keys at 5 per user (500) and deletes unknown ids with 200', async () => {
		for (let index = 0; index < 4; index += 1)
			expect((await call('POST', '/api/keys', { body: { description: `k${index}` } })).status).toBe(
				200,
			);
		expect((await call('GET', '/api/keys')).json).toHaveLength(5);
		const sixth = await call('POST', '/api/keys', { body: { description: 'one too many' } });
		expect([sixth.status, sixth.json]).toEqual([500, { message: 'Something went wrong' }]);
		sandbox.configure({ dialect: 'spec' });
		expectSpecError(
			await call('POST', '/api/keys', { body: { description: 'one too many' } }),
			409,
			'KEY_LIMIT_REACHED',
		);
		expectSpecError(await call('DELETE', '/api/keys/999'), 404, 'KEY_NOT_FOUND');
		sandbox.configure({ dialect: 'live' });
		const unknown = await call('DELETE', '/api/keys/999');
		expect([unknown.status, unknown.text]).toEqual([200, '']);
		const notNumber = await call('DELETE', '/api/keys/abc');
		expect([notNumber.status, notNumber.headers.get('content-type'), notNumber.text]).toEqual([
			400,
			'text/plain; charset=utf-8',
			'Invalid URL: Cannot parse `abc` to a `i32`',
		]);
	});

	it('answers query-string rejections as axum plain text, range checks as JSON', async () => {
		const plain = async (path: string, text: string): Promise<void> => {
			const answer = await call('GET', path);
			expect([answer.status, answer.headers.get('content-type'), answer.text]).toEqual([
				400,
				'text/plain; charset=utf-8',
				`Failed to deserialize query string: ${text}`,
			]);
		};
		await plain('/api/contracts?page=abc', 'invalid digit found in string');
		await plain('/api/contracts?limit=-1', 'invalid digit found in string');
		await plain('/api/contracts?page=', 'cannot parse integer from empty string');
		await plain('/api/contracts?sort_order=up', 'unknown variant `up`, expected `asc` or `desc`');
		await plain(
			'/api/contracts?sort_by=colour',
			'unknown variant `colour`, expected one of `created_at`, `loan_amount`, `expiry_date`, `interest_rate`, `status`, `collateral_sats`, `updated_at`',
		);
		await plain('/api/contracts?status=Requested,Foo', 'Invalid contract status: Foo');
		await plain(
			'/api/offers?loan_type=Everything',
			'unknown variant `Everything`, expected one of `Direct`, `Indirect`, `MoonCardInstant`, `All`',
		);
		await plain(
			'/api/offers?collateral_asset_type=Ark',
			'unknown variant `Ark`, expected one of `Any`, `Bitcoin`, `Arkade`',
		);
		await plain('/api/offers?min_loan_amount=lots', 'invalid float literal');
		await plain(
			`/api/offers/${OFFER}?kyc=maybe`,
			'unknown variant `maybe`, expected one of `no_kyc`, `with_kyc`, `all`',
		);
		await plain(
			'/api/notifications?unread_only=maybe',
			'provided string was not `true` or `false`',
		);
		await plain('/api/notifications?page=x', 'invalid digit found in string');
		expect((await call('GET', '/api/contracts?status=principal_given,REQUESTED')).json.total).toBe(
			3,
		);
		const json = async (path: string, message: string): Promise<void> => {
			const answer = await call('GET', path);
			expect([answer.status, answer.headers.get('content-type'), answer.json]).toEqual([
				400,
				'application/json',
				{ message },
			]);
		};
		await json('/api/contracts?page=0', 'Page must be greater than 0');
		await json('/api/contracts?limit=101', 'Limit must be between 1 and 100');
		await json('/api/notifications?limit=0', 'Bad Request');
		await json('/api/notifications?page=0', 'Bad Request');
	});
});

describe('offers: collateral asset and the by-id filters', () => {
	const { offers } = SEED_IDS;
	const ids = async (query: string): Promise<string[]> =>
		(await call('GET', `/api/offers${query}`)).json.map((offer: { id: string }) => offer.id);

	it('filters by collateral_asset_type (default Bitcoin) in both dialects', async () => {
		expect(await ids('')).not.toContain(offers.arkade);
		expect(await ids('?collateral_asset_type=Arkade')).toEqual([offers.arkade]);
		expect(await ids('?collateral_asset_type=Any&loan_type=All')).toHaveLength(8);
		const arkade = await call('GET', `/api/offers/${offers.arkade}?collateral_asset_type=Arkade`);
		expect(arkade.json).toMatchObject({ id: offers.arkade, collateral_asset: 'ArkadeBtc' });
		expectSpecError(await call('GET', `/api/offers/${offers.arkade}`), 404, 'OFFER_NOT_FOUND');
		sandbox.configure({ dialect: 'live' });
		expect(await ids('?collateral_asset_type=Bitcoin&loan_type=All')).toHaveLength(7);
		const live = await call('GET', `/api/offers/${offers.arkade}`);
		expect([live.status, live.json]).toEqual([400, { message: 'Loan offer not found' }]);
	});

	it('does not apply loan_type on the by-id route, but the other filters', async () => {
		for (const dialect of ['spec', 'live'] as const) {
			sandbox.configure({ dialect });
			expect((await call('GET', `/api/offers/${offers.indirect}`)).status).toBe(200);
			expect((await call('GET', `/api/offers/${offers.indirect}?loan_type=Direct`)).status).toBe(
				200,
			);
			expect((await call('GET', `/api/offers/${offers.kyc}?kyc=no_kyc`)).status).toBe(
				dialect === 'spec' ? 404 : 400,
			);
		}
		expect(offers.kyc).toBe(offers.eurBankKyc);
		expect(offers.indirect).toBe(offers.usdtPolygonIndirect);
	});
});

describe('notifications: the live handler pages each kind separately', () => {
	async function walk(limit: number): Promise<{ ids: Set<string>; total: number; pages: number }> {
		const first = (await call('GET', `/api/notifications?limit=${limit}`)).json;
		const ids = new Set<string>();
		for (let page = 1; page <= first.total_pages; page += 1) {
			for (const message of (await call('GET', `/api/notifications?limit=${limit}&page=${page}`))
				.json.data)
				ids.add(message.data.id);
		}
		return { ids, total: first.total, pages: first.total_pages };
	}

	it('misses items on a Return All walk over 160 unread notifications of mixed types', async () => {
		const posted = sandbox.admin.postNotifications(sandbox.keys.borrower, 160);
		expect(new Set(posted.map((message) => message.type))).toEqual(
			new Set(['ContractUpdate', 'InstallmentUpdate', 'ChatMessage']),
		);
		expect(await walk(50)).toMatchObject({ total: 164, pages: 4 });
		expect((await walk(50)).ids.size).toBe(164);
		sandbox.configure({ dialect: 'live' });
		const page1 = (await call('GET', '/api/notifications?limit=50')).json;
		expect(page1).toMatchObject({ page: 1, limit: 50, total: 164, total_pages: 4 });
		expect(page1.data.map((message: { data: { id: string } }) => message.data.id)).toEqual(
			posted
				.slice(-50)
				.reverse()
				.map((message) => message.data.id),
		);
		// Page 2 holds each kind's items 51+ (6 + 4 + 4), pages 3 and 4 are empty.
		expect((await call('GET', '/api/notifications?limit=50&page=2')).json.data).toHaveLength(14);
		expect((await call('GET', '/api/notifications?limit=50&page=3')).json.data).toEqual([]);
		const live = await walk(50);
		expect(live).toMatchObject({ total: 164, pages: 4 });
		expect(live.ids.size).toBe(64);
	});

	it("marks another borrower's notification read in the live dialect (no ownership check)", async () => {
		const foreign = sandbox.admin.postNotification(sandbox.keys.otherBorrower);
		await call('PUT', `/api/notifications/${foreign.data.id}`);
		expect(foreign.data.read).toBe(false);
		sandbox.configure({ dialect: 'live' });
		await call('PUT', `/api/notifications/${foreign.data.id}`);
		expect(foreign.data.read).toBe(true);
	});

	it('admin posts such a batch over HTTP too', async () => {
		const answer = await call('POST', '/__admin/notifications', {
			key: null,
			body: { api_key: sandbox.keys.borrower, count: 160 },
		});
		expect(answer.json.created).toBe(160);
		expect((await call('GET', '/api/notifications')).json.total).toBe(164);
	});
});

describe('admin: contracts with a client_contract_id', () => {
	it('creates them programmatically and over HTTP, and the listing shows the id', async () => {
		const clientId = 'ffffffff-0000-4000-8000-000000000001';
		const made = sandbox.admin.createContract(sandbox.keys.borrower, {
			client_contract_id: clientId,
		});
		expect(made.client_contract_id).toBe(clientId);
		const overHttp = await call('POST', '/__admin/contracts', {
			key: null,
			body: { api_key: sandbox.keys.borrower, client_contract_id: clientId, status: 'Approved' },
		});
		expect(overHttp.json).toMatchObject({ client_contract_id: clientId, status: 'Approved' });
		for (const dialect of ['spec', 'live'] as const) {
			sandbox.configure({ dialect });
			const listed = (await call('GET', '/api/contracts?limit=100')).json.data;
			expect(
				listed.filter(
					(contract: { client_contract_id: string }) => contract.client_contract_id === clientId,
				),
			).toHaveLength(2);
		}
	});
});

describe('live dialect: offer capacity (loan_amount_max)', () => {
	const { offers } = SEED_IDS;
	const offer = (id: string) => sandbox.state.offers.get(id);

	beforeEach(() => sandbox.configure({ dialect: 'live' }));

	it('takes each request off loan_amount_max, goes Unavailable below the min and gives it back on cancel', async () => {
		const small = await createContract({ ...liveContract, loan_amount: 500 });
		expect((await call('GET', `/api/offers/${OFFER}`)).json).toMatchObject({
			loan_amount_max: 9500,
			status: 'Available',
		});
		const big = await createContract({ ...liveContract, loan_amount: 9450 });
		expect(big.status).toBe(200);
		// GREATEST(0, 9500 - 9450) = 50 < loan_amount_min 100: Unavailable, out of the listing, still served by id.
		expect((await call('GET', `/api/offers/${OFFER}`)).json).toMatchObject({
			loan_amount_max: 50,
			status: 'Unavailable',
		});
		expect(
			(await call('GET', '/api/offers')).json.map((item: { id: string }) => item.id),
		).not.toContain(OFFER);
		const refused = await createContract({ ...liveContract, loan_amount: 100 });
		expect([refused.status, refused.json]).toEqual([
			400,
			{ message: 'Invalid loan amount: $100 not in range $100-$50' },
		]);
		expect((await call('DELETE', `/api/contracts/${big.json.id}`)).status).toBe(200);
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 9500, status: 'Available' });
		// A second cancel is refused (Cancelled) and gives nothing back.
		expect((await call('DELETE', `/api/contracts/${big.json.id}`)).status).toBe(400);
		await call('DELETE', `/api/contracts/${small.json.id}`);
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 10000, status: 'Available' });
	});

	it('stays Available while the rest is at least the min; an exact fit leaves max = min', async () => {
		await createContract({ ...liveContract, loan_amount: 9900 });
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 100, status: 'Available' });
		await createContract({ ...liveContract, loan_amount: 100 });
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 0, status: 'Unavailable' });
	});

	it('counts auto-approved requests, not a fiat request refused after it was stored, and not the spec dialect', async () => {
		const approved = await createContract({
			...liveContract,
			id: offers.autoAccept,
			loan_amount: 1000,
		});
		expect(approved.json.status).toBe('Approved');
		expect(offer(offers.autoAccept)?.loan_amount_max).toBe(19000);
		await call('DELETE', `/api/contracts/${approved.json.id}`);
		expect(offer(offers.autoAccept)?.loan_amount_max).toBe(20000);
		const details = {
			bank_name: 'B',
			bank_address: 'A',
			bank_country: 'DE',
			purpose_of_remittance: 'P',
			full_name: 'F',
			address: 'A',
			city: 'C',
			post_code: '1',
			country: 'DE',
		};
		const fiat = {
			...liveContract,
			id: offers.eurBankKyc,
			loan_type: 'Fiat',
			loan_amount: 1000,
			duration_days: 90,
			fiat_loan_details: {
				details,
				encrypted_encryption_key_borrower: 'kb',
				encrypted_encryption_key_lender: 'kl',
			},
		};
		expect((await createContract(fiat)).status).toBe(400);
		expect(sandbox.stats().contractsCreated).toBe(2);
		expect(offer(offers.eurBankKyc)?.loan_amount_max).toBe(50000);
		sandbox.configure({ dialect: 'spec' });
		const spec = await createContract(validContract);
		expect(offer(OFFER)?.loan_amount_max).toBe(10000);
		await call('DELETE', `/api/contracts/${spec.json.id}`);
		expect(offer(OFFER)?.loan_amount_max).toBe(10000);
	});

	it('a give-back makes any Unavailable offer Available again, even a withdrawn one', async () => {
		const made = await createContract(liveContract);
		sandbox.admin.withdrawOffer(OFFER);
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 9500, status: 'Unavailable' });
		await call('DELETE', `/api/contracts/${made.json.id}`);
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 10000, status: 'Available' });
	});

	it('admin Rejected / ApprovalExpired give it back, RequestExpired too but leaves the offer Unavailable', async () => {
		const ids: string[] = [];
		for (let index = 0; index < 3; index += 1)
			ids.push((await createContract({ ...liveContract, loan_amount: 1000 })).json.id);
		expect(offer(OFFER)?.loan_amount_max).toBe(7000);
		sandbox.admin.setContractStatus(ids[0], 'Rejected');
		sandbox.admin.setContractStatus(ids[1], 'ApprovalExpired');
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 9000, status: 'Available' });
		sandbox.admin.setContractStatus(ids[2], 'RequestExpired');
		expect(offer(OFFER)).toMatchObject({ loan_amount_max: 10000, status: 'Unavailable' });
		// Admin-made contracts never held capacity: cancelling them changes nothing.
		const adminMade = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: offers.usdtLiquidWeekly,
			loan_amount: 500,
		});
		await call('DELETE', `/api/contracts/${adminMade.id}`);
		expect(offer(offers.usdtLiquidWeekly)?.loan_amount_max).toBe(15000);
	});

	it('a 1e12 offer from admin.addOffer takes 1,000 requests (and resets with the sandbox)', async () => {
		const big = sandbox.admin.addOffer({
			loan_amount_min: 1,
			loan_amount_max: 1e12,
			auto_accept: false,
		});
		expect((await call('GET', `/api/offers/${big.id}`)).json.loan_amount_max).toBe(1e12);
		for (let batch = 0; batch < 10; batch += 1) {
			const answers = await Promise.all(
				Array.from({ length: 100 }, (_, index) =>
					createContract({
						...liveContract,
						id: big.id,
						loan_amount: 1000 + batch * 100 + index + 0.25,
					}),
				),
			);
			expect(answers.every((answer) => answer.status === 200)).toBe(true);
		}
		// Σ (1000.25 … 1999.25) = 1,499,750
		expect(offer(big.id)).toMatchObject({ loan_amount_max: 1e12 - 1_499_750, status: 'Available' });
		sandbox.reset();
		expect(offer(big.id)).toBeUndefined();
	});
});

/** A GET through node:http that reports when the headers and each body chunk arrived. */
interface RawAnswer {
	status?: number;
	headers?: Record<string, string | string[] | undefined>;
	headersAt?: number;
	chunks: { at: number; bytes: number }[];
	body: string;
	error?: Error;
	completed: boolean;
}

function rawGet(
	url: string,
	options: { key?: string; timeoutMs?: number; agent?: http.Agent; method?: string } = {},
): Promise<RawAnswer> {
	return new Promise((resolve) => {
		const started = Date.now();
		const answer: RawAnswer = { chunks: [], body: '', completed: false };
		const headers = { 'x-api-key': options.key ?? sandbox.keys.borrower };
		const req = http.request(
			url,
			{ method: options.method ?? 'GET', headers, agent: options.agent },
			(res) => {
				answer.status = res.statusCode;
				answer.headers = res.headers;
				answer.headersAt = Date.now() - started;
				res.setEncoding('utf8');
				res.on('data', (chunk: string) => {
					answer.chunks.push({ at: Date.now() - started, bytes: Buffer.byteLength(chunk) });
					answer.body += chunk;
				});
				res.on('end', () => {
					answer.completed = res.complete;
					resolve(answer);
				});
				res.on('error', (error) => {
					answer.error = error;
					resolve(answer);
				});
			},
		);
		if (options.timeoutMs !== undefined)
			req.setTimeout(options.timeoutMs, () => req.destroy(new Error('client timeout')));
		req.on('error', (error) => {
			answer.error = error;
			resolve(answer);
		});
		req.end();
	});
}

async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) throw new Error('waitFor: timed out');
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

describe('hostile-server faults', () => {
	let target: RedirectTarget;

	beforeAll(async () => {
		target = await startRedirectTarget();
	});

	afterAll(async () => {
		await target.close();
	});

	beforeEach(() => target.reset());

	it('redirect: 307 by default to the origin + the same path and query; the target records what arrives', async () => {
		sandbox.configure({
			faults: [{ kind: 'redirect', path: '/api/offers', location: target.url, times: 2 }],
		});
		const manual = await fetch(`${sandbox.url}/api/offers?loan_type=All`, {
			headers: { 'x-api-key': sandbox.keys.borrower },
			redirect: 'manual',
		});
		expect(manual.status).toBe(307);
		expect(manual.headers.get('location')).toBe(`${target.url}/api/offers?loan_type=All`);
		expect(await manual.text()).toBe('');
		expect(target.requests).toHaveLength(0);
		// A client that follows blindly hands the key to the other origin (fetch keeps custom headers).
		const followed = await fetch(`${sandbox.url}/api/offers`, {
			headers: { 'x-api-key': sandbox.keys.borrower },
		});
		expect([followed.status, await followed.json()]).toEqual([200, { target: true }]);
		expect(target.requests).toEqual([
			expect.objectContaining({ method: 'GET', path: '/api/offers', url: '/api/offers' }),
		]);
		expect(target.requests[0].headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect(target.sawText(sandbox.keys.borrower)).toBe(true);
		expect(target.sawText(sandbox.keys.otherBorrower)).toBe(false);
		expect(sandbox.stats()).toMatchObject({ faultsInjected: 2, byStatus: { '307': 2 } });
	});

	it('redirect: 301/302/308 and a Location with a path, sent verbatim; a rule needs a location', async () => {
		for (const status of [301, 302, 308] as const) {
			sandbox.configure({
				faults: [{ kind: 'redirect', status, location: `${target.url}/elsewhere?x=1` }],
			});
			const answer = await fetch(`${sandbox.url}/api/contracts`, {
				headers: { 'x-api-key': sandbox.keys.borrower },
				redirect: 'manual',
			});
			expect([answer.status, answer.headers.get('location')]).toEqual([
				status,
				`${target.url}/elsewhere?x=1`,
			]);
		}
		expect(() => sandbox.configure({ faults: [{ kind: 'redirect' }] })).toThrow(
			'a redirect rule needs a location',
		);
		expect(() =>
			sandbox.configure({ faults: [{ kind: 'redirect', location: '/x', status: 303 as never }] }),
		).toThrow('status');
		expect(() => sandbox.configure({ faults: [{ kind: '500', location: '/x' }] })).toThrow(
			'location is only for redirect',
		);
	});

	it('redirect after:true processes the request first (a POST is created, then redirected)', async () => {
		sandbox.configure({
			faults: [
				{
					kind: 'redirect',
					method: 'POST',
					path: '/api/contracts',
					location: target.url,
					after: true,
					status: 302,
				},
			],
		});
		const answer = await fetch(`${sandbox.url}/api/contracts`, {
			method: 'POST',
			headers: { 'x-api-key': sandbox.keys.borrower, 'content-type': 'application/json' },
			body: JSON.stringify(validContract),
			redirect: 'manual',
		});
		expect(answer.status).toBe(302);
		expect(sandbox.stats().contractsCreated).toBe(1);
	});

	it('bad-200: every body variant with status 200', async () => {
		const cases: [string, string, string][] = [
			['malformed-json', '{"id": "abc', 'application/json'],
			['empty', '', 'application/json'],
			['array', '[{"id":"a"},{"id":"b"}]', 'application/json'],
			['error-body', '{"error":"Internal","code":"INTERNAL","details":"x"}', 'application/json'],
		];
		for (const [body200, text, type] of cases) {
			sandbox.configure({
				faults: [{ kind: 'bad-200', path: '/api/contracts', body200: body200 as never }],
			});
			const answer = await call('GET', '/api/contracts');
			expect([body200, answer.status, answer.text, answer.headers.get('content-type')]).toEqual([
				body200,
				200,
				text,
				type,
			]);
		}
		sandbox.configure({ faults: [{ kind: 'bad-200', path: '/api/offers' }] });
		expect((await call('GET', '/api/offers')).text).toBe('{"id": "abc');
		sandbox.configure({ faults: [{ kind: 'bad-200', body200: 'html' }] });
		const html = await call('GET', '/api/offers');
		expect([html.status, html.headers.get('content-type')]).toEqual([
			200,
			'text/html; charset=utf-8',
		]);
		expect(html.text).toMatch(/^<!DOCTYPE html>/);
		sandbox.configure({ faults: [{ kind: 'bad-200', body200: 'echo-key' }] });
		const echo = await call('GET', '/api/contracts/whatever');
		expect(echo.status).toBe(200);
		expect(echo.json.api_key).toBe(sandbox.keys.borrower);
		expect(echo.json.message).toContain(sandbox.keys.borrower);
		expect(() =>
			sandbox.configure({ faults: [{ kind: 'bad-200', body200: 'xml' as never }] }),
		).toThrow('body200');
	});

	it('429 with Retry-After from the rule: "0", a past HTTP date, "1" by default, or none', async () => {
		const past = new Date(Date.now() - 3_600_000).toUTCString();
		sandbox.configure({
			faults: [
				{ kind: '429', path: '/api/offers', retryAfter: '0' },
				{ kind: '429', path: '/api/offers', retryAfter: past },
				{ kind: '429', path: '/api/offers' },
				{ kind: '429', path: '/api/offers', retryAfter: null },
			],
		});
		const zero = await call('GET', '/api/offers');
		expectSpecError(zero, 429, 'RATE_LIMITED');
		expect(zero.headers.get('retry-after')).toBe('0');
		expect((await call('GET', '/api/offers')).headers.get('retry-after')).toBe(past);
		expect((await call('GET', '/api/offers')).headers.get('retry-after')).toBe('1');
		const none = await call('GET', '/api/offers');
		expect([none.status, none.headers.get('retry-after')]).toEqual([429, null]);
		expect((await call('GET', '/api/offers')).status).toBe(200);
		sandbox.configure({ dialect: 'live', faults: [{ kind: '429', retryAfter: '0' }] });
		const live = await call('GET', '/api/offers');
		expect([live.status, live.json]).toEqual([429, { message: 'Too Many Requests' }]);
		expect(sandbox.stats()).toMatchObject({ faultsInjected: 5, rateLimited: 0 });
	});

	it('trickle: headers at once, then one byte every delayMs (a fixed body or the real answer)', async () => {
		sandbox.configure({
			faults: [{ kind: 'trickle', path: '/api/health', delayMs: 40, body: '{"ok":1}' }],
		});
		const answer = await rawGet(`${sandbox.url}/api/health`);
		expect([answer.status, answer.body, answer.completed]).toEqual([200, '{"ok":1}', true]);
		expect(answer.headers?.['content-length']).toBe('8');
		expect(answer.headersAt).toBeLessThan(200);
		expect(answer.chunks.length).toBe(8);
		expect(answer.chunks[7].at - (answer.headersAt ?? 0)).toBeGreaterThanOrEqual(7 * 40 - 10);
		// The real answer, processed first: a client with a whole-request timeout gives up mid-body.
		sandbox.configure({ faults: [{ kind: 'trickle', method: 'POST', path: '/api/contracts' }] });
		const response = await fetch(`${sandbox.url}/api/contracts`, {
			method: 'POST',
			headers: { 'x-api-key': sandbox.keys.borrower, 'content-type': 'application/json' },
			body: JSON.stringify(validContract),
			signal: AbortSignal.timeout(300),
		});
		expect(response.status).toBe(200);
		expect(Number(response.headers.get('content-length'))).toBeGreaterThan(100);
		await expect(response.text()).rejects.toThrow();
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 1, byStatus: { '200': 2 } });
	});

	it('cut-body: full Content-Length, half the body, then the socket is destroyed', async () => {
		sandbox.configure({ faults: [{ kind: 'cut-body', path: '/api/offers' }] });
		const raw = await rawGet(`${sandbox.url}/api/offers`);
		const length = Number(raw.headers?.['content-length']);
		expect(raw.status).toBe(200);
		expect(length).toBeGreaterThan(1000);
		expect(Buffer.byteLength(raw.body)).toBe(Math.floor(length / 2));
		expect(raw.completed === false || raw.error !== undefined).toBe(true);
		sandbox.configure({ faults: [{ kind: 'cut-body', path: '/api/contracts' }] });
		const response = await fetch(`${sandbox.url}/api/contracts`, {
			headers: { 'x-api-key': sandbox.keys.borrower },
		});
		expect(response.status).toBe(200);
		await expect(response.text()).rejects.toThrow();
		// A fixed body; an empty real answer is replaced by a JSON stand-in so there is something to cut.
		sandbox.configure({ faults: [{ kind: 'cut-body', method: 'DELETE', path: '/api/contracts' }] });
		const requested = SEED_IDS.contracts.requested;
		const empty = await rawGet(`${sandbox.url}/api/contracts/${requested}`, { method: 'DELETE' });
		expect([empty.status, empty.headers?.['content-type'], empty.completed]).toEqual([
			200,
			'application/json',
			false,
		]);
		expect(empty.body).toBe('{"message":"cut-body stand-in for an empty answer"}'.slice(0, 25));
		expect(sandbox.state.contracts.get(requested)?.contract.status).toBe('Cancelled');
		sandbox.configure({
			faults: [{ kind: 'cut-body', path: '/api/health', body: '{"0123456789":true}' }],
		});
		const fixed = await rawGet(`${sandbox.url}/api/health`);
		expect([fixed.headers?.['content-length'], fixed.body]).toEqual(['19', '{"0123456']);
	});

	it('hang: never answers until the client leaves; after:true still processes the request', async () => {
		sandbox.configure({ faults: [{ kind: 'hang', path: '/api/contracts', times: 2 }] });
		const started = Date.now();
		await expect(
			call('GET', '/api/contracts', { signal: AbortSignal.timeout(200) }),
		).rejects.toThrow();
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
		await expect(
			createContract(validContract, { signal: AbortSignal.timeout(100) }),
		).rejects.toThrow();
		expect(sandbox.stats()).toMatchObject({ contractsCreated: 0, byStatus: { hang: 2 } });
		sandbox.configure({
			faults: [{ kind: 'hang', method: 'POST', path: '/api/contracts', after: true }],
		});
		await expect(
			createContract(validContract, { signal: AbortSignal.timeout(100) }),
		).rejects.toThrow();
		expect(sandbox.stats().contractsCreated).toBe(1);
	});

	it('close() ends hanging and trickling answers at once', async () => {
		const own = await startSandbox({
			faults: [
				{ kind: 'hang', path: '/api/contracts' },
				{ kind: 'trickle', path: '/api/offers', delayMs: 60_000 },
			],
		});
		const hanging = rawGet(`${own.url}/api/contracts`, { key: own.keys.borrower });
		const trickling = rawGet(`${own.url}/api/offers`, { key: own.keys.borrower });
		await waitFor(() => own.stats().byStatus.hang === 1 && own.stats().byStatus['200'] === 1);
		const started = Date.now();
		await own.close();
		expect(Date.now() - started).toBeLessThan(1000);
		const [hung, trickled] = await Promise.all([hanging, trickling]);
		expect(hung.status).toBeUndefined();
		expect(hung.error).toBeDefined();
		expect(trickled.status).toBe(200);
		expect(trickled.completed).toBe(false);
	});
});

describe('paging lies (config `paging`)', () => {
	const ids = (page: { data: { id?: string; data?: { id?: string } }[] }) =>
		page.data.map((item) => item.id ?? item.data?.id);

	beforeEach(() => {
		sandbox.admin.createContracts(sandbox.keys.borrower, 20);
		sandbox.admin.postNotifications(sandbox.keys.borrower, 20);
	});

	it('ignore-page answers page 1 whatever page is asked', async () => {
		const honest2 = (await call('GET', '/api/contracts?limit=5&page=2')).json;
		sandbox.configure({ paging: 'ignore-page' });
		const first = (await call('GET', '/api/contracts?limit=5')).json;
		const second = (await call('GET', '/api/contracts?limit=5&page=2')).json;
		expect(second).toEqual(first);
		expect(second).toMatchObject({ page: 1, total: 25, total_pages: 5 });
		expect(ids(second)).not.toEqual(ids(honest2));
		for (const dialect of ['spec', 'live'] as const) {
			sandbox.configure({ dialect });
			const notes1 = (await call('GET', '/api/notifications?limit=5')).json;
			expect((await call('GET', '/api/notifications?limit=5&page=3')).json).toEqual(notes1);
		}
	});

	it('endless: every page full of new ids, total_pages huge', async () => {
		sandbox.configure({ paging: 'endless' });
		const seen = new Set<string>();
		for (const page of [1, 2, 50, 999_999]) {
			const contracts = (await call('GET', `/api/contracts?limit=100&page=${page}`)).json;
			expect(contracts).toMatchObject({
				page,
				limit: 100,
				total_pages: 1_000_000,
				total: 100_000_000,
			});
			expect(contracts.data).toHaveLength(100);
			for (const id of ids(contracts)) seen.add(id as string);
			const notes = (await call('GET', `/api/notifications?limit=100&page=${page}`)).json;
			expect(notes.data).toHaveLength(100);
			for (const id of ids(notes)) seen.add(id as string);
		}
		expect(seen.size).toBe(800);
		expect((await call('GET', '/api/contracts?limit=3&page=2')).json.data[0]).toMatchObject({
			id: expect.stringMatching(UUID),
			status: expect.any(String),
		});
		// Deterministic: the same page has the same ids.
		expect(ids((await call('GET', '/api/contracts?limit=3&page=2')).json)).toEqual(
			ids((await call('GET', '/api/contracts?limit=3&page=2')).json),
		);
	});

	it('lying-total-pages says 1 while there are more; no-ids drops the ids', async () => {
		sandbox.configure({ paging: 'lying-total-pages' });
		const contracts = (await call('GET', '/api/contracts?limit=10')).json;
		expect(contracts).toMatchObject({ page: 1, total: 25, total_pages: 1 });
		expect((await call('GET', '/api/contracts?limit=10&page=2')).json.data).toHaveLength(10);
		expect((await call('GET', '/api/notifications?limit=10')).json).toMatchObject({
			total: 24,
			total_pages: 1,
		});
		sandbox.configure({ paging: 'no-ids', dialect: 'live' });
		const bare = (await call('GET', '/api/contracts?limit=10')).json;
		expect(bare.data).toHaveLength(10);
		expect(bare.data.every((contract: object) => !('id' in contract) && 'status' in contract)).toBe(
			true,
		);
		const notes = (await call('GET', '/api/notifications?limit=10')).json;
		expect(
			notes.data.every(
				(message: { data: object }) => !('id' in message.data) && 'timestamp' in message.data,
			),
		).toBe(true);
		// Listing only: the records themselves keep their ids.
		expect(
			[...sandbox.state.contracts.values()].every((entry) => typeof entry.contract.id === 'string'),
		).toBe(true);
	});

	it('small-pages serves half the limit asked with the true total; inflated-total counts more than it serves', async () => {
		sandbox.configure({ paging: 'small-pages' });
		const first = (await call('GET', '/api/contracts?limit=10')).json;
		expect(first).toMatchObject({ page: 1, limit: 5, total: 25, total_pages: 5 });
		expect(first.data).toHaveLength(5);
		const walked = [...ids(first)];
		for (const page of [2, 3, 4, 5])
			walked.push(...ids((await call('GET', `/api/contracts?limit=10&page=${page}`)).json));
		expect(new Set(walked).size).toBe(25);
		for (const dialect of ['spec', 'live'] as const) {
			sandbox.configure({ dialect });
			const notes = (await call('GET', '/api/notifications?limit=10')).json;
			expect(notes).toMatchObject({ limit: 5, total: 24, total_pages: 5 });
			expect(notes.data).toHaveLength(5);
		}

		sandbox.configure({ paging: 'inflated-total', dialect: 'spec' });
		const last = (await call('GET', '/api/contracts?limit=10&page=3')).json;
		expect(last).toMatchObject({ page: 3, total: 35, total_pages: 4 });
		expect(last.data).toHaveLength(5);
		expect((await call('GET', '/api/contracts?limit=10&page=4')).json.data).toEqual([]);
		expect((await call('GET', '/api/notifications?limit=10')).json).toMatchObject({ total: 34 });
	});

	it('is validated, switchable over /__admin/config and reset to honest paging', async () => {
		expect(() => sandbox.configure({ paging: 'sometimes' as never })).toThrow(
			'paging must be null or one of',
		);
		await call('PUT', '/__admin/config', { key: null, body: { paging: 'lying-total-pages' } });
		expect(sandbox.config.paging).toBe('lying-total-pages');
		sandbox.reset();
		expect(sandbox.config.paging).toBeNull();
	});
});

describe('connection counting', () => {
	let own: Sandbox;

	beforeEach(async () => {
		own = await startSandbox();
	});

	afterEach(async () => {
		await own.close();
	});

	it('reports open and peak connections; reset starts the peak at the open ones', async () => {
		const port = Number(new URL(own.url).port);
		const sockets = await Promise.all(
			Array.from(
				{ length: 5 },
				() =>
					new Promise<net.Socket>((resolve) => {
						const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
					}),
			),
		);
		await waitFor(() => own.stats().openConnections === 5);
		expect(own.stats()).toMatchObject({ openConnections: 5, peakConnections: 5, connections: 5 });
		for (const socket of sockets.slice(0, 3)) socket.destroy();
		await waitFor(() => own.stats().openConnections === 2);
		expect(own.stats().peakConnections).toBe(5);
		own.reset();
		expect(own.stats()).toMatchObject({ openConnections: 2, peakConnections: 2, connections: 0 });
		for (const socket of sockets.slice(3)) socket.destroy();
		await waitFor(() => own.stats().openConnections === 0);
	});

	it("shows a client's connection cap (an agent with maxSockets 3, 30 requests)", async () => {
		own.configure({ latencyMs: 20 });
		const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
		const answers = await Promise.all(
			Array.from({ length: 30 }, () =>
				rawGet(`${own.url}/api/offers`, { key: own.keys.borrower, agent }),
			),
		);
		expect(answers.every((answer) => answer.status === 200)).toBe(true);
		expect(own.stats()).toMatchObject({ requests: 30, peakConnections: 3, connections: 3 });
		agent.destroy();
		await waitFor(() => own.stats().openConnections === 0);
	});

	it('counts the API requests in flight, keys apart or not, and the most at once', async () => {
		own.configure({ latencyMs: 50 });
		const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
		const keys = [own.keys.borrower, own.keys.otherBorrower];
		const answers = await Promise.all(
			Array.from({ length: 12 }, (_, index) =>
				rawGet(`${own.url}/api/offers`, { key: keys[index % 2], agent }),
			),
		);
		expect(answers.every((answer) => answer.status === 200)).toBe(true);
		expect(own.stats()).toMatchObject({
			requestsInFlight: 0,
			peakRequestsInFlight: 4,
			// 6 requests per key within about 0.2 s.
			peakRequestsPerKeySecond: 6,
		});
		agent.destroy();
		await waitFor(() => own.stats().openConnections === 0);
	});
});

describe('everything the sandbox hands out is well formed', () => {
	/** Every string value in a JSON answer, with the name of the field that holds it. */
	function strings(value: unknown, field = ''): Array<[string, string]> {
		if (typeof value === 'string') return [[field, value]];
		if (Array.isArray(value)) return value.flatMap((entry) => strings(entry, field));
		if (value && typeof value === 'object') {
			return Object.entries(value).flatMap(([key, entry]) => strings(entry, key));
		}
		return [];
	}

	const BITCOIN_FIELDS =
		/(^|_)(btc_address|contract_address|btc_loan_repayment_address)$|^address$/;

	async function everythingListed(dialect: 'spec' | 'live'): Promise<Array<[string, string]>> {
		sandbox.configure({ dialect });
		// An approved contract has an escrow address to fund; an Arkade one's is an Ark address.
		const approved = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: OFFER,
			loan_amount: 500,
			duration_days: 30,
			status: 'Approved',
		});
		sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: SEED_IDS.offers.arkade,
			status: 'Approved',
		});
		const answers = await Promise.all([
			call('GET', '/api/offers?loan_type=All&collateral_asset_type=Any'),
			call('GET', '/api/contracts?limit=100'),
			call('GET', `/api/contracts/${approved.id}`),
			call('GET', '/api/loan-applications'),
		]);
		return answers.flatMap((answer) => strings(answer.json));
	}

	it.each(['spec', 'live'] as const)(
		'%s dialect: every Bitcoin address, public key and npub decodes',
		async (dialect) => {
			const values = await everythingListed(dialect);
			const addresses = values.filter(
				([field, value]) => BITCOIN_FIELDS.test(field) && /^(bc|tb|bcrt)1/i.test(value),
			);
			const keys = values.filter(([field]) => /(^|_)pk$/.test(field));
			const npubs = values.filter(([, value]) => value.startsWith('npub1'));
			expect(addresses.length).toBeGreaterThan(5);
			expect(keys.length).toBeGreaterThan(5);
			for (const [field, address] of addresses) {
				expect([field, parseBitcoinAddress(address)]).not.toEqual([
					field,
					expect.objectContaining({ error: expect.anything() }),
				]);
			}
			const arkAddresses = values.filter(([, value]) => /^t?ark1/.test(value));
			expect(arkAddresses.map(([field]) => field).sort()).toEqual([
				'borrower_btc_address',
				'contract_address',
			]);
			for (const [field, address] of arkAddresses)
				expect([field, checkArkAddress(address, 'test')]).toEqual([field, null]);
			for (const [field, key] of keys)
				expect([field, checkCompressedPublicKey(key)]).toEqual([field, null]);
			for (const [field, npub] of npubs) expect([field, checkNpub(npub)]).toEqual([field, null]);
		},
	);
});

describe('live dialect: the endpoints of issue 15 item 4', () => {
	beforeEach(() => sandbox.configure({ dialect: 'live' }));
	const CONTRACT = SEED_IDS.contracts.principalGiven;
	const WALLET_KEY = '7e1f0c3b5a29d8e6f4c2b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9';
	const signed = (address: string) => {
		const signature = standInSignMessage(WALLET_KEY, address);
		return {
			address,
			recoverable_signature_hex: signature.recoverable_signature_hex,
			recoverable_signature_id: signature.recoverable_signature_id,
		};
	};
	const putAddress = (body: unknown, id: string = CONTRACT) =>
		call('PUT', `/api/contracts/${id}/borrower-address`, { body });

	it('borrower-address: stores a signed address and answers null', async () => {
		sandbox.state.contracts.get(CONTRACT)!.contract.borrower_pk = publicKeyOf(WALLET_KEY);
		const answer = await putAddress(signed(LIVE_BTC_ADDRESS));
		expect(answer.status).toBe(200);
		expect(answer.text).toBe('null');
		expect(sandbox.state.contracts.get(CONTRACT)!.contract.borrower_btc_address).toBe(
			LIVE_BTC_ADDRESS,
		);
	});

	it.each([
		['hex that does not decode', { recoverable_signature_hex: 'zz' }, 'Bad signature provided'],
		['63 bytes', { recoverable_signature_hex: 'ab'.repeat(63) }, 'Bad signature provided'],
		['a recovery ID of 4', { recoverable_signature_id: 4 }, 'Bad signature provided'],
		[
			'the signature of another key',
			{
				recoverable_signature_hex: standInSignMessage('22'.repeat(32), LIVE_BTC_ADDRESS)
					.recoverable_signature_hex,
			},
			'Invalid signature provided',
		],
	])('borrower-address: %s is a 400', async (_case, change, message) => {
		sandbox.state.contracts.get(CONTRACT)!.contract.borrower_pk = publicKeyOf(WALLET_KEY);
		const answer = await putAddress({ ...signed(LIVE_BTC_ADDRESS), ...change });
		expect(answer.status).toBe(400);
		expect(answer.json).toEqual({ message });
	});

	it('borrower-address: a body that does not deserialise is 422, an unknown contract 500', async () => {
		const bad = await putAddress({ ...signed(LIVE_BTC_ADDRESS), address: 'ark1notbitcoin' });
		expect(bad.status).toBe(422);
		expect(bad.json.message).toMatch(
			/^Failed to deserialize the JSON body into the target type: address: /,
		);
		const missing = await putAddress({ address: LIVE_BTC_ADDRESS });
		expect(missing.status).toBe(422);
		expect(missing.json.message).toMatch(/missing field `recoverable_signature_hex`/);
		const foreign = await putAddress(signed(LIVE_BTC_ADDRESS), SEED_IDS.contracts.otherBorrowers);
		expect(foreign.status).toBe(500);
		expect(foreign.json).toEqual({ message: 'Something went wrong' });
	});

	it('users: the time zone and the language answer an empty 200; a bad body is plain text', async () => {
		const zone = await call('PUT', '/api/users', { body: { timezone: 'Asia/Tokyo' } });
		expect([zone.status, zone.text]).toEqual([200, '']);
		const unknown = await call('PUT', '/api/users', { body: { timezone: 'Mars/Olympus' } });
		expect([unknown.status, unknown.json]).toEqual([400, { message: 'Invalid timezone provided' }]);
		const locale = await call('PUT', '/api/users/locale', { body: { locale: 'xx-anything' } });
		expect([locale.status, locale.text]).toEqual([200, '']);
		const plain = await call('PUT', '/api/users', { body: {} });
		expect(plain.status).toBe(422);
		expect(plain.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(plain.text).toMatch(/missing field `timezone`/);
	});

	it('byok: needs no key, checks the referral code, then the key format, then the e-mail', async () => {
		const body = {
			name: 'Grace',
			email: 'grace@example.com',
			timezone: 'UTC',
			api_key: `lndst_sk_abcdefabcdef_${'k'.repeat(43)}`,
			referral_code: SEED_IDS.referralCodes.active,
		};
		const post = (change: Record<string, unknown>) =>
			call('POST', '/api/create-api-account/byok', { key: null, body: { ...body, ...change } });
		expect((await post({ referral_code: SEED_IDS.referralCodes.expired })).json).toEqual({
			message: 'Invalid referral code',
		});
		expect((await post({ api_key: 'lndst_sk_short_x' })).json).toEqual({
			message: 'Invalid API key format. Expected format: lndst_sk_{key_id}_{secret}',
		});
		expect((await post({ email: 'Borrower@sandbox.example' })).json).toEqual({
			message: 'Email already in use',
		});
		const created = await post({});
		expect(created.status).toBe(200);
		expect(created.json).toMatchObject({
			email: 'grace@example.com',
			timezone: 'UTC',
			api_key: body.api_key,
		});
		const reused = await post({ email: 'grace2@example.com' });
		expect([reused.status, reused.json]).toEqual([500, { message: 'Something went wrong' }]);
	});

	it('fiat-details: stores one set per contract (a second is 500), answers an empty 200', async () => {
		const wrapper = {
			details: {
				iban_transfer_details: { iban: 'ct', bic: null },
				bank_name: 'ct',
				bank_address: 'ct',
				bank_country: 'ct',
				purpose_of_remittance: 'ct',
				full_name: 'ct',
				address: 'ct',
				city: 'ct',
				post_code: 'ct',
				country: 'ct',
			},
			encrypted_encryption_key_borrower: 'borrower',
			encrypted_encryption_key_lender: 'lender',
		};
		const path = `/api/contracts/${CONTRACT}/fiat-details`;
		const missing = await call('PUT', path, { body: { details: wrapper.details } });
		expect(missing.status).toBe(422);
		expect(missing.json.message).toMatch(/missing field `encrypted_encryption_key_borrower`/);
		const first = await call('PUT', path, { body: wrapper });
		expect([first.status, first.text]).toEqual([200, '']);
		expect(sandbox.state.contracts.get(CONTRACT)!.contract.fiat_loan_details_borrower).toEqual({
			details: wrapper.details,
			encrypted_encryption_key: 'borrower',
		});
		const second = await call('PUT', path, { body: wrapper });
		expect([second.status, second.json]).toEqual([500, { message: 'Something went wrong' }]);
	});

	it('by-lender: needs no key; an unknown lender is 400 "Lender not found"', async () => {
		const listed = await call('GET', `/api/offers/by-lender/${SEED_IDS.lenders.alpenBank}`, {
			key: null,
		});
		expect(listed.status).toBe(200);
		expect(listed.json).toHaveLength(1);
		const unknown = await call('GET', '/api/offers/by-lender/nobody', { key: null });
		expect([unknown.status, unknown.json]).toEqual([400, { message: 'Lender not found' }]);
	});
});
