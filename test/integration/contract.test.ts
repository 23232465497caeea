import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { contractView } from '../../dev/sandbox/collateral';
import { publicKeyOf, standInSignMessage } from '../../dev/sandbox/messageSigner';
import { type FiatDetailsWrapper } from '../../nodes/LendasatBorrower/encryption/fiatDetails';
import {
	startSandbox,
	SEED_IDS,
	type Contract,
	type FaultRule,
	type Sandbox,
} from '../../dev/sandbox/server';
import {
	runWorkflow,
	searchList,
	singleNodeWorkflow,
	type TestCredential,
} from '../../dev/harness/n8n';
import { clientContractIdFor } from '../../nodes/LendasatBorrower/resources/contract/createOnce';
import { useFakeTime } from '../helpers/fakeTime';
import { decryptFiatDetails } from '../helpers/fiatDecryption';
import { everythingVisible } from '../helpers/secrets';
import takeALoanMinimal from '../workflows/take-a-loan-minimal.json';
import takeALoan from '../workflows/take-a-loan.json';

let sandbox: Sandbox;

useFakeTime();
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const CONTRACTS = SEED_IDS.contracts;
const NODE = 'Lendasat Borrower';
const OFFER = SEED_IDS.offers.usdcPolygon; // 100–10,000 USD, 7–365 days
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COLLATERAL_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const STABLECOIN_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
/** The public key of private key 1 (the generator point): a valid compressed key. */
const PUBLIC_KEY = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const DERIVATION_PATH = "m/84'/0'/0'/0/0";
const NPUB = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';
const NSEC = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';
const MOON_CARD = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
/** The body for offer 1, 1,500 for 30 days, with both addresses: each under both dialects' names. */
const BOTH_ADDRESSES_BODY = {
	loan_id: OFFER,
	id: OFFER,
	loan_amount: 1500,
	duration_days: 30,
	collateral_address: COLLATERAL_ADDRESS,
	borrower_btc_address: COLLATERAL_ADDRESS,
	repayment_address: STABLECOIN_ADDRESS,
	borrower_loan_address: STABLECOIN_ADDRESS,
	client_contract_id: expect.stringMatching(UUID),
};
/** Everything Lendasat's backend needs, as Additional Fields. */
const LIVE_FIELDS = {
	collateralAddress: COLLATERAL_ADDRESS,
	repaymentAddress: STABLECOIN_ADDRESS,
	borrowerPublicKey: PUBLIC_KEY,
	derivationPath: DERIVATION_PATH,
	loanType: 'StableCoin',
};

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

const SIMPLIFIED_FIELDS = [
	'id',
	'status',
	'loan_amount',
	'loan_asset',
	'duration_days',
	'interest_rate',
	'balance_outstanding',
	'collateral_sats',
	'liquidation_status',
	'liquidation_price',
	'contract_address',
	'expiry',
	'created_at',
	'updated_at',
];

const borrower = (overrides: Partial<TestCredential> = {}): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
	...overrides,
});

const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });
const fromList = (id: string) => ({ __rl: true, mode: 'list', value: id });

async function contract(
	operation: string,
	parameters: Record<string, unknown> = {},
	credential = borrower(),
	items?: Record<string, unknown>[],
) {
	const result = await runWorkflow(
		singleNodeWorkflow({ resource: 'contract', operation, ...parameters }),
		{
			credential,
			items,
		},
	);
	return { ...result, items: result.output(NODE).map((item) => item.json) };
}

/** The record as the sandbox holds it, as JSON would carry it. */
function stored(id: string): Contract {
	const entry = sandbox.state.contracts.get(id);
	if (!entry) throw new Error(`no contract ${id} in the sandbox`);
	return JSON.parse(JSON.stringify(entry.contract)) as Contract;
}

/** The stored contract as the sandbox's spec dialect serves it (balance and liquidation price as of now). */
function served(id: string): Contract {
	return contractView('spec', stored(id));
}

/** Simplify of node version 1: its fourteen fields, plus the collateral and KYC keys every version has. */
function simplified(record: Contract): Record<string, unknown> {
	const all = record as unknown as Record<string, unknown>;
	return {
		...Object.fromEntries(
			SIMPLIFIED_FIELDS.filter((field) => all[field] !== undefined).map((field) => [
				field,
				all[field],
			]),
		),
		...collateralAndKyc(record),
	};
}

function collateralAndKyc(record: Contract): Record<string, unknown> {
	return {
		collateral_asset: record.collateral_asset,
		requires_ark_settlement: record.requires_ark_settlement,
		kyc_link: record.kyc_info?.kyc_link ?? null,
		kyc_done: record.kyc_info?.is_kyc_done ?? null,
	};
}

const received = () => sandbox.requests.map((request) => `${request.method} ${request.path}`);
/** The one read Contract → Create makes before sending a Collateral Address: which kind its offer takes. */
const OFFER_READ = `GET /api/offers/${OFFER}`;
/** The contract requests Contract → Create sent, without its read of the offer. */
const posted = () =>
	sandbox.requests.filter(
		(request) => `${request.method} ${request.path}` === 'POST /api/contracts',
	);

function describedBy(error: unknown): string {
	return String((error as { description?: unknown } | undefined)?.description ?? '');
}

/**
 * A server of the specification's kind on 127.0.0.1: it answers every GET with `record` and any
 * other request with an empty 200, and records what it received.
 */
async function bareServer(record: Record<string, unknown>) {
	const requests: { method: string; url: string; body: string }[] = [];
	const server = http.createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString()));
		request.on('end', () => {
			requests.push({ method: request.method ?? '', url: request.url ?? '', body });
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(request.method === 'GET' ? JSON.stringify(record) : '');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		requests,
		url: `http://127.0.0.1:${port}`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe('Contract → Create: a borrower asks for a loan', () => {
	it("sends the specification's body with the live backend's names beside it, and returns the pending contract", async () => {
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

		expect(received()).toEqual([OFFER_READ, 'POST /api/contracts']);
		expect(sandbox.requests[0].query).toEqual({ collateral_asset_type: 'Any', loan_type: 'All' });
		const [request] = posted();
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual(BOTH_ADDRESSES_BODY);
	});

	it('keeps running a version 1 workflow saved with only the specification fields', async () => {
		const { output, error } = await runWorkflow(takeALoanMinimal, { credential: borrower() });
		expect(error).toBeUndefined();
		expect(output('Request the loan')[0].json).toMatchObject({
			status: 'pending',
			loan_amount: 1500,
		});
		expect(posted()[0].body).toMatchObject({
			loan_id: OFFER,
			loan_amount: 1500,
			duration_days: 30,
			collateral_address: COLLATERAL_ADDRESS,
			repayment_address: STABLECOIN_ADDRESS,
		});
		expect(posted()[0].headers['idempotency-key']).toMatch(/^n8n-/);
	});

	it.each(['spec', 'live'] as const)(
		"runs docs/contract-create.md's workflow against the %s dialect",
		async (dialect) => {
			sandbox.configure({ dialect });
			const { output, error } = await runWorkflow(takeALoan, { credential: borrower() });
			expect(error).toBeUndefined();
			const [created] = output('Request the loan');
			expect(created.json).toMatchObject({
				status: dialect === 'spec' ? 'pending' : 'Requested',
				loan_amount: 1500,
			});
			expect(sandbox.stats().contractsCreated).toBe(1);
			expect(sandbox.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
				OFFER_READ, // which kind of Collateral Address the offer takes
				'GET /api/contracts', // the user's Idempotency Key: was it created by an earlier execution?
				'POST /api/contracts',
				'GET /api/contracts', // did another execution create one with the same key meanwhile?
			]);
			expect(posted()[0].headers['idempotency-key']).toBe('order-1042');
		},
	);

	it('sends the minimal request when no additional field is set', async () => {
		await runWorkflow(contractCreate(), { credential: borrower() });
		expect(sandbox.requests[0].body).toEqual({
			loan_id: OFFER,
			id: OFFER,
			loan_amount: 1500,
			duration_days: 30,
			client_contract_id: expect.stringMatching(UUID),
		});
	});

	it('takes the offer ID as a plain string too (workflows saved before the picker)', async () => {
		const { error } = await runWorkflow(contractCreate({ loanId: OFFER }), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].body).toMatchObject({ loan_id: OFFER });
	});

	it('converts numbers that arrive as text from an expression', async () => {
		await runWorkflow(
			contractCreate({ loanAmount: '={{ "250.50" }}', durationDays: '={{ "14" }}' }),
			{ credential: borrower() },
		);
		expect(sandbox.requests[0].body).toMatchObject({ loan_amount: 250.5, duration_days: 14 });
	});

	it('merges extra JSON body fields, and checks those the node sends itself like its own parameters', async () => {
		const extra = {
			borrower_npub: NPUB,
			loan_type: 'StableCoin',
			borrower_pk: PUBLIC_KEY,
			id: OFFER,
		};
		const { error } = await runWorkflow(
			contractCreate({ additionalFields: { extraBodyFields: JSON.stringify(extra) } }),
			{
				credential: borrower(),
			},
		);
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].body).toEqual({
			loan_id: OFFER,
			id: OFFER,
			loan_amount: 1500,
			duration_days: 30,
			loan_type: 'StableCoin',
			borrower_pk: PUBLIC_KEY,
			borrower_npub: NPUB,
			client_contract_id: expect.stringMatching(UUID),
		});
	});

	it('keeps working for a workflow that put the live fields into Extra Body Fields before the node had them', async () => {
		sandbox.configure({ dialect: 'live' });
		const extra = {
			id: OFFER,
			borrower_btc_address: COLLATERAL_ADDRESS,
			borrower_pk: PUBLIC_KEY,
			borrower_derivation_path: DERIVATION_PATH,
			loan_type: 'StableCoin',
			borrower_loan_address: STABLECOIN_ADDRESS,
		};
		const { output, error } = await runWorkflow(
			contractCreate({ additionalFields: { extraBodyFields: JSON.stringify(extra) } }),
			{
				credential: borrower(),
			},
		);
		expect(error).toBeUndefined();
		expect(output(NODE)[0].json).toMatchObject({
			status: 'Requested',
			borrower_btc_address: COLLATERAL_ADDRESS,
		});
		expect(posted()[0].body).toMatchObject({
			...extra,
			collateral_address: COLLATERAL_ADDRESS,
			repayment_address: STABLECOIN_ADDRESS,
		});
	});

	it('creates one contract per item, each with its own idempotency key', async () => {
		sandbox.configure({ idempotency: true });
		const { output } = await runWorkflow(contractCreate({ loanAmount: '={{ $json.amount }}' }), {
			credential: borrower(),
			items: [{ amount: 100 }, { amount: 200 }, { amount: 300 }],
		});
		expect(output('Lendasat Borrower').map((item) => item.json.loan_amount)).toEqual([
			100, 200, 300,
		]);
		const keys = sandbox.requests.map((request) => request.headers['idempotency-key']);
		expect(new Set(keys).size).toBe(3);
		expect(sandbox.stats().contractsCreated).toBe(3);
	});
});

describe('Contract → Create: the Nostr key and the Moon card', () => {
	it('sends Nostr Public Key and Moon Card ID as borrower_npub and moon_card_id', async () => {
		const { error } = await runWorkflow(
			contractCreate({ additionalFields: { borrowerNpub: ` ${NPUB} `, moonCardId: MOON_CARD } }),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].body).toMatchObject({
			borrower_npub: NPUB,
			moon_card_id: MOON_CARD,
		});
	});

	it('takes them from Extra Body Fields too, where they must agree with the parameters', async () => {
		const agreeing = await runWorkflow(
			contractCreate({
				additionalFields: {
					borrowerNpub: NPUB,
					extraBodyFields: JSON.stringify({ borrower_npub: NPUB, moon_card_id: MOON_CARD }),
				},
			}),
			{ credential: borrower() },
		);
		expect(agreeing.error).toBeUndefined();
		expect(sandbox.requests[0].body).toMatchObject({
			borrower_npub: NPUB,
			moon_card_id: MOON_CARD,
		});

		sandbox.reset();
		const other = '4a2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
		const { error } = await runWorkflow(
			contractCreate({
				additionalFields: {
					moonCardId: MOON_CARD,
					extraBodyFields: JSON.stringify({ moon_card_id: other }),
				},
			}),
			{ credential: borrower() },
		);
		expect(error?.message).toBe('Invalid Extra Body Fields (JSON) [item 0]');
		expect(describedBy(error)).toContain('the node already sends moon_card_id from Moon Card ID');
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['an npub with a typo', { borrowerNpub: `${NPUB.slice(0, -1)}q` }, 'Nostr Public Key (Npub)'],
		['a Moon card ID that is no UUID', { moonCardId: 'card-42' }, 'Moon Card ID'],
		[
			'a Moon card ID in Extra Body Fields that is no UUID',
			{ extraBodyFields: '{"moon_card_id": 42}' },
			'Extra Body Fields (JSON)',
		],
	])('refuses %s before sending anything', async (_case, additionalFields, field) => {
		const { error } = await runWorkflow(contractCreate({ additionalFields }), {
			credential: borrower(),
		});
		expect(error?.message).toBe(`Invalid ${field} [item 0]`);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['Nostr Public Key (Npub)', { borrowerNpub: NSEC }],
		['Extra Body Fields (JSON)', { extraBodyFields: JSON.stringify({ borrower_npub: NSEC }) }],
	])('refuses an nsec in %s without repeating it', async (field, additionalFields) => {
		const { error } = await runWorkflow(contractCreate({ additionalFields }), {
			credential: borrower(),
		});
		expect(error?.message).toBe(`Invalid ${field} [item 0]`);
		expect(describedBy(error)).toContain('This is a Nostr private key (nsec1…)');
		expect(`${error?.message} ${describedBy(error)}`).not.toContain(NSEC.slice(5, 20));
		expect(sandbox.requests).toHaveLength(0);
	});

	it('says when Lendasat does not know the Moon card (live: 404 "Card not found")', async () => {
		sandbox.configure({ dialect: 'live' });
		const { error } = await runWorkflow(
			contractCreate({
				additionalFields: { ...LIVE_FIELDS, loanType: 'PayWithMoon', moonCardId: MOON_CARD },
			}),
			{ credential: borrower() },
		);
		expect(error?.message).toBe('Card not found (HTTP 404)');
		expect(describedBy(error)).toMatch(/no Moon card of this account has that ID.*Card not found/);
		expect(posted()[0].body).toMatchObject({ moon_card_id: MOON_CARD });
	});
});

describe('Contract → Create: the idempotency key', () => {
	it('is the same for an item in every run of the same execution, and differs across items', async () => {
		const run = () =>
			runWorkflow(contractCreate(), {
				credential: borrower(),
				executionId: '4711',
				items: [{}, {}],
			});
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
		const first = await runWorkflow(contractCreate(), {
			credential: borrower(),
			executionId: '4712',
		});
		const again = await runWorkflow(contractCreate(), {
			credential: borrower(),
			executionId: '4712',
		});
		expect(again.output('Lendasat Borrower')[0].json.id).toBe(
			first.output('Lendasat Borrower')[0].json.id,
		);
		expect(sandbox.stats().contractsCreated).toBe(1);
	});

	it('can be set by an expression', async () => {
		await runWorkflow(
			contractCreate({ options: { idempotencyKey: '={{ "order-" + $json.order }}' } }),
			{
				credential: borrower(),
				items: [{ order: 1042 }],
			},
		);
		const post = sandbox.requests.find((request) => request.method === 'POST');
		expect(post?.headers['idempotency-key']).toBe('order-1042');
	});

	it('can be turned off', async () => {
		await runWorkflow(contractCreate({ options: { sendIdempotencyKey: false } }), {
			credential: borrower(),
		});
		expect(sandbox.requests[0].headers['idempotency-key']).toBeUndefined();
	});

	it('must be printable and at most 255 characters', async () => {
		const { error } = await runWorkflow(
			contractCreate({ options: { idempotencyKey: 'has space' } }),
			{ credential: borrower() },
		);
		expect(error?.message).toBe('Invalid Idempotency Key [item 0]');
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract → Create: bad input is refused before any request', () => {
	const cases: Array<[string, Record<string, unknown>, string, Partial<TestCredential>?]> = [
		[
			'an offer ID from an expression that is not a UUID',
			{ loanId: { __rl: true, mode: 'id', value: '={{ "offer-1" }}' } },
			'Invalid Loan Offer [item 0]',
		],
		['a zero amount', { loanAmount: 0 }, 'Invalid Loan Amount [item 0]'],
		['a negative amount', { loanAmount: -5 }, 'Invalid Loan Amount [item 0]'],
		[
			'an amount that is not a number',
			{ loanAmount: '={{ "lots" }}' },
			'Invalid Loan Amount [item 0]',
		],
		['an infinite amount', { loanAmount: '={{ Infinity }}' }, 'Invalid Loan Amount [item 0]'],
		['an amount in tenths of a cent', { loanAmount: 0.001 }, 'Invalid Loan Amount [item 0]'],
		['an amount with three decimals', { loanAmount: 1500.125 }, 'Invalid Loan Amount [item 0]'],
		['an amount beyond any loan', { loanAmount: 1.79e308 }, 'Invalid Loan Amount [item 0]'],
		['a zero duration', { durationDays: 0 }, 'Invalid Duration (Days) [item 0]'],
		['a fractional duration', { durationDays: 1.5 }, 'Invalid Duration (Days) [item 0]'],
		[
			'a mistyped Bitcoin address',
			{ additionalFields: { collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr' } },
			'Invalid Collateral Address [item 0]',
		],
		[
			'a base58 address with a bad checksum',
			{ additionalFields: { collateralAddress: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb' } },
			'Invalid Collateral Address [item 0]',
		],
		[
			'a mainnet address in development',
			{ additionalFields: { collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' } },
			'Invalid Collateral Address [item 0]',
			{ environment: 'development' },
		],
		[
			'a test-network address in production',
			{ additionalFields: { collateralAddress: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' } },
			'Invalid Collateral Address [item 0]',
			{ environment: 'production' },
		],
		[
			'an empty repayment address',
			{ additionalFields: { repaymentAddress: '' } },
			'Invalid Repayment Address [item 0]',
		],
		[
			'extra JSON that does not parse',
			{ additionalFields: { extraBodyFields: '{"a": ' } },
			'Invalid Extra Body Fields (JSON) [item 0]',
		],
		[
			'extra JSON that is not an object',
			{ additionalFields: { extraBodyFields: '[1, 2]' } },
			'Invalid Extra Body Fields (JSON) [item 0]',
		],
		[
			'extra JSON overriding a field of the node',
			{ additionalFields: { extraBodyFields: '{"loan_amount": 5}' } },
			'Invalid Extra Body Fields (JSON) [item 0]',
		],
		[
			'extra JSON naming another offer as id',
			{ additionalFields: { extraBodyFields: '{"id": "0ffe0000-0000-4000-8000-000000000002"}' } },
			'Invalid Extra Body Fields (JSON) [item 0]',
		],
		[
			'a near-miss of a field of the node in extra JSON',
			{ additionalFields: { extraBodyFields: '{"Loan_Amount": 5}' } },
			'Invalid Extra Body Fields (JSON) [item 0]',
		],
		[
			'a zero-width variant of a field of the node',
			{ additionalFields: { extraBodyFields: '{"loan\u200b_amount": 5}' } },
			'Invalid Extra Body Fields (JSON) [item 0]',
		],
		[
			'a malformed public key in extra JSON',
			{ additionalFields: { extraBodyFields: '{"borrower_pk": "02ab"}' } },
			'Invalid Extra Body Fields (JSON) [item 0]',
		],
		[
			'a public key that is not compressed hex',
			{ additionalFields: { borrowerPublicKey: '02ab' } },
			'Invalid Borrower Public Key [item 0]',
		],
		[
			'a public key off the curve',
			{ additionalFields: { borrowerPublicKey: `02${'0'.repeat(63)}5` } },
			'Invalid Borrower Public Key [item 0]',
		],
		[
			'a derivation path without m/',
			{ additionalFields: { derivationPath: "84'/0'/0'/0/0" } },
			'Invalid Derivation Path [item 0]',
		],
		[
			'a derivation path with a bad step',
			{ additionalFields: { derivationPath: "m/84'/x/0" } },
			'Invalid Derivation Path [item 0]',
		],
		[
			'a loan type the API does not have',
			{ additionalFields: { loanType: '={{ "Stablecoin" }}' } },
			'Invalid Loan Type [item 0]',
		],
		[
			'a client contract ID that is not a UUID',
			{ additionalFields: { clientContractId: 'order-1042' } },
			'Invalid Client Contract ID [item 0]',
		],
	];

	it.each(cases)('%s', async (_case, parameters, message, credential = {}) => {
		const { error } = await runWorkflow(contractCreate(parameters), {
			credential: borrower(credential),
		});
		expect(error?.message).toBe(message);
		expect((error as { description?: string }).description).toEqual(expect.any(String));
		expect(sandbox.requests).toHaveLength(0);
	});

	it('a money field keeps cents: the error names the field and shows an amount that works', async () => {
		const { error } = await runWorkflow(contractCreate({ loanAmount: 0.001 }), {
			credential: borrower(),
		});
		expect((error as { description?: string }).description).toBe(
			'Loan Amount: Must have at most 2 decimal places (cents), like 250 or 250.5, got 0.001.',
		);
	});

	it('sends an amount computed in an expression rounded to cents', async () => {
		const { error } = await runWorkflow(contractCreate({ loanAmount: '={{ 0.1 + 1499.2 }}' }), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect((sandbox.requests[0].body as { loan_amount: number }).loan_amount).toBe(1499.3);
	});

	it('leaves a typed offer ID that is not a UUID to n8n, which flags the field before running', async () => {
		const { error } = await runWorkflow(
			contractCreate({ loanId: { __rl: true, mode: 'id', value: 'offer-1' } }),
			{ credential: borrower() },
		);
		expect(error?.message).toMatch(/Not a loan offer ID|UUID/);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('names the network a wrong-network address belongs to', async () => {
		const { error } = await runWorkflow(
			contractCreate({
				additionalFields: { collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' },
			}),
			{ credential: borrower({ environment: 'development' }) },
		);
		expect((error as { description?: string }).description).toMatch(/mainnet.*Development/s);
	});

	it.each([
		['Production', { environment: 'production' }],
		['Development', { environment: 'development' }],
		[
			'a custom URL on lendasat.com',
			{ environment: 'custom', baseUrl: 'https://apiborrow.lendasat.com' },
		],
	] as const)(
		"refuses on Lendasat's own backend (%s) a request without the fields it needs, naming each",
		async (_case, credential) => {
			const { error } = await runWorkflow(
				contractCreate({ additionalFields: { repaymentAddress: STABLECOIN_ADDRESS } }),
				{
					credential: borrower(credential),
				},
			);
			expect(error?.message).toBe(
				'Lendasat needs Collateral Address, Borrower Public Key, Derivation Path, Loan Type to create a contract [item 0]',
			);
			expect(describedBy(error)).toContain('borrower_pk');
			expect(describedBy(error)).toContain('Add them in Additional Fields');
		},
	);

	it('refuses a partner master key: contracts need a borrower key', async () => {
		const { error } = await runWorkflow(contractCreate(), {
			credential: borrower({ keyType: 'master', apiKey: sandbox.keys.master }),
		});
		expect(error?.message).toBe(
			'Contract → Create needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract → Create: API errors are mapped', () => {
	it('explains INVALID_AMOUNT with the offer limits', async () => {
		const { error } = await runWorkflow(contractCreate({ loanAmount: 50 }), {
			credential: borrower(),
		});
		expect(error?.message).toBe(
			'The loan amount is outside what the offer allows (HTTP 400, INVALID_AMOUNT)',
		);
		expect((error as { description?: string }).description).toContain(
			'$50 not in range $100-$10000',
		);
		expect((error as { httpCode?: string }).httpCode).toBe('400');
	});

	it('names the loan offer that does not exist', async () => {
		const missing = '0ffe0000-0000-4000-8000-00000000ffff';
		const { error } = await runWorkflow(
			contractCreate({ loanId: { __rl: true, mode: 'id', value: missing } }),
			{ credential: borrower() },
		);
		expect(error?.message).toBe(`Not found: loan offer ${missing} (HTTP 404, OFFER_NOT_FOUND)`);
	});

	it('explains a rejected key and never shows it anywhere', async () => {
		const wrongKey = 'lndst_sk_0123456789ab_ThisKeyDoesNotExist42';
		const { error, run } = await runWorkflow(contractCreate(), {
			credential: borrower({ apiKey: wrongKey }),
		});
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect((error as { description?: string }).description).toContain(
			'this operation needs a Borrower Key',
		);
		expect(everythingVisible(run, error)).not.toContain(wrongKey);
		expect(everythingVisible(run, error)).not.toContain('ThisKeyDoesNotExist42');
	});

	it("maps the live backend's {message} errors", async () => {
		sandbox.configure({ dialect: 'live' });
		const { error } = await runWorkflow(
			contractCreate({ loanAmount: 50, additionalFields: LIVE_FIELDS }),
			{ credential: borrower() },
		);
		expect(error?.message).toBe('Lendasat rejected the request (HTTP 400)');
		expect((error as { description?: string }).description).toContain(
			'Invalid loan amount: $50 not in range $100-$10000',
		);
	});

	it.each([
		[
			'an HTML page from a proxy',
			'502-html',
			/Lendasat is temporarily unavailable \(HTTP 502\)/,
			/502 Bad Gateway/,
		],
		[
			'truncated JSON',
			'truncated-json',
			/Lendasat had an internal error .*\(HTTP 500\)/,
			/Server answered: "\{/,
		],
		[
			'an empty body',
			'empty-body',
			/Lendasat had an internal error .*\(HTTP 500\)/,
			/no explanation with status 500/,
		],
	] as const)('reads %s without crashing', async (_case, kind, message, description) => {
		sandbox.configure({ faults: [{ kind, method: 'POST', path: '/api/contracts', times: 10 }] });
		const { error } = await runWorkflow(contractCreate({ options: { maxRetries: 0 } }), {
			credential: borrower(),
		});
		expect(error?.message).toMatch(message);
		expect((error as { description?: string }).description).toMatch(description);
	});
});

describe("Contract → Create on Lendasat's backend (the sandbox's live dialect)", () => {
	beforeEach(() => sandbox.configure({ dialect: 'live' }));

	const liveCreate = (parameters: Record<string, unknown> = {}, settings = {}) =>
		contractCreate({ additionalFields: LIVE_FIELDS, ...parameters }, settings);

	/** The contracts this test created, as the sandbox stores them. */
	const created = () =>
		[...sandbox.state.contracts.values()]
			.map((entry) => entry.contract)
			.filter((c) => !(Object.values(CONTRACTS) as string[]).includes(c.id));

	it('sends the full body the live backend reads and returns its Requested contract', async () => {
		const { output, error } = await runWorkflow(liveCreate(), { credential: borrower() });
		expect(error).toBeUndefined();
		const [request] = posted();
		expect(request.body).toEqual({
			...BOTH_ADDRESSES_BODY,
			borrower_pk: PUBLIC_KEY,
			borrower_derivation_path: DERIVATION_PATH,
			loan_type: 'StableCoin',
		});
		const [contract] = output(NODE);
		expect(contract.json).toMatchObject({
			status: 'Requested',
			client_contract_id: (request.body as { client_contract_id: string }).client_contract_id,
			borrower_pk: PUBLIC_KEY,
		});
	});

	it('gets Approved straight away from an offer that accepts automatically', async () => {
		const { output } = await runWorkflow(
			liveCreate({ loanId: SEED_IDS.offers.autoAccept, loanAmount: 1000 }),
			{ credential: borrower() },
		);
		expect(output(NODE)[0].json.status).toBe('Approved');
	});

	it("maps the live backend's 'missing field' rejection to the node's field", async () => {
		const { collateralAddress, repaymentAddress, derivationPath, loanType } = LIVE_FIELDS;
		const { error } = await runWorkflow(
			contractCreate({
				additionalFields: { collateralAddress, repaymentAddress, derivationPath, loanType },
			}),
			{
				credential: borrower(),
			},
		);
		expect(error?.message).toBe('Lendasat needs Borrower Public Key (borrower_pk) (HTTP 422)');
		expect(describedBy(error)).toContain('set Borrower Public Key in Additional Fields');
		expect((error as { httpCode?: string }).httpCode).toBe('422');
	});

	it.each([
		['a 503', '503'],
		['a connection reset', 'reset'],
	] as const)(
		'after %s sent once the contract was stored, returns that contract and creates no second one',
		async (_case, kind) => {
			sandbox.configure({
				faults: [{ kind, method: 'POST', path: '/api/contracts', after: true }],
			});
			const { output, error } = await runWorkflow(liveCreate(), { credential: borrower() });
			expect(error).toBeUndefined();
			expect(created()).toHaveLength(1);
			expect(output(NODE).map((item) => item.json.id)).toEqual([created()[0].id]);
			expect(received()).toEqual([OFFER_READ, 'POST /api/contracts', 'GET /api/contracts']);
		},
	);

	it('returns the stored contract when the server answered success in a form the node cannot use', async () => {
		sandbox.configure({
			faults: [
				{ kind: 'bad-200', body200: 'html', method: 'POST', path: '/api/contracts', after: true },
			],
		});
		const { output, error } = await runWorkflow(liveCreate(), { credential: borrower() });
		expect(error).toBeUndefined();
		expect(created()).toHaveLength(1);
		expect(output(NODE).map((item) => item.json.id)).toEqual([created()[0].id]);
		expect(received()).toEqual([OFFER_READ, 'POST /api/contracts', 'GET /api/contracts']);
	});

	it('sends again after a 503 that came before anything was stored, once the lookup found nothing', async () => {
		sandbox.configure({ faults: [{ kind: '503', method: 'POST', path: '/api/contracts' }] });
		const { output, error } = await runWorkflow(liveCreate({ options: { initialDelay: 1 } }), {
			credential: borrower(),
		});
		expect(error).toBeUndefined();
		expect(created()).toHaveLength(1);
		expect(output(NODE)[0].json.id).toBe(created()[0].id);
		expect(received()).toEqual([
			OFFER_READ,
			'POST /api/contracts',
			'GET /api/contracts',
			'POST /api/contracts',
			// The first request may still have been stored late: one more look for a second contract.
			'GET /api/contracts',
		]);
		const [first, second] = posted();
		expect(second.body).toEqual(first.body);
	});

	it('does not send again when the lookup fails too, and names the client_contract_id to look for', async () => {
		sandbox.configure({
			faults: [
				{ kind: '503', method: 'POST', path: '/api/contracts', after: true },
				{ kind: '500', method: 'GET', path: '/api/contracts', times: 20 },
			],
		});
		const { error } = await runWorkflow(liveCreate(), { credential: borrower() });
		const clientId = (posted()[0].body as { client_contract_id: string }).client_contract_id;
		expect(error?.message).toBe('Lendasat is temporarily unavailable (HTTP 503)');
		expect(describedBy(error)).toContain(`It may have been created: looking for it failed`);
		expect(describedBy(error)).toContain(clientId);
		expect(received().filter((request) => request === 'POST /api/contracts')).toHaveLength(1);
	});

	it.each([
		['text', 'order-1042', 'order-1042'],
		['a number from an expression', '={{ $json.order }}', '1042'],
	])(
		'with an Idempotency Key given as %s, a re-run of the workflow returns the contract the first run created',
		async (_case, idempotencyKey, header) => {
			const workflow = liveCreate({ options: { idempotencyKey } });
			const first = await runWorkflow(workflow, {
				credential: borrower(),
				items: [{ order: 1042 }],
			});
			const again = await runWorkflow(workflow, {
				credential: borrower(),
				items: [{ order: 1042 }],
			});
			expect(first.error).toBeUndefined();
			expect(again.error).toBeUndefined();
			expect(created()).toHaveLength(1);
			expect(again.output(NODE)[0].json.id).toBe(first.output(NODE)[0].json.id);
			expect(posted()[0].headers['idempotency-key']).toBe(header);
			// The first run looked before and after creating; the re-run only looked (the offer's
			// collateral kind, then the contract).
			expect(received()).toEqual([
				OFFER_READ,
				'GET /api/contracts',
				'POST /api/contracts',
				'GET /api/contracts',
				OFFER_READ,
				'GET /api/contracts',
			]);
		},
	);

	it('gives two items of one run with the same key one contract', async () => {
		const { output } = await runWorkflow(
			liveCreate({ options: { idempotencyKey: '={{ $json.order }}' } }),
			{
				credential: borrower(),
				items: [{ order: 7 }, { order: 7 }, { order: 8 }],
			},
		);
		expect(created()).toHaveLength(2);
		const ids = output(NODE).map((item) => item.json.id);
		expect(ids[0]).toBe(ids[1]);
		expect(ids[2]).not.toBe(ids[0]);
	});

	it('with n8n Retry On Fail on, looks for the contract of the automatic key before sending', async () => {
		const workflow = liveCreate({}, { retryOnFail: true });
		await runWorkflow(workflow, { credential: borrower(), executionId: '4713' });
		const again = await runWorkflow(workflow, { credential: borrower(), executionId: '4713' });
		expect(again.error).toBeUndefined();
		expect(created()).toHaveLength(1);
	});

	it('creates 1,000 contracts with no duplicate while 5 % of the answers fail after the contract was stored', async () => {
		sandbox.configure({
			faults: [
				{ kind: '503', method: 'POST', path: '/api/contracts', after: true, probability: 0.025 },
				{ kind: 'reset', method: 'POST', path: '/api/contracts', after: true, probability: 0.025 },
			],
		});
		// The live backend takes each request's amount off the offer: this one can lend to all of them.
		const offer = sandbox.admin.addOffer({ loan_amount_min: 100, loan_amount_max: 1e12 });
		const items = Array.from({ length: 1000 }, (_, order) => ({ order }));
		const workflow = liveCreate({
			loanId: { __rl: true, mode: 'id', value: offer.id },
			options: { initialDelay: 1 },
		});
		const { output, error } = await runWorkflow(workflow, { credential: borrower(), items });
		expect(error).toBeUndefined();
		const ids = output(NODE).map((item) => item.json.id);
		expect(ids).toHaveLength(1000);
		expect(new Set(ids).size).toBe(1000);
		expect(created()).toHaveLength(1000);
		expect(sandbox.stats().duplicateContracts).toBe(0);
		expect(sandbox.stats().faultsInjected).toBeGreaterThan(20);
		// Lookups only after failures, and shared: well under one list request per item.
		const lookups = received().filter((request) => request === 'GET /api/contracts').length;
		expect(lookups).toBeLessThan(items.length / 2);
	});
});

describe('Contract → Create across executions: one contract per key', () => {
	const liveCreate = (parameters: Record<string, unknown> = {}) =>
		contractCreate({ additionalFields: LIVE_FIELDS, ...parameters });

	/** The contracts carrying the client_contract_id derived from `key`, as the sandbox stores them. */
	const withKey = (key: string) =>
		[...sandbox.state.contracts.values()]
			.map((entry) => entry.contract)
			.filter((contract) => contract.client_contract_id === clientContractIdFor(key));
	const open = (contracts: Contract[]) =>
		contracts.filter((contract) => contract.status !== 'Cancelled');
	const count = (request: string) => received().filter((sent) => sent === request).length;

	/**
	 * Executions that start together: each one's first look at the list is answered only after
	 * all of them looked (a slow list), so that each finds nothing and sends, as two workers
	 * handling a webhook delivered twice would.
	 */
	const slowFirstLooks = (times: number) => ({
		kind: 'slow' as const,
		method: 'GET',
		path: '/api/contracts',
		after: true,
		delayMs: 400,
		times,
	});

	it.each([2, 20])(
		'%i executions at once with the same Idempotency Key on the live backend leave one live contract, and all output it',
		async (executions) => {
			sandbox.configure({ dialect: 'live', faults: [slowFirstLooks(executions)] });
			const offer = sandbox.admin.addOffer({ loan_amount_min: 100, loan_amount_max: 1e12 });
			const workflow = liveCreate({
				loanId: byId(offer.id),
				options: { idempotencyKey: 'order-1042' },
			});
			const runs = await Promise.all(
				Array.from({ length: executions }, (_, index) =>
					runWorkflow(workflow, { credential: borrower(), executionId: String(500 + index) }),
				),
			);
			expect(runs.map(({ error }) => error)).toEqual(runs.map(() => undefined));
			// Each execution created one: the live backend has no idempotency.
			const contracts = withKey('order-1042');
			expect(contracts).toHaveLength(executions);
			expect(sandbox.stats().duplicateContracts).toBe(executions - 1);
			// The earliest stays; every other one was cancelled, once.
			const [kept] = open(contracts);
			expect(open(contracts)).toEqual([kept]);
			const earliest = [...contracts].sort((a, b) =>
				a.created_at === b.created_at
					? a.id.localeCompare(b.id)
					: a.created_at.localeCompare(b.created_at),
			)[0];
			expect(kept.id).toBe(earliest.id);
			const cancelled = contracts
				.filter((contract) => contract.id !== kept.id)
				.sort((a, b) =>
					a.created_at === b.created_at
						? a.id.localeCompare(b.id)
						: a.created_at.localeCompare(b.created_at),
				)
				.map((contract) => contract.id);
			const outputs = runs.map(({ output }) => output(NODE)[0].json);
			for (const json of outputs) {
				expect(json).toMatchObject({ id: kept.id, status: 'Requested', loan_amount: 1500 });
				// Each names the duplicates it knows to be cancelled: its own at least.
				expect(cancelled).toEqual(expect.arrayContaining(json.cancelled_duplicates as string[]));
			}
			expect(outputs.map((json) => json.cancelled_duplicates).flat()).toEqual(
				expect.arrayContaining(cancelled),
			);
			// Each extra is cancelled by the execution that created it and by the one that keeps its
			// own: about two cancels per extra, not one per execution and extra.
			const cancels = received().filter((request) => request.startsWith('DELETE'));
			expect(cancels.length).toBeGreaterThanOrEqual(cancelled.length);
			expect(cancels.length).toBeLessThanOrEqual(2 * cancelled.length);
		},
	);

	it('an extra contract that is already funded cannot be cancelled: the item fails naming every contract with the key', async () => {
		sandbox.configure({
			dialect: 'live',
			// The answer to the create comes late, and meanwhile another execution's contract with the
			// same key was created and funded.
			faults: [{ kind: 'slow', method: 'POST', path: '/api/contracts', after: true, delayMs: 300 }],
		});
		const workflow = liveCreate({ options: { idempotencyKey: 'order-7' } });
		const running = runWorkflow(workflow, { credential: borrower() });
		const ours = await waitUntil(() => withKey('order-7')[0]);
		const funded = sandbox.admin.createContract(sandbox.keys.borrower, {
			client_contract_id: clientContractIdFor('order-7'),
			status: 'PrincipalGiven',
			created_at: new Date(Date.parse(ours.created_at) + 1000).toISOString(),
		});
		const { error } = await running;
		expect(error?.message).toBe(
			'More than one contract was created for this key, and one cannot be cancelled [item 0]',
		);
		const description = describedBy(error);
		expect(description).toContain(
			`Contracts with client_contract_id ${clientContractIdFor('order-7')}: ${ours.id} (Requested, created ${ours.created_at}, the one the node keeps); ${funded.id} (PrincipalGiven, created ${funded.created_at}).`,
		);
		expect(description).toContain(`${funded.id}: it is PrincipalGiven`);
		expect(description).toContain('Contract → Cancel');
		// Nothing was cancelled: the funded one cannot be, and the earliest is the one kept.
		expect(count(`DELETE /api/contracts/${funded.id}`)).toBe(0);
		expect(open(withKey('order-7'))).toHaveLength(2);

		// Running it again finds both and fails the same way, without creating a third.
		const again = await runWorkflow(workflow, { credential: borrower() });
		expect(again.error?.message).toBe(error?.message);
		expect(withKey('order-7')).toHaveLength(2);
	});

	it('a cancel refused because another execution cancelled first counts as done', async () => {
		sandbox.configure({ dialect: 'live' });
		const clientId = clientContractIdFor('order-9');
		const at = (seconds: number) => new Date(Date.now() - 60_000 + seconds * 1000).toISOString();
		const first = sandbox.admin.createContract(sandbox.keys.borrower, {
			client_contract_id: clientId,
			created_at: at(0),
		});
		const second = sandbox.admin.createContract(sandbox.keys.borrower, {
			client_contract_id: clientId,
			created_at: at(1),
		});
		// The list still shows the second one Requested when this execution reads it; it is cancelled
		// just before this execution's cancel arrives.
		sandbox.configure({
			faults: [{ kind: 'slow', method: 'GET', path: '/api/contracts', after: true, delayMs: 200 }],
		});
		const running = runWorkflow(liveCreate({ options: { idempotencyKey: 'order-9' } }), {
			credential: borrower(),
		});
		await waitUntil(() => received().includes('GET /api/contracts'));
		sandbox.admin.setContractStatus(second.id, 'Cancelled');
		const { output, error } = await running;
		expect(error).toBeUndefined();
		expect(output(NODE)[0].json).toMatchObject({ id: first.id, cancelled_duplicates: [second.id] });
		expect(received()).toEqual([
			OFFER_READ, // the offer's collateral kind, for the Collateral Address
			'GET /api/contracts',
			`DELETE /api/contracts/${second.id}`, // 400: "Cannot cancel a contract request with status Cancelled"
			`GET /api/contracts/${second.id}`,
		]);
		expect(count('POST /api/contracts')).toBe(0);
	});

	it('without a collision, costs one more walk of the list for the whole run: here one request for 50 items', async () => {
		sandbox.configure({ dialect: 'live' });
		const offer = sandbox.admin.addOffer({ loan_amount_min: 100, loan_amount_max: 1e12 });
		const items = Array.from({ length: 50 }, (_, order) => ({ order }));
		const { output, error } = await runWorkflow(
			liveCreate({
				loanId: byId(offer.id),
				options: { idempotencyKey: '={{ "order-" + $json.order }}' },
			}),
			{ credential: borrower(), items },
		);
		expect(error).toBeUndefined();
		expect(output(NODE)).toHaveLength(50);
		expect(output(NODE).every((item) => item.json.cancelled_duplicates === undefined)).toBe(true);
		expect(count('POST /api/contracts')).toBe(50);
		// One look before sending and one after, each shared by all 50 items.
		expect(count('GET /api/contracts')).toBe(2);
		const lastLook = sandbox.requests.length - 1;
		expect(received()[lastLook]).toBe('GET /api/contracts');
		expect(count('GET /api/contracts')).toBeLessThan(items.length / 10);
	});

	it('on a server that lists no contracts, checks nothing more after creating', async () => {
		const specServer = await startSpecServerWithoutList();
		try {
			const { output, error } = await runWorkflow(
				contractCreate({ options: { idempotencyKey: 'order-1' } }),
				{ credential: borrower({ baseUrl: specServer.url }), items: [{}, {}] },
			);
			expect(error).toBeUndefined();
			expect(output(NODE).map((item) => item.json.id)).toEqual(['spec-1', 'spec-1']);
			// The first look learnt that there is no list (404): nobody asks again. The second item
			// with the same key is sent with the same Idempotency-Key, which such a server honours.
			expect(specServer.received).toEqual([
				'GET /api/contracts',
				'POST /api/contracts',
				'POST /api/contracts',
			]);
		} finally {
			await specServer.close();
		}
	});

	it("on the specification's server honouring Idempotency-Key, executions at once get one contract and nothing is cancelled", async () => {
		sandbox.configure({ idempotency: true, faults: [slowFirstLooks(2)] });
		const workflow = contractCreate({ options: { idempotencyKey: 'order-77' } });
		const [a, b] = await Promise.all([
			runWorkflow(workflow, { credential: borrower(), executionId: '601' }),
			runWorkflow(workflow, { credential: borrower(), executionId: '602' }),
		]);
		expect(a.output(NODE)[0].json.id).toBe(b.output(NODE)[0].json.id);
		expect(a.output(NODE)[0].json.cancelled_duplicates).toBeUndefined();
		expect(sandbox.stats().contractsCreated).toBe(1);
		expect(count('POST /api/contracts')).toBe(2);
		expect(received().some((request) => request.startsWith('DELETE'))).toBe(false);
	});
});

/** Polls `check` every 10 ms until it gives a value (at most 5 s). */
async function waitUntil<T>(check: () => T | undefined | false): Promise<T> {
	for (let waited = 0; waited < 5000; waited += 10) {
		const value = check();
		if (value) return value;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	throw new Error('timed out');
}

/**
 * A server as the specification shows it: POST /api/contracts honours Idempotency-Key (the same key
 * gets the same contract) and there is no contract list (404).
 */
async function startSpecServerWithoutList() {
	const received: string[] = [];
	const server = http.createServer((request, response) => {
		received.push(`${request.method} ${request.url?.split('?')[0]}`);
		request.resume();
		request.on('end', () => {
			const post = request.method === 'POST';
			response.writeHead(post ? 200 : 404, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify(
					post
						? {
								id: 'spec-1',
								status: 'pending',
								loan_amount: 1500,
								created_at: new Date().toISOString(),
							}
						: { error: 'Not found', code: 'NOT_FOUND', details: '' },
				),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe('Contract → Create on a specification server that honours Idempotency-Key', () => {
	it('a re-run with the same Idempotency Key returns the first contract', async () => {
		sandbox.configure({ idempotency: true });
		const workflow = contractCreate({ options: { idempotencyKey: 'order-77' } });
		const first = await runWorkflow(workflow, { credential: borrower() });
		const again = await runWorkflow(workflow, { credential: borrower() });
		expect(again.output(NODE)[0].json.id).toBe(first.output(NODE)[0].json.id);
		expect(sandbox.stats().contractsCreated).toBe(1);
	});
});

describe('Contract → Create: continue on fail and the error output', () => {
	const items = [{ amount: 1500 }, { amount: 50 }, { amount: 2500 }];

	it('keeps going with Continue On Fail; the failed item carries its error and pairedItem', async () => {
		const { output, error } = await runWorkflow(
			contractCreate({ loanAmount: '={{ $json.amount }}' }, { onError: 'continueRegularOutput' }),
			{
				credential: borrower(),
				items,
			},
		);
		expect(error).toBeUndefined();
		const out = output('Lendasat Borrower');
		expect(out).toHaveLength(3);
		expect(out[0].json.status).toBe('pending');
		expect(out[1].json.error).toEqual(expect.stringContaining('outside what the offer allows'));
		expect(out.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('routes failures to the error output with their pairedItem', async () => {
		const { output } = await runWorkflow(
			contractCreate({ loanAmount: '={{ $json.amount }}' }, { onError: 'continueErrorOutput' }),
			{
				credential: borrower(),
				items,
			},
		);
		expect(output('Lendasat Borrower', 0).map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 2 },
		]);
		expect(output('Lendasat Borrower', 1).map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
	});

	it('does the same for input refused before sending', async () => {
		const { output } = await runWorkflow(
			contractCreate({ loanAmount: '={{ $json.amount }}' }, { onError: 'continueErrorOutput' }),
			{
				credential: borrower(),
				items: [{ amount: 1500 }, { amount: -1 }],
			},
		);
		expect(output('Lendasat Borrower', 1)).toEqual([
			expect.objectContaining({
				pairedItem: { item: 1 },
				json: expect.objectContaining({ error: expect.stringContaining('Invalid Loan Amount') }),
			}),
		]);
	});
});

describe('Contract → Get: a borrower looks at one contract', () => {
	it('returns the simplified contract by default, asking only for that contract', async () => {
		const { items, error } = await contract('get', { contractId: byId(CONTRACTS.principalGiven) });

		expect(error).toBeUndefined();
		expect(items).toEqual([simplified(served(CONTRACTS.principalGiven))]);
		expect(Object.keys(items[0])).toEqual(
			expect.arrayContaining(['id', 'status', 'contract_address', 'expiry']),
		);
		expect(items[0]).not.toHaveProperty('installments');

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe(
			`GET /api/contracts/${CONTRACTS.principalGiven}`,
		);
		expect(request.query).toEqual({});
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it('with node version 1.1, Simplify gives what a workflow needs to fund, repay and watch the contract', async () => {
		const { output, error } = await runWorkflow(
			singleNodeWorkflow(
				{ resource: 'contract', operation: 'get', contractId: byId(CONTRACTS.principalGiven) },
				{ typeVersion: 1.1 },
			),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		const record = stored(CONTRACTS.principalGiven);
		const open = record.installments
			.filter((installment) => ['pending', 'late'].includes(installment.status))
			.sort((a, b) => a.due_date.localeCompare(b.due_date))[0];
		expect(output(NODE)[0].json).toEqual({
			id: record.id,
			status: record.status,
			loan_amount: record.loan_amount,
			loan_asset: record.loan_asset,
			balance_outstanding: record.balance_outstanding,
			expiry: record.expiry,
			contract_address: record.contract_address,
			// Paid out: the collateral was sent long ago, nothing is owed.
			collateral_to_send_sats: null,
			next_installment: {
				id: open.id,
				due_date: open.due_date,
				amount: Math.round((open.principal + open.interest) * 100) / 100,
				status: open.status,
			},
			loan_repayment_address: record.loan_repayment_address,
			can_extend: record.can_extend,
			liquidation_status: record.liquidation_status,
			collateral_asset: 'BitcoinBtc',
			requires_ark_settlement: null,
			kyc_link: null,
			kyc_done: null,
		});
	});

	it('with node version 1.1, a new contract request shows how to fund it once approved', async () => {
		sandbox.configure({ dialect: 'live' });
		const created = await runWorkflow(
			contractCreate({
				loanId: byId(SEED_IDS.offers.autoAccept),
				loanAmount: 1000,
				additionalFields: LIVE_FIELDS,
			}),
			{
				credential: borrower(),
			},
		);
		const id = String(created.output(NODE)[0].json.id);
		const { output } = await runWorkflow(
			singleNodeWorkflow(
				{ resource: 'contract', operation: 'get', contractId: byId(id) },
				{ typeVersion: 1.1 },
			),
			{
				credential: borrower(),
			},
		);
		// Fee included: exactly what Lendasat's funding page asks to send.
		expect(stored(id).initial_collateral_sats).toBeGreaterThan(stored(id).origination_fee_sats);
		expect(output(NODE)[0].json).toMatchObject({
			status: 'Approved',
			contract_address: expect.any(String),
			collateral_to_send_sats: stored(id).initial_collateral_sats,
			next_installment: expect.objectContaining({
				due_date: expect.any(String),
				amount: expect.any(Number),
			}),
		});
	});

	const getV11 = async (id: string) => {
		const { output, error } = await runWorkflow(
			singleNodeWorkflow(
				{ resource: 'contract', operation: 'get', contractId: byId(id) },
				{ typeVersion: 1.1 },
			),
			{ credential: borrower() },
		);
		expect(error).toBeUndefined();
		return output(NODE)[0].json;
	};

	it('with node version 1.1, a closed contract owes no collateral: collateral_to_send_sats is null, the key stays', async () => {
		const record = stored(CONTRACTS.closed);
		expect(record.status).toBe('Closed');
		expect(record.initial_collateral_sats).toBeGreaterThan(0);
		const simple = await getV11(CONTRACTS.closed);
		expect(simple).toHaveProperty('collateral_to_send_sats', null);
		expect(simple.status).toBe('Closed');
	});

	it.each([
		['Approved', CONTRACTS.approved, true],
		['CollateralSeen', CONTRACTS.approved, false],
		['PrincipalGiven', CONTRACTS.principalGiven, false],
		['Cancelled', CONTRACTS.requested, false],
	])(
		'with node version 1.1, a contract in status %s shows collateral to send: %s',
		async (status, id, owed) => {
			if (stored(id).status !== status) sandbox.admin.setContractStatus(id, status);
			const simple = await getV11(id);
			expect(simple.collateral_to_send_sats).toBe(owed ? stored(id).initial_collateral_sats : null);
		},
	);

	it("with node version 1.1, a KYC offer's contract request shows where to do KYC", async () => {
		const request = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: SEED_IDS.offers.kyc,
			loan_amount: 2000,
			duration_days: 90,
		});
		const offer = sandbox.state.offers.get(SEED_IDS.offers.kyc)!;
		expect(offer.kyc_link).toEqual(expect.stringMatching(/^https:\/\//));
		const simple = await getV11(request.id);
		expect(simple).toMatchObject({
			status: 'Requested',
			collateral_to_send_sats: request.initial_collateral_sats,
			collateral_asset: 'BitcoinBtc',
			requires_ark_settlement: null,
			kyc_link: offer.kyc_link,
			kyc_done: false,
		});
		expect(simple).not.toHaveProperty('kyc_info');
	});

	it("with node version 1.1, an Arkade offer's contract says so", async () => {
		const arkade = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: SEED_IDS.offers.arkade,
		});
		expect(await getV11(arkade.id)).toMatchObject({
			collateral_asset: 'ArkadeBtc',
			requires_ark_settlement: arkade.requires_ark_settlement,
			kyc_link: null,
			kyc_done: null,
		});
	});

	it('with node version 1, Simplify keeps its fourteen fields and adds the collateral and KYC keys', async () => {
		const request = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: SEED_IDS.offers.kyc,
		});
		const { items } = await contract('get', { contractId: byId(request.id) });
		expect(items).toEqual([simplified(stored(request.id))]);
		expect(items[0]).toMatchObject({ kyc_link: expect.any(String), kyc_done: false });
		expect(Object.keys(items[0])).toEqual([
			...SIMPLIFIED_FIELDS,
			'collateral_asset',
			'requires_ark_settlement',
			'kyc_link',
			'kyc_done',
		]);
	});

	it('returns the whole record with Simplify off', async () => {
		const { items } = await contract('get', {
			contractId: byId(CONTRACTS.principalGiven),
			simplify: false,
		});
		expect(items).toEqual([served(CONTRACTS.principalGiven)]);
		expect(items[0]).toHaveProperty('installments');
		expect(items[0]).toHaveProperty('timeline');
	});

	it('takes a contract picked From List, and an ID typed with surrounding spaces', async () => {
		await contract('get', { contractId: fromList(CONTRACTS.marginCall) });
		await contract('get', { contractId: byId(`  ${CONTRACTS.approved} `) });
		expect(received()).toEqual([
			`GET /api/contracts/${CONTRACTS.marginCall}`,
			`GET /api/contracts/${CONTRACTS.approved}`,
		]);
	});

	it('passes through a status and liquidation status the node does not know', async () => {
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'AwaitingSomethingNew');
		sandbox.admin.setLiquidationStatus(CONTRACTS.principalGiven, 'ThirdMarginCall');
		const { items, error } = await contract('get', { contractId: byId(CONTRACTS.principalGiven) });
		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({
			status: 'AwaitingSomethingNew',
			liquidation_status: 'ThirdMarginCall',
		});
	});

	it("names the contract when it belongs to another borrower (the sandbox's spec dialect: 404)", async () => {
		const foreign = CONTRACTS.otherBorrowers;
		const { error, items } = await contract('get', { contractId: byId(foreign) });

		expect(items).toEqual([]);
		expect(error?.message).toBe(`Not found: contract ${foreign} (HTTP 404, CONTRACT_NOT_FOUND)`);
		expect(describedBy(error)).toContain('Contract → Get: check the ID');
		expect(received()).toEqual([`GET /api/contracts/${foreign}`]);
	});

	it('explains the live API\'s 500 "Something went wrong" for a foreign ID, without retrying it', async () => {
		sandbox.configure({ dialect: 'live' });
		const foreign = CONTRACTS.otherBorrowers;
		const { error } = await contract('get', { contractId: byId(foreign) });

		expect(error?.message).toBe(
			`Lendasat had an internal error — contract ${foreign} may not exist (HTTP 500)`,
		);
		expect(describedBy(error)).toContain('does not exist in the credential');
		expect(describedBy(error)).toContain('belongs to another account');
		expect(describedBy(error)).toContain('Server said: "Something went wrong"');
		expect(received()).toEqual([`GET /api/contracts/${foreign}`]);
	});

	it('keeps a 500 that is not the "unknown ID" answer a plain internal error', async () => {
		sandbox.configure({ faults: [{ kind: 'empty-body', method: 'GET', path: '/api/contracts' }] });
		const { error } = await contract('get', { contractId: byId(CONTRACTS.approved) });
		expect(error?.message).toBe('Lendasat had an internal error (HTTP 500)');
	});

	it('flags a typed ID that is not a UUID before running', async () => {
		const { error } = await contract('get', { contractId: byId('contract-42') });
		expect(error?.message).toContain('Not a contract ID: expected a UUID');
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['not a UUID', '={{ "contract-42" }}', 'is not an ID of the form 8-4-4-4-12'],
		['empty', '={{ "" }}', 'Must not be empty'],
	])(
		'stops before sending when an expression gives an ID that is %s',
		async (_case, value, problem) => {
			const { error } = await contract('get', { contractId: byId(value) });
			expect(error?.message).toBe('Invalid Contract [item 0]');
			expect(describedBy(error)).toContain(problem);
			expect(sandbox.requests).toHaveLength(0);
		},
	);
});

describe('Contract → Get Many: a borrower lists contracts', () => {
	/** The main borrower's contracts, newest first, as the API orders them by default. */
	function newestFirst(): Contract[] {
		const owned = sandbox.state.contractsByOwner.get(SEED_IDS.users.borrower) ?? [];
		return owned
			.map((entry) => entry.contract)
			.sort((a, b) =>
				a.created_at === b.created_at
					? b.id.localeCompare(a.id)
					: b.created_at.localeCompare(a.created_at),
			);
	}

	it('walks every page with Return All (250 more contracts, pages of 100)', async () => {
		sandbox.admin.createContracts(sandbox.keys.borrower, 250);
		const total = sandbox.state.contractsByOwner.get(SEED_IDS.users.borrower)?.length;
		expect(total).toBe(255);

		const { items, error } = await contract('getAll', { returnAll: true });

		expect(error).toBeUndefined();
		expect(items).toHaveLength(255);
		expect(new Set(items.map((item) => item.id)).size).toBe(255);
		expect(items.map((item) => item.id)).toEqual(newestFirst().map((record) => record.id));
		expect(items[0]).toEqual(simplified(stored(items[0].id as string)));
		expect(sandbox.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /api/contracts',
			'GET /api/contracts',
			'GET /api/contracts',
		]);
		expect(sandbox.requests.map((request) => request.query)).toEqual([
			{ page: '1', limit: '100' },
			{ page: '2', limit: '100' },
			{ page: '3', limit: '100' },
		]);
	});

	it('asks for one short page when the Limit is below a page', async () => {
		sandbox.admin.createContracts(sandbox.keys.borrower, 20);
		const { items } = await contract('getAll', { limit: 7 });

		expect(items.map((item) => item.id)).toEqual(
			newestFirst()
				.slice(0, 7)
				.map((record) => record.id),
		);
		expect(sandbox.requests.map((request) => request.query)).toEqual([{ page: '1', limit: '7' }]);
	});

	it('stops at the Limit when it spans pages', async () => {
		sandbox.admin.createContracts(sandbox.keys.borrower, 250);
		const { items } = await contract('getAll', { limit: 150 });

		expect(items).toHaveLength(150);
		expect(sandbox.requests.map((request) => request.query)).toEqual([
			{ page: '1', limit: '100' },
			{ page: '2', limit: '100' },
		]);
	});

	it('sends the filters as status, sort_by and sort_order', async () => {
		const { items, error } = await contract('getAll', {
			returnAll: true,
			filters: { status: ['Requested', 'PrincipalGiven'], sortBy: 'loan_amount', sortOrder: 'asc' },
		});

		expect(error).toBeUndefined();
		expect(sandbox.requests[0].query).toEqual({
			status: 'Requested,PrincipalGiven',
			sort_by: 'loan_amount',
			sort_order: 'asc',
			page: '1',
			limit: '100',
		});
		expect(items.map((item) => [item.status, item.loan_amount])).toEqual([
			['Requested', 1000],
			['PrincipalGiven', 1500],
			['PrincipalGiven', 2500],
		]);
	});

	it('takes statuses from an expression, including ones the node does not list', async () => {
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'SomethingNew');
		const { items } = await contract('getAll', {
			limit: 5,
			filters: { status: '={{ "Requested, SomethingNew" }}' },
		});
		expect(sandbox.requests[0].query).toMatchObject({ status: 'Requested,SomethingNew' });
		expect(items.map((item) => item.id).sort()).toEqual(
			[CONTRACTS.requested, CONTRACTS.approved].sort(),
		);
	});

	it('rejects a status that cannot be one before sending', async () => {
		const { error } = await contract('getAll', {
			filters: { status: '={{ ["Principal Given!"] }}' },
		});
		expect(error?.message).toBe('Invalid Status [item 0]');
		expect(sandbox.requests).toHaveLength(0);
	});

	it("returns the whole records with Simplify off, and only the caller's own contracts", async () => {
		const { items } = await contract('getAll', { returnAll: true, simplify: false });
		expect(items).toHaveLength(5);
		expect(items.map((item) => item.id)).not.toContain(CONTRACTS.otherBorrowers);
		expect(items.find((item) => item.id === CONTRACTS.closed)).toEqual(served(CONTRACTS.closed));
	});
});

describe('Contract → Cancel: a borrower withdraws a contract request', () => {
	it.each([
		['Requested', CONTRACTS.requested],
		['Approved', CONTRACTS.approved],
	])('cancels a contract in status %s', async (_status, id) => {
		const { items, error } = await contract('cancel', { contractId: byId(id) });

		expect(error).toBeUndefined();
		expect(items).toEqual([{ id, cancelled: true }]);
		expect(sandbox.requests).toHaveLength(1);
		expect(`${sandbox.requests[0].method} ${sandbox.requests[0].path}`).toBe(
			`DELETE /api/contracts/${id}`,
		);
		expect(sandbox.requests[0].rawBody).toBe('');
		expect(stored(id).status).toBe('Cancelled');
	});

	it('explains that a contract past approval can no longer be cancelled', async () => {
		sandbox.admin.setContractStatus(CONTRACTS.requested, 'CollateralSeen');
		const { error } = await contract('cancel', { contractId: byId(CONTRACTS.requested) });

		expect(error?.message).toBe(
			'The contract can no longer be cancelled (HTTP 400, INVALID_STATE)',
		);
		expect(describedBy(error)).toContain(
			'only contract requests in status Requested (pending) or Approved',
		);
		expect(describedBy(error)).toContain(
			'Cannot cancel a contract request with status CollateralSeen',
		);
		expect(stored(CONTRACTS.requested).status).toBe('CollateralSeen');
	});

	it('explains the same with the live {message} error', async () => {
		sandbox.configure({ dialect: 'live' });
		const { error } = await contract('cancel', { contractId: byId(CONTRACTS.principalGiven) });
		expect(error?.message).toBe('The contract can no longer be cancelled (HTTP 400)');
		expect(describedBy(error)).toContain(
			'Server said: "Cannot cancel a contract request with status PrincipalGiven"',
		);
	});

	it("does not touch another borrower's contract", async () => {
		const { error } = await contract('cancel', { contractId: byId(CONTRACTS.otherBorrowers) });
		expect(error?.message).toBe(
			`Not found: contract ${CONTRACTS.otherBorrowers} (HTTP 404, CONTRACT_NOT_FOUND)`,
		);
		expect(stored(CONTRACTS.otherBorrowers).status).toBe('PrincipalGiven');
	});
});

describe('Contract → Extend: a borrower renews a running loan', () => {
	it('sends the days to add and returns the new contract', async () => {
		const before = stored(CONTRACTS.principalGiven);
		const { items, error } = await contract('extend', {
			contractId: byId(CONTRACTS.principalGiven),
			days: 30,
		});

		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const extension = items[0];
		expect(extension.id).not.toBe(CONTRACTS.principalGiven);
		expect(extension).toMatchObject({
			status: 'PrincipalGiven',
			duration_days: before.duration_days + 30,
		});
		expect(extension).toEqual(simplified(served(extension.id as string)));

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe(
			`POST /api/contracts/${CONTRACTS.principalGiven}/extend`,
		);
		expect(request.body).toEqual({ new_duration: 30 });
		expect(stored(CONTRACTS.principalGiven)).toMatchObject({
			status: 'Extended',
			extended_by_contract: extension.id,
		});
	});

	it('returns the whole new contract with Simplify off', async () => {
		const { items } = await contract('extend', {
			contractId: byId(CONTRACTS.principalGiven),
			days: 14,
			simplify: false,
		});
		expect(items[0]).toMatchObject({ extends_contract: CONTRACTS.principalGiven });
	});

	it('explains that a contract request cannot be extended', async () => {
		const { error } = await contract('extend', { contractId: byId(CONTRACTS.requested), days: 30 });
		expect(error?.message).toBe('The contract cannot be extended now (HTTP 400, INVALID_STATE)');
		expect(describedBy(error)).toContain('only a running loan (status PrincipalGiven)');
		expect(describedBy(error)).toContain('Cannot extend a contract with status Requested');
	});

	it('explains too many days to add, in both error dialects', async () => {
		const tooMany = { contractId: byId(CONTRACTS.principalGiven), days: 181 };
		const spec = await contract('extend', tooMany);
		expect(spec.error?.message).toBe(
			'Too many days to add for this contract (HTTP 400, INVALID_DURATION)',
		);
		expect(describedBy(spec.error)).toContain('Maximum extension is 180 days');

		sandbox.configure({ dialect: 'live' });
		const live = await contract('extend', tooMany);
		expect(live.error?.message).toBe('Too many days to add for this contract (HTTP 400)');
		expect(stored(CONTRACTS.principalGiven).status).toBe('PrincipalGiven');
	});

	it('explains the live "cannnot be extended" answer', async () => {
		sandbox.configure({ dialect: 'live' });
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'RepaymentProvided');
		const { error } = await contract('extend', {
			contractId: byId(CONTRACTS.principalGiven),
			days: 30,
		});
		expect(error?.message).toBe('The contract cannot be extended now (HTTP 400)');
		expect(describedBy(error)).toContain('Server said: "The contract cannnot be extended"');
	});

	it.each([
		['zero', 0, 'Must be at least 1 day'],
		['a fraction', 2.5, 'Must be a whole number of days'],
		['text', '={{ "two weeks" }}', 'Expected a whole number of days'],
	])('stops before sending when Days to Add is %s', async (_case, days, problem) => {
		const { error } = await contract('extend', {
			contractId: byId(CONTRACTS.principalGiven),
			days,
		});
		expect(error?.message).toBe('Invalid Days to Add [item 0]');
		expect(describedBy(error)).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('is not sent twice after a 503: the extension may already exist', async () => {
		sandbox.configure({
			faults: [
				{ kind: '503', path: `/api/contracts/${CONTRACTS.principalGiven}/extend`, after: true },
			],
		});
		const { error } = await contract('extend', {
			contractId: byId(CONTRACTS.principalGiven),
			days: 30,
		});

		expect(error?.message).toMatch(/\(HTTP 503/);
		expect(describedBy(error)).toContain(
			'Not retried: the request may already have been processed',
		);
		expect(received()).toEqual([`POST /api/contracts/${CONTRACTS.principalGiven}/extend`]);
	});

	it('is sent again after a 429: the server refused it without extending anything', async () => {
		sandbox.configure({ rateLimit: { requestsPerSecond: 1, retryAfter: 'seconds' } });
		const running = [CONTRACTS.principalGiven, CONTRACTS.marginCall];

		const { items, error } = await contract(
			'extend',
			{ contractId: byId('={{ $json.id }}'), days: 7 },
			borrower(),
			running.map((id) => ({ id })),
		);

		expect(error).toBeUndefined();
		expect(sandbox.stats().rateLimited).toBeGreaterThan(0);
		expect(items.map((item) => stored(item.id as string).extends_contract)).toEqual(running);
		for (const id of running) expect(stored(id).status).toBe('Extended');
		expect(sandbox.state.contractsByOwner.get(SEED_IDS.users.borrower)).toHaveLength(5 + 2);
	});
});

describe('Contract → Report Repayment: a borrower reports a paid installment', () => {
	const TXID = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
	const firstPending = (id: string) =>
		stored(id).installments.find((candidate) => candidate.status === 'pending')!;

	it("reports the last installment; the contract then awaits the lender's confirmation", async () => {
		const [installment] = stored(CONTRACTS.marginCall).installments;
		const { items, error } = await contract('reportRepayment', {
			contractId: byId(CONTRACTS.marginCall),
			installmentId: installment.id,
			paymentId: ` ${TXID} `,
		});

		expect(error).toBeUndefined();
		// Without Amount Paid: the installment's principal plus interest, from the contract read first.
		const amount = Math.round((installment.principal + installment.interest) * 100) / 100;
		expect(amount).toBeGreaterThan(installment.principal);
		expect(items).toEqual([
			{
				id: CONTRACTS.marginCall,
				installment_id: installment.id,
				payment_id: TXID,
				amount,
				reported: true,
			},
		]);
		// The contract is read first: the live backend answers 200 for an installment it does not have.
		expect(received()).toEqual([
			`GET /api/contracts/${CONTRACTS.marginCall}`,
			`PUT /api/contracts/${CONTRACTS.marginCall}/installment-paid`,
		]);
		const request = sandbox.requests[1];
		expect(request.body).toEqual({ installment_id: installment.id, payment_id: TXID, amount });

		const after = stored(CONTRACTS.marginCall);
		expect(after.installments[0]).toMatchObject({ status: 'paid', payment_id: TXID });
		expect(after.status).toBe('RepaymentProvided');
	});

	it('reports the amount given, as a number, for the installment of a monthly plan', async () => {
		const installment = firstPending(CONTRACTS.principalGiven);
		const { items, error } = await contract('reportRepayment', {
			contractId: byId(CONTRACTS.principalGiven),
			installmentId: installment.id,
			paymentId: TXID,
			amount: ' 41.1 ',
		});
		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({
			installment_id: installment.id,
			amount: 41.1,
			reported: true,
		});
		expect(sandbox.requests[1].rawBody).toBe(
			JSON.stringify({ installment_id: installment.id, payment_id: TXID, amount: 41.1 }),
		);
	});

	it("passes Lendasat's live dialect, which requires the amount (a serde 422 without it)", async () => {
		sandbox.configure({ dialect: 'live' });
		const installment = firstPending(CONTRACTS.principalGiven);
		const { items, error } = await contract('reportRepayment', {
			contractId: byId(CONTRACTS.principalGiven),
			installmentId: installment.id,
			paymentId: TXID,
		});
		expect(error).toBeUndefined();
		expect(items[0].amount).toBe(
			Math.round((installment.principal + installment.interest) * 100) / 100,
		);
		expect(
			stored(CONTRACTS.principalGiven).installments.find(
				(candidate) => candidate.id === installment.id,
			),
		).toMatchObject({ status: 'paid', payment_id: TXID });
	});

	it("sends amount null when the contract lists no installments and none was given, as Lendasat's mobile app does", async () => {
		const { requests, close, url } = await bareServer({
			id: CONTRACTS.marginCall,
			status: 'active',
		});
		try {
			const installmentId = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
			const { items, error } = await contract(
				'reportRepayment',
				{ contractId: byId(CONTRACTS.marginCall), installmentId, paymentId: TXID },
				borrower({ baseUrl: url }),
			);
			expect(error).toBeUndefined();
			expect(items[0]).toMatchObject({ amount: null, reported: true });
			expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual([
				`GET /api/contracts/${CONTRACTS.marginCall}`,
				`PUT /api/contracts/${CONTRACTS.marginCall}/installment-paid`,
			]);
			expect(requests[1].body).toBe(
				JSON.stringify({ installment_id: installmentId, payment_id: TXID, amount: null }),
			);
		} finally {
			await close();
		}
	});

	it("takes Lendasat's error body with status 200 for an error, on the read first and on the report", async () => {
		const [installment] = stored(CONTRACTS.marginCall).installments;
		const parameters = {
			contractId: byId(CONTRACTS.marginCall),
			installmentId: installment.id,
			paymentId: TXID,
		};
		const liveError = { kind: 'trickle', body: '{"message":"Something went wrong"}', delayMs: 0 };
		const path = `/api/contracts/${CONTRACTS.marginCall}`;

		sandbox.configure({ faults: [{ ...liveError, method: 'GET', path }] as FaultRule[] });
		const read = await contract('reportRepayment', parameters);
		expect(read.items).toEqual([]);
		expect(read.error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(describedBy(read.error)).toMatch(/error message, although the status says success/);
		expect(received()).toEqual([`GET ${path}`]);

		sandbox.reset();
		sandbox.configure({ faults: [{ ...liveError, method: 'PUT', path }] as FaultRule[] });
		const report = await contract('reportRepayment', parameters);
		expect(report.items).toEqual([]);
		expect(report.error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(received()).toEqual([`GET ${path}`, `PUT ${path}/installment-paid`]);
	});

	it('explains that only a running loan takes repayments', async () => {
		const [installment] = stored(CONTRACTS.requested).installments;
		const { error } = await contract('reportRepayment', {
			contractId: byId(CONTRACTS.requested),
			installmentId: installment.id,
			paymentId: TXID,
		});
		expect(error?.message).toBe(
			'Repayments can only be reported for a running loan (HTTP 400, INVALID_STATE)',
		);
		expect(describedBy(error)).toContain(
			'Cannot mark an installment as paid for a contract with status Requested',
		);
	});

	it.each(['spec', 'live'] as const)(
		'refuses an installment of another contract before reporting anything (%s dialect; the live one would answer 200)',
		async (dialect) => {
			sandbox.configure({ dialect });
			const [foreignInstallment] = stored(CONTRACTS.requested).installments;
			const before = JSON.stringify(stored(CONTRACTS.requested));
			const { error } = await contract('reportRepayment', {
				contractId: byId(CONTRACTS.marginCall),
				installmentId: foreignInstallment.id,
				paymentId: TXID,
			});
			expect(error?.message).toBe(
				`Installment ${foreignInstallment.id} is not part of contract ${CONTRACTS.marginCall}`,
			);
			expect(describedBy(error)).toContain('nothing was reported');
			expect(describedBy(error)).toContain(stored(CONTRACTS.marginCall).installments[0].id);
			expect(received()).toEqual([`GET /api/contracts/${CONTRACTS.marginCall}`]);
			expect(JSON.stringify(stored(CONTRACTS.requested))).toBe(before);
			expect(stored(CONTRACTS.marginCall).status).toBe('PrincipalGiven');
		},
	);

	it.each([
		['Usd', ''],
		['Eur', ''],
		['Chf', ''],
		['Mxn', '   '],
	])(
		"accepts an empty Payment Transaction ID on a fiat loan in %s (given as %j) and sends it empty, as Lendasat's schema allows",
		async (asset, paymentId) => {
			sandbox.configure({ dialect: 'live' });
			const fiat = sandbox.admin.createContract(sandbox.keys.borrower, {
				loan_id: SEED_IDS.offers.eurBankKyc,
				loan_asset: asset,
				status: 'PrincipalGiven',
			});
			const [installment] = fiat.installments;
			const { items, error } = await contract('reportRepayment', {
				contractId: byId(fiat.id),
				installmentId: installment.id,
				paymentId,
			});

			expect(error).toBeUndefined();
			const amount = Math.round((installment.principal + installment.interest) * 100) / 100;
			expect(items).toEqual([
				{ id: fiat.id, installment_id: installment.id, payment_id: '', amount, reported: true },
			]);
			expect(received()).toEqual([
				`GET /api/contracts/${fiat.id}`,
				`PUT /api/contracts/${fiat.id}/installment-paid`,
			]);
			// Present and empty: the backend's payment_id is a String, so leaving it out is a 422.
			expect(sandbox.requests[1].rawBody).toBe(
				JSON.stringify({ installment_id: installment.id, payment_id: '', amount }),
			);
			expect(stored(fiat.id).installments[0]).toMatchObject({ status: 'paid', payment_id: '' });
		},
	);

	it.each([
		['empty', ''],
		['only spaces', '   '],
	])(
		'refuses a Payment Transaction ID that is %s on a stablecoin loan: it reads the contract and reports nothing',
		async (_case, paymentId) => {
			const before = stored(CONTRACTS.marginCall);
			const { items, error } = await contract('reportRepayment', {
				contractId: byId(CONTRACTS.marginCall),
				installmentId: before.installments[0].id,
				paymentId,
			});

			expect(items).toEqual([]);
			expect(error?.message).toBe('Invalid Payment Transaction ID [item 0]');
			expect(describedBy(error)).toContain(
				`Payment Transaction ID: Must not be empty for contract ${CONTRACTS.marginCall}: its loan is paid out in UsdcSol, not in a fiat currency. Enter the transaction ID of the repayment, e.g. 0x5c504ed4…; only a fiat loan (USD, EUR, CHF, MXN) may leave it empty. Nothing was reported.`,
			);
			expect(received()).toEqual([`GET /api/contracts/${CONTRACTS.marginCall}`]);
			expect(stored(CONTRACTS.marginCall)).toEqual(before);
		},
	);

	it('refuses an empty Payment Transaction ID when the contract does not say its loan asset', async () => {
		const { requests, close, url } = await bareServer({
			id: CONTRACTS.marginCall,
			status: 'PrincipalGiven',
		});
		try {
			const { error } = await contract(
				'reportRepayment',
				{
					contractId: byId(CONTRACTS.marginCall),
					installmentId: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
					paymentId: '',
				},
				borrower({ baseUrl: url }),
			);
			expect(error?.message).toBe('Invalid Payment Transaction ID [item 0]');
			expect(describedBy(error)).toContain(
				'it does not say its loan asset (loan_asset), so it cannot be taken for a fiat loan',
			);
			expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual([
				`GET /api/contracts/${CONTRACTS.marginCall}`,
			]);
		} finally {
			await close();
		}
	});

	it.each([
		[
			'the installment ID is not a UUID',
			{ installmentId: 'first' },
			'Invalid Installment ID [item 0]',
		],
		[
			'the payment transaction ID has a space inside',
			{ paymentId: '0x5c50 4ed4' },
			'Invalid Payment Transaction ID [item 0]',
		],
		[
			'the payment transaction ID has a line break inside',
			{ paymentId: '0x5c50\n4ed4' },
			'Invalid Payment Transaction ID [item 0]',
		],
		['the amount is not a number', { amount: 'all of it' }, 'Invalid Amount Paid [item 0]'],
		['the amount is negative', { amount: -12.5 }, 'Invalid Amount Paid [item 0]'],
		['the amount is 0', { amount: '0' }, 'Invalid Amount Paid [item 0]'],
		['the amount is infinite', { amount: Infinity }, 'Invalid Amount Paid [item 0]'],
	])('stops before sending when %s', async (_case, override, message) => {
		const [installment] = stored(CONTRACTS.marginCall).installments;
		const { error } = await contract('reportRepayment', {
			contractId: byId(CONTRACTS.marginCall),
			installmentId: installment.id,
			paymentId: TXID,
			...override,
		});
		expect(error?.message).toBe(message);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('never quotes a key pasted into Amount Paid', async () => {
		const [installment] = stored(CONTRACTS.marginCall).installments;
		const result = await contract('reportRepayment', {
			contractId: byId(CONTRACTS.marginCall),
			installmentId: installment.id,
			paymentId: TXID,
			amount: sandbox.keys.borrower,
		});
		expect(result.error?.message).toBe('Invalid Amount Paid [item 0]');
		expect(describedBy(result.error)).toContain('Lendasat API key (not shown)');
		// The workflow's own parameters hold what was pasted; the error must not repeat it.
		expect(`${result.error?.message} ${describedBy(result.error)}`).not.toContain(
			sandbox.keys.borrower.slice(0, 20),
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract picker: choosing a contract From List', () => {
	const search = (filter?: string, credential = borrower()) =>
		searchList('searchContracts', filter, credential, { resource: 'contract', operation: 'get' });

	it("lists the key's contracts, most recently updated first, in one line each", async () => {
		const { results } = await search();

		const own = (sandbox.state.contractsByOwner.get(SEED_IDS.users.borrower) ?? [])
			.map((entry) => entry.contract)
			.sort((a, b) =>
				a.updated_at === b.updated_at
					? b.id.localeCompare(a.id)
					: b.updated_at.localeCompare(a.updated_at),
			);
		expect(results.map((result) => result.value)).toEqual(own.map((record) => record.id));
		expect(results.map((result) => result.value)).not.toContain(CONTRACTS.otherBorrowers);

		const marginCall = stored(CONTRACTS.marginCall);
		expect(results.find((result) => result.value === CONTRACTS.marginCall)?.name).toBe(
			`PrincipalGiven · UsdcSol · $1,500 · 60 days · ${marginCall.expiry.slice(0, 10)} (c000…)`,
		);

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(`${request.method} ${request.path}`).toBe('GET /api/contracts');
		expect(request.query).toEqual({ sort_by: 'updated_at', sort_order: 'desc', limit: '100' });
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it.each([
		['a status', 'requested', [CONTRACTS.requested]],
		['an asset', 'USDTETH', [CONTRACTS.approved, CONTRACTS.principalGiven]],
		['part of an ID', '000000000005', [CONTRACTS.closed]],
		['several words', 'principalgiven usdteth', [CONTRACTS.principalGiven]],
		['text nothing matches', 'eur', []],
	])('narrows the list by %s', async (_case, filter, expected) => {
		const { results } = await search(filter);
		expect(results.map((result) => result.value).sort()).toEqual([...expected].sort());
	});

	it('shows a fiat amount with its own currency sign and a status it does not know', async () => {
		const eur = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: SEED_IDS.offers.eurBankKyc,
			loan_amount: 2500.5,
			duration_days: 90,
			status: 'WaitingForKyc',
		});
		const { results } = await search(eur.id);
		expect(results).toEqual([
			{
				name: `WaitingForKyc · Eur · €2,500.5 · 90 days · ${eur.expiry.slice(0, 10)} (${eur.id.slice(0, 4)}…)`,
				value: eur.id,
			},
		]);
	});

	it('says that a partner master key cannot list contracts, without sending anything', async () => {
		await expect(
			search(undefined, borrower({ keyType: 'master', apiKey: sandbox.keys.master })),
		).rejects.toThrow(
			'The Contract list needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('maps a rejected key to a clear error that never shows the key', async () => {
		const wrongKey = 'lndst_sk_0123456789ab_ThisKeyDoesNotExist42';
		const error = await search(undefined, borrower({ apiKey: wrongKey })).catch(
			(caught: unknown) => caught,
		);
		expect((error as Error).message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect(describedBy(error)).toContain('Contract list: this operation needs a Borrower Key');
		expect(everythingVisible(error)).not.toContain('ThisKeyDoesNotExist42');
	});

	it('says where it could not connect to', async () => {
		const error = await search(undefined, borrower({ baseUrl: 'http://127.0.0.1:9' })).catch(
			(caught: unknown) => caught,
		);
		expect((error as Error).message).toBe(
			'Could not get an answer from Lendasat: connection refused',
		);
		expect(describedBy(error)).toMatch(
			/^Contract list: the request to http:\/\/127\.0\.0\.1:9 failed \(connection refused \(ECONNREFUSED\)\)\..*Check the credential's environment or base URL.*You can also enter the contract ID By ID\.$/,
		);
	});
});

describe('Contract → Update Borrower Address: a borrower moves the collateral refund address', () => {
	/** The borrower's wallet key in these tests; the stand-in wallet signs with it outside the node. */
	const WALLET_KEY = '7e1f0c3b5a29d8e6f4c2b0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9';
	const NEW_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
	const contractId = CONTRACTS.principalGiven;

	beforeEach(() => {
		sandbox.state.contracts.get(contractId)!.contract.borrower_pk = publicKeyOf(WALLET_KEY);
	});

	function updateAddress(parameters: Record<string, unknown>, credential = borrower()) {
		return contract(
			'updateBorrowerAddress',
			{ contractId: byId(contractId), collateralAddress: NEW_ADDRESS, ...parameters },
			credential,
		);
	}

	it.each(['spec', 'live'] as const)(
		"sends the address with the wallet's base64 signature split as Lendasat takes it (%s dialect)",
		async (dialect) => {
			sandbox.configure({ dialect });
			const signature = standInSignMessage(WALLET_KEY, NEW_ADDRESS);
			const { items, error, run } = await updateAddress({ signature: signature.base64 });
			expect(error).toBeUndefined();
			expect(items).toEqual([{ id: contractId, borrower_btc_address: NEW_ADDRESS, updated: true }]);
			expect(
				sandbox.requests.map((request) => [request.method, request.path, request.body]),
			).toEqual([
				[
					'PUT',
					`/api/contracts/${contractId}/borrower-address`,
					{
						address: NEW_ADDRESS,
						recoverable_signature_hex: signature.recoverable_signature_hex,
						recoverable_signature_id: signature.recoverable_signature_id,
					},
				],
			]);
			expect(stored(contractId).borrower_btc_address).toBe(NEW_ADDRESS);
			expect(everythingVisible(run)).not.toContain(sandbox.keys.borrower);
		},
	);

	it("takes Lendasat's own form too: 64 bytes of hex and the recovery ID", async () => {
		const signature = standInSignMessage(WALLET_KEY, NEW_ADDRESS);
		const { error } = await updateAddress({
			signature: signature.recoverable_signature_hex,
			recoveryId: signature.recoverable_signature_id,
		});
		expect(error).toBeUndefined();
		expect(stored(contractId).borrower_btc_address).toBe(NEW_ADDRESS);
	});

	it.each([
		[
			'a mainnet address in development',
			{ collateralAddress: COLLATERAL_ADDRESS },
			'Collateral Address',
			/mainnet address.*Development/,
			{ environment: 'development' as const },
		],
		[
			'an Ark address',
			{
				collateralAddress:
					'tark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqfdy8nk05rsmrf8h94j26905e7n6sng8y059z8ykn2j5xcuw4xt846qj6x',
			},
			'Collateral Address',
			/is an Ark address/,
		],
		[
			'a bech32 address in upper case',
			{ collateralAddress: NEW_ADDRESS.toUpperCase() },
			'Collateral Address',
			/write it as tb1qw508.* and sign that text/,
		],
		[
			'a signature of 64 bytes without its recovery ID',
			{ signature: 'ab'.repeat(64) },
			'Signature',
			/set Recovery ID/,
		],
		['a DER signature', { signature: `3044${'ab'.repeat(68)}` }, 'Signature', /140 hexadecimal/],
		[
			'a recovery ID of 4',
			{ signature: 'ab'.repeat(64), recoveryId: 4 },
			'Recovery ID',
			/0, 1, 2 or 3/,
		],
	] as Array<[string, Record<string, unknown>, string, RegExp, Partial<TestCredential>?]>)(
		'refuses %s before sending anything',
		async (_case, parameters, field, problem, credential = {}) => {
			const signature = standInSignMessage(WALLET_KEY, NEW_ADDRESS).base64;
			const { error } = await updateAddress({ signature, ...parameters }, borrower(credential));
			expect(error?.message).toBe(`Invalid ${field} [item 0]`);
			expect(describedBy(error)).toMatch(problem);
			expect(sandbox.requests).toHaveLength(0);
		},
	);

	it.each([
		['by another key', () => standInSignMessage('11'.repeat(32), NEW_ADDRESS).base64],
		['of another address', () => standInSignMessage(WALLET_KEY, COLLATERAL_ADDRESS).base64],
	])(
		'says how to sign when the signature is %s (live: 400 "Invalid signature provided")',
		async (_case, sign) => {
			sandbox.configure({ dialect: 'live' });
			const { error } = await updateAddress({ signature: sign() });
			expect(error?.message).toBe(
				"The signature is not the contract's borrower key signing this address (HTTP 400)",
			);
			expect(describedBy(error)).toMatch(
				/sign exactly the address as sent.*borrower_pk.*signmessagewithprivkey.*Server said: "Invalid signature provided"/,
			);
			expect(stored(contractId).borrower_btc_address).not.toBe(NEW_ADDRESS);
			expect(sandbox.requests).toHaveLength(1);
		},
	);

	it('explains the live 500 for a contract that is not the borrower’s', async () => {
		sandbox.configure({ dialect: 'live' });
		const signature = standInSignMessage(WALLET_KEY, NEW_ADDRESS).base64;
		const { error } = await updateAddress({
			contractId: byId(CONTRACTS.otherBorrowers),
			signature,
		});
		expect(error?.message).toBe(
			`Lendasat had an internal error — contract ${CONTRACTS.otherBorrowers} may not exist (HTTP 500)`,
		);
		expect(sandbox.requests).toHaveLength(1);
	});

	it("refuses the live backend's error body sent with a 200", async () => {
		const server = http.createServer((_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end('{"message":"Could not update address"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const signature = standInSignMessage(WALLET_KEY, NEW_ADDRESS).base64;
			const { error, items, run } = await updateAddress({ signature }, borrower({ baseUrl }));
			expect(items).toEqual([]);
			expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
			expect(describedBy(error)).toMatch(
				/it is an error message, although the status says success/,
			);
			expect(everythingVisible(run, error)).not.toContain(sandbox.keys.borrower);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it('needs a borrower key', async () => {
		const { error } = await updateAddress(
			{ signature: standInSignMessage(WALLET_KEY, NEW_ADDRESS).base64 },
			borrower({ keyType: 'master', apiKey: sandbox.keys.master }),
		);
		expect(error?.message).toBe(
			'Contract → Update Borrower Address needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract → Send Fiat Details: a borrower gives the lender of a fiat loan the account to pay out to', () => {
	const BORROWER_WALLET = '3b1f0c2d4e6f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b';
	const LENDER_WALLET = '4c2e1d3f5a7b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d';
	const IBAN = 'DE89 3704 0044 0532 0130 00';
	const HOLDER = {
		recipientName: 'Satoshi Nakamoto',
		recipientAddress: 'Hauptstraße 1',
		recipientCity: 'Berlin',
		recipientPostCode: '10115',
		recipientCountry: 'Germany',
		bankName: 'Commerzbank',
		bankAddress: 'Kaiserplatz, 60311 Frankfurt',
		bankCountry: 'Germany',
		purposeOfRemittance: 'Loan payout',
	};
	const PLAIN = {
		bank_name: 'Commerzbank',
		bank_address: 'Kaiserplatz, 60311 Frankfurt',
		bank_country: 'Germany',
		purpose_of_remittance: 'Loan payout',
		full_name: 'Satoshi Nakamoto',
		address: 'Hauptstraße 1',
		city: 'Berlin',
		post_code: '10115',
		country: 'Germany',
	};

	/** An Approved EUR contract without bank details, its keys those of the two test wallets. */
	function fiatContract(): string {
		return sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: SEED_IDS.offers.eurBankKyc,
			status: 'Approved',
			borrower_pk: publicKeyOf(BORROWER_WALLET),
			lender_pk: publicKeyOf(LENDER_WALLET),
		} as Partial<Contract>).id;
	}

	const sendDetails = (
		id: string,
		parameters: Record<string, unknown> = {},
		credential = borrower(),
	) =>
		contract(
			'sendFiatDetails',
			{ contractId: byId(id), iban: IBAN, ...HOLDER, ...parameters },
			credential,
		);

	const sentBody = () =>
		sandbox.requests.find((request) => request.method === 'PUT')?.body as FiatDetailsWrapper;

	it("takes Lendasat's {message} body with a 200 for the contract it reads first as an error, and sends nothing", async () => {
		const id = fiatContract();
		sandbox.configure({
			dialect: 'live',
			faults: [
				{ kind: 'bad-200', body200: 'message-body', method: 'GET', path: `/api/contracts/${id}` },
			],
		});
		const { items, error } = await sendDetails(id);
		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(sandbox.requests.map((request) => request.method)).toEqual(['GET']);
	});

	it.each(['spec', 'live'] as const)(
		'encrypts the details for the borrower and the lender alone, and sends them once (%s dialect)',
		async (dialect) => {
			sandbox.configure({ dialect });
			const id = fiatContract();
			const { items, error, run } = await sendDetails(id, { bic: 'cobadeffxxx' });
			expect(error).toBeUndefined();
			expect(items).toEqual([{ id, fiat_details_sent: true, transfer_type: 'iban' }]);
			expect(sandbox.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
				`GET /api/contracts/${id}`,
				`PUT /api/contracts/${id}/fiat-details`,
			]);
			const body = sentBody();
			expect(Object.keys(body).sort()).toEqual([
				'details',
				'encrypted_encryption_key_borrower',
				'encrypted_encryption_key_lender',
			]);
			expect(JSON.stringify(body)).not.toMatch(/DE89|Satoshi|Berlin|Commerzbank/);
			const expected = {
				...PLAIN,
				iban_transfer_details: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
				swift_transfer_details: undefined,
				comments: null,
			};
			const asBorrower = decryptFiatDetails(
				body.details,
				body.encrypted_encryption_key_borrower,
				Buffer.from(BORROWER_WALLET, 'hex'),
			);
			const asLender = decryptFiatDetails(
				body.details,
				body.encrypted_encryption_key_lender,
				Buffer.from(LENDER_WALLET, 'hex'),
			);
			expect(asBorrower).toEqual(expected);
			expect(asLender).toEqual(expected);
			expect(stored(id).fiat_loan_details_borrower).toEqual({
				details: body.details,
				encrypted_encryption_key: body.encrypted_encryption_key_borrower,
			});
			expect(everythingVisible(run)).not.toContain(sandbox.keys.borrower);
		},
	);

	it('sends SWIFT details and the optional comments', async () => {
		const id = fiatContract();
		const { items, error } = await sendDetails(id, {
			transferType: 'swift',
			swiftOrBic: 'BOFAUS3N',
			accountNumber: '000123456789',
			comments: 'Reference 1042',
		});
		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({ transfer_type: 'swift' });
		const body = sentBody();
		const plain = decryptFiatDetails(
			body.details,
			body.encrypted_encryption_key_lender,
			Buffer.from(LENDER_WALLET, 'hex'),
		);
		expect(plain).toMatchObject({
			swift_transfer_details: { swift_or_bic: 'BOFAUS3N', account_number: '000123456789' },
			comments: 'Reference 1042',
		});
		expect(plain?.iban_transfer_details).toBeUndefined();
	});

	it.each([
		[
			'an IBAN with a wrong check digit',
			{ iban: 'DE88 3704 0044 0532 0130 00' },
			'IBAN',
			/wrong check digit/,
		],
		['a BIC of 9 characters', { bic: 'COBADEFFX' }, 'BIC', /8 or 11/],
		[
			'an empty account holder',
			{ recipientName: '={{ " " }}' },
			'Account Holder Name',
			/Must not be empty/,
		],
		[
			'a line break in the bank address',
			{ bankAddress: 'Kaiserplatz\nFrankfurt' },
			'Bank Address',
			/line break/,
		],
		[
			'a SWIFT transfer without an account number',
			{ transferType: 'swift', swiftOrBic: 'BOFAUS3N', accountNumber: '={{ "" }}' },
			'Account Number',
			/Must not be empty/,
		],
	])('refuses %s before sending anything', async (_case, parameters, field, problem) => {
		const id = fiatContract();
		const { error } = await sendDetails(id, parameters);
		expect(error?.message).toBe(`Invalid ${field} [item 0]`);
		expect(describedBy(error)).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('refuses a stablecoin loan after reading it, without sending the details', async () => {
		const { error } = await sendDetails(CONTRACTS.approved);
		expect(error?.message).toBe(`Contract ${CONTRACTS.approved} is not a fiat loan [item 0]`);
		expect(describedBy(error)).toMatch(/USD, EUR, CHF or MXN\. Nothing was sent\./);
		expect(sandbox.requests.map((request) => request.method)).toEqual(['GET']);
	});

	it('refuses a contract whose lender key cannot be encrypted to', async () => {
		const id = fiatContract();
		sandbox.state.contracts.get(id)!.contract.lender_pk = `02${'ff'.repeat(32)}`;
		const { error } = await sendDetails(id);
		expect(error?.message).toBe(
			`Contract ${id} has no lender_pk to encrypt the bank details to [item 0]`,
		);
		expect(sandbox.requests.map((request) => request.method)).toEqual(['GET']);
	});

	it('refuses a contract that has its bank details already (Lendasat keeps one set)', async () => {
		const id = fiatContract();
		await sendDetails(id);
		sandbox.requests.length = 0;
		const { error } = await sendDetails(id);
		expect(error?.message).toBe(`Contract ${id} has its bank details already [item 0]`);
		expect(sandbox.requests.map((request) => request.method)).toEqual(['GET']);
	});

	it('explains the live 500 for a contract that is not the borrower’s', async () => {
		sandbox.configure({ dialect: 'live' });
		const { error } = await sendDetails(CONTRACTS.otherBorrowers);
		expect(error?.message).toBe(
			`Lendasat had an internal error — contract ${CONTRACTS.otherBorrowers} may not exist (HTTP 500)`,
		);
		expect(sandbox.requests.map((request) => request.method)).toEqual(['GET']);
	});

	it('does not send again after a 500 on the write, and says where to look', async () => {
		sandbox.configure({
			dialect: 'live',
			faults: [{ kind: '500', method: 'PUT', path: `/api/contracts` }],
		});
		const id = fiatContract();
		const { error } = await sendDetails(id);
		expect(error?.message).toMatch(/\(HTTP 500\)/);
		expect(describedBy(error)).toMatch(/one set of bank details per contract/);
		expect(sandbox.requests.map((request) => request.method)).toEqual(['GET', 'PUT']);
	});

	it("refuses the live backend's error body sent with a 200", async () => {
		const id = fiatContract();
		const current = JSON.stringify(stored(id));
		const server = http.createServer((request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(request.method === 'GET' ? current : '{"message":"Something went wrong"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const { error, items } = await sendDetails(id, {}, borrower({ baseUrl }));
			expect(items).toEqual([]);
			expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
			expect(describedBy(error)).toMatch(
				/it is an error message, although the status says success/,
			);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
