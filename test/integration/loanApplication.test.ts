import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox, SEED_IDS, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { mapApiError } from '../../nodes/LendasatBorrower/transport/errors';
import {
	BLOCKED_ACCOUNT_GUIDANCE,
	TERMS_GUIDANCE,
} from '../../nodes/LendasatBorrower/resources/loanApplication/shared';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

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
const APPLICATIONS = SEED_IDS.loanApplications;
const UNKNOWN_ID = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COLLATERAL_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const STABLECOIN_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
/** The public key of private key 1 (the generator point): a valid compressed key. */
const PUBLIC_KEY = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const DERIVATION_PATH = "m/84'/0'/0'/0/0";
/** NIP-19's example npub. */
const NPUB = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';
const CLIENT_ID = '7a3f2c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';

const SIMPLIFIED_FIELDS = [
	'loan_deal_id',
	'status',
	'loan_asset',
	'loan_type',
	'loan_amount_min',
	'loan_amount_max',
	'duration_days_min',
	'duration_days_max',
	'ltv',
	'interest_rate',
	'repayment_plan',
	'client_contract_id',
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

async function loanApplication(
	operation: string,
	parameters: Record<string, unknown> = {},
	credential = borrower(),
) {
	const result = await runWorkflow(
		singleNodeWorkflow({ resource: 'loanApplication', operation, ...parameters }),
		{ credential },
	);
	return { ...result, items: result.output(NODE).map((item) => item.json) };
}

/** What Loan Application → Create needs, with every optional field too. */
/** Arkade's documented keys as a test-network Ark address (encoded in test/unit/bitcoin.test.ts). */
const ARK_ADDRESS =
	'tark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqfdy8nk05rsmrf8h94j26905e7n6sng8y059z8ykn2j5xcuw4xt846qj6x';

const CREATE_PARAMETERS = {
	ltv: 0.6,
	interestRate: 0.1,
	loanAmountMin: 500,
	loanAmountMax: 2500.5,
	durationDaysMin: 30,
	durationDaysMax: 90,
	loanAsset: 'UsdtEth',
	loanType: 'StableCoin',
	repaymentPlan: 'interest_only_monthly',
	borrowerPublicKey: PUBLIC_KEY,
	derivationPath: DERIVATION_PATH,
	collateralAddress: COLLATERAL_ADDRESS,
	additionalFields: {
		repaymentAddress: STABLECOIN_ADDRESS,
		borrowerNpub: NPUB,
		clientContractId: CLIENT_ID,
	},
};

const CREATE_BODY = {
	ltv: 0.6,
	interest_rate: 0.1,
	loan_amount_min: 500,
	loan_amount_max: 2500.5,
	duration_days_min: 30,
	duration_days_max: 90,
	loan_asset: 'UsdtEth',
	loan_type: 'StableCoin',
	repayment_plan: 'interest_only_monthly',
	borrower_pk: PUBLIC_KEY,
	borrower_derivation_path: DERIVATION_PATH,
	borrower_btc_address: COLLATERAL_ADDRESS,
	borrower_loan_address: STABLECOIN_ADDRESS,
	borrower_npub: NPUB,
	client_contract_id: CLIENT_ID,
};

const received = () => sandbox.requests.map((request) => `${request.method} ${request.path}`);
const stored = (id: string) => sandbox.state.loanApplications.get(id);
const describedBy = (error: unknown) =>
	String((error as { description?: string } | undefined)?.description ?? '');

/** A run's outputs and error must never show the key. */
function expectNoKey(...values: unknown[]) {
	expect(everythingVisible(...values)).not.toContain(sandbox.keys.borrower);
}

describe('Loan Application → Create', () => {
	it("sends every term, key and address under Lendasat's names and returns the Available application, simplified", async () => {
		const { items, error, run } = await loanApplication('create', CREATE_PARAMETERS);

		expect(error).toBeUndefined();
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/api/loan-applications');
		expect(request.headers['content-type']).toBe('application/json');
		expect(request.body).toEqual(CREATE_BODY);

		expect(items).toHaveLength(1);
		const [application] = items;
		expect(Object.keys(application)).toEqual(SIMPLIFIED_FIELDS);
		expect(application).toMatchObject({
			loan_deal_id: expect.stringMatching(UUID),
			status: 'Available',
			loan_asset: 'UsdtEth',
			loan_amount_max: 2500.5,
			repayment_plan: 'interest_only_monthly',
			client_contract_id: CLIENT_ID,
		});
		expect(stored(String(application.loan_deal_id))).toMatchObject({
			...CREATE_BODY,
			status: 'Available',
		});
		expectNoKey(run, items);
	});

	it.each(['live', 'spec'] as const)(
		'takes an Ark address too (an application names no collateral asset), reading no offer (%s dialect)',
		async (dialect) => {
			sandbox.configure({ dialect });
			const { error } = await loanApplication('create', {
				...CREATE_PARAMETERS,
				collateralAddress: ARK_ADDRESS,
			});
			expect(error).toBeUndefined();
			expect(received()).toEqual(['POST /api/loan-applications']);
			expect(sandbox.requests[0].body).toMatchObject({ borrower_btc_address: ARK_ADDRESS });
		},
	);

	it('leaves the optional fields out when they are not given or empty, and returns the whole record with Simplify off', async () => {
		const { items, error } = await loanApplication('create', {
			...CREATE_PARAMETERS,
			additionalFields: { repaymentAddress: '  ' },
			simplify: false,
		});

		expect(error).toBeUndefined();
		const requiredBody: Record<string, unknown> = { ...CREATE_BODY };
		for (const optional of ['borrower_loan_address', 'borrower_npub', 'client_contract_id'])
			delete requiredBody[optional];
		expect(sandbox.requests[0].body).toEqual(requiredBody);
		// The backend stores a fallback npub of its own when none is given.
		expect(items[0]).toMatchObject({
			borrower_npub: expect.stringMatching(/^npub1/),
			borrower_loan_address: null,
			borrower_id: SEED_IDS.users.borrower,
		});
	});

	it.each([
		[
			'a LTV above 1',
			{ ltv: 50 },
			'Loan-to-Value (LTV)',
			/more than 1: enter the loan-to-value ratio as a decimal/,
		],
		['a negative LTV', { ltv: -0.1 }, 'Loan-to-Value (LTV)', /Must not be negative/],
		['an interest rate in percent', { interestRate: 12 }, 'Interest Rate', /0\.12 for 12%/],
		['a negative interest rate', { interestRate: -0.1 }, 'Interest Rate', /Must not be negative/],
		['a zero minimum amount', { loanAmountMin: 0 }, 'Min Loan Amount', /greater than 0/],
		[
			'a minimum amount above the maximum',
			{ loanAmountMin: 3000 },
			'Min Loan Amount',
			/^Min Loan Amount: 3000 is more than Max Loan Amount \(2500\.5\)/,
		],
		[
			'a minimum duration above the maximum',
			{ durationDaysMin: 120 },
			'Min Duration (Days)',
			/^Min Duration \(Days\): 120 is more than Max Duration \(Days\) \(90\)/,
		],
		[
			'a duration in part days',
			{ durationDaysMax: 30.5 },
			'Max Duration (Days)',
			/whole number of days/,
		],
		['an unknown loan asset', { loanAsset: 'Doge' }, 'Loan Asset', /Expected one of Chf, Eur/],
		[
			'a fiat loan in a stablecoin',
			{ loanType: 'Fiat' },
			'Loan Asset',
			/Loan Type Fiat is paid by bank transfer/,
		],
		[
			'a stablecoin loan in euros',
			{ loanAsset: 'Eur' },
			'Loan Asset',
			/Loan Type Fiat for a bank transfer/,
		],
		[
			'a Moon card top-up in USDT',
			{ loanType: 'PayWithMoon' },
			'Loan Asset',
			/USDC on Polygon only/,
		],
		[
			'an unknown repayment plan',
			{ repaymentPlan: 'balloon' },
			'Repayment Plan',
			/Expected one of bullet/,
		],
		[
			'an uncompressed public key',
			{ borrowerPublicKey: `04${'ab'.repeat(64)}` },
			'Borrower Public Key',
			/uncompressed key/,
		],
		[
			'a derivation path without m/',
			{ derivationPath: "84'/0'/0'" },
			'Derivation Path',
			/must start with m\//,
		],
		[
			'a mistyped Bitcoin address',
			{ collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr' },
			'Collateral Address',
			/not a valid Bitcoin address/,
		],
		[
			'a hex Nostr key',
			{
				additionalFields: {
					borrowerNpub: '7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e',
				},
			},
			'Nostr Public Key (Npub)',
			/hex key; enter its npub1/,
		],
		[
			'a mistyped npub',
			{ additionalFields: { borrowerNpub: `${NPUB.slice(0, -1)}h` } },
			'Nostr Public Key (Npub)',
			/not a valid npub/,
		],

		[
			'a client contract ID that is no UUID',
			{ additionalFields: { clientContractId: 'order-42' } },
			'Client Contract ID',
			/8-4-4-4-12/,
		],
		[
			'a repayment address with spaces',
			{ additionalFields: { repaymentAddress: '0x5290 8400' } },
			'Repayment Address',
			/contains spaces/,
		],
	])('refuses %s before sending anything', async (_case, change, label, problem) => {
		const { error, items } = await loanApplication('create', { ...CREATE_PARAMETERS, ...change });

		expect(error?.message).toBe(`Invalid ${label} [item 0]`);
		expect(describedBy(error)).toMatch(problem);
		expect(sandbox.requests).toEqual([]);
		expect(items).toEqual([]);
	});

	it('refuses a Nostr private key without repeating it anywhere', async () => {
		const nsec = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';
		const { error, items } = await loanApplication('create', {
			...CREATE_PARAMETERS,
			additionalFields: { borrowerNpub: nsec },
		});

		expect(error?.message).toBe('Invalid Nostr Public Key (Npub) [item 0]');
		expect(describedBy(error)).toContain(
			'This is a Nostr private key (nsec1…): never enter it anywhere.',
		);
		expect(`${error?.message} ${describedBy(error)}`).not.toContain(nsec.slice(5, 20));
		expect(items).toEqual([]);
		expect(sandbox.requests).toEqual([]);
	});

	it('explains a blocked account ("Invalid request") and shows no key', async () => {
		sandbox.admin.setJailed(sandbox.keys.borrower, true);

		const { error, run } = await loanApplication('create', CREATE_PARAMETERS);

		expect(error?.message).toBe(
			'Lendasat refuses loan applications for this borrower account (HTTP 400)',
		);
		expect(describedBy(error)).toContain(
			'Loan Application → Create: Lendasat answers "Invalid request" when the borrower account is blocked',
		);
		expect(describedBy(error)).toContain('Server said: "Invalid request".');
		expect(received()).toEqual(['POST /api/loan-applications']);
		expect(sandbox.state.loanApplications.size).toBe(3);
		expectNoKey(run, error);
	});

	it("maps the live create handler's own refusals to the field to fix", () => {
		const guidance = [BLOCKED_ACCOUNT_GUIDANCE, ...TERMS_GUIDANCE];
		const map = (message: string) =>
			mapApiError({
				operation: 'Loan Application → Create',
				statusCode: 400,
				body: { message },
				guidance,
			});

		expect(map('LTV must be between 0 and 1 but was 1.5').message).toBe(
			'Lendasat rejected the loan-to-value ratio (HTTP 400)',
		);
		expect(map('Interest rate must be between 0 and 1 but was 12').message).toBe(
			'Lendasat rejected the interest rate (HTTP 400)',
		);
		expect(map('Loan amount not valid. Was 0')).toEqual(
			expect.objectContaining({
				message: 'Lendasat rejected the loan amount range (HTTP 400)',
				description: expect.stringContaining(
					'the minimum must not exceed the maximum. Server said: "Loan amount not valid. Was 0".',
				),
			}),
		);
		expect(map('Duration not valid. Was 0').message).toBe(
			'Lendasat rejected the duration range (HTTP 400)',
		);
	});
});

describe('Loan Application → Get', () => {
	it('GETs /api/loan-applications/{id} and returns the application, simplified', async () => {
		const { items, error } = await loanApplication('get', {
			loanApplicationId: ` ${APPLICATIONS.available} `,
		});

		expect(error).toBeUndefined();
		expect(
			sandbox.requests.map(({ method, path, query, rawBody }) => ({
				method,
				path,
				query,
				rawBody,
			})),
		).toEqual([
			{
				method: 'GET',
				path: `/api/loan-applications/${APPLICATIONS.available}`,
				query: {},
				rawBody: '',
			},
		]);
		expect(Object.keys(items[0])).toEqual(SIMPLIFIED_FIELDS);
		expect(items[0]).toMatchObject({
			loan_deal_id: APPLICATIONS.available,
			status: 'Available',
			loan_amount_min: 1000,
			loan_amount_max: 5000,
		});
	});

	it('returns the whole record with Simplify off, a Deleted one too', async () => {
		const { items } = await loanApplication('get', {
			loanApplicationId: APPLICATIONS.deleted,
			simplify: false,
		});
		expect(items).toEqual([JSON.parse(JSON.stringify(stored(APPLICATIONS.deleted)))]);
		expect(items[0].status).toBe('Deleted');
	});

	it('says "not found" for an unknown ID, which Lendasat answers with 400 "Loan application does not exist"', async () => {
		const { error, run } = await loanApplication('get', { loanApplicationId: UNKNOWN_ID });

		expect(error?.message).toBe(`Not found: loan application ${UNKNOWN_ID} (HTTP 400)`);
		expect(describedBy(error)).toContain('Server said: "Loan application does not exist".');
		expectNoKey(run, error);
	});

	it("says the same for another borrower's application", async () => {
		const { error } = await loanApplication('get', {
			loanApplicationId: APPLICATIONS.otherBorrowers,
		});
		expect(error?.message).toBe(
			`Not found: loan application ${APPLICATIONS.otherBorrowers} (HTTP 400)`,
		);
	});

	it('refuses an ID that is no UUID before sending anything', async () => {
		const { error } = await loanApplication('get', { loanApplicationId: '../contracts' });
		expect(error?.message).toBe('Invalid Loan Application ID [item 0]');
		expect(sandbox.requests).toEqual([]);
	});
});

describe('Loan Application → Get Many', () => {
	/** Two more Available applications of the borrower, newer than the seeded ones. */
	function addNewer() {
		const now = Date.now();
		return [1, 2].map(
			(hoursAgo) =>
				sandbox.admin.addLoanApplication(sandbox.keys.borrower, {
					created_at: new Date(now - hoursAgo * 3_600_000).toISOString(),
				}).loan_deal_id,
		);
	}

	it('leaves Deleted applications out by default and lists the rest newest first', async () => {
		const [newest, second] = addNewer();

		const { items, error } = await loanApplication('getAll');

		expect(error).toBeUndefined();
		expect(items.map((item) => item.loan_deal_id)).toEqual([
			newest,
			second,
			APPLICATIONS.available,
		]);
		expect(items.every((item) => Object.keys(item).join() === SIMPLIFIED_FIELDS.join())).toBe(true);
		expect(sandbox.requests.map(({ method, path, query }) => ({ method, path, query }))).toEqual([
			{ method: 'GET', path: '/api/loan-applications', query: {} },
		]);
	});

	it('includes them with Include Deleted on', async () => {
		const { items } = await loanApplication('getAll', { includeDeleted: true, returnAll: true });
		expect(items.map((item) => [item.loan_deal_id, item.status])).toEqual([
			[APPLICATIONS.available, 'Available'],
			[APPLICATIONS.deleted, 'Deleted'],
		]);
	});

	it('applies the Limit after leaving Deleted ones out', async () => {
		const [newest] = addNewer();
		const { items } = await loanApplication('getAll', { limit: 1 });
		expect(items.map((item) => item.loan_deal_id)).toEqual([newest]);
		expect(sandbox.requests).toHaveLength(1);
	});
});

describe('Loan Application → Update', () => {
	it('reads the application, sends all six terms with the changes, and names the new ID and the previous one', async () => {
		const { items, error, run } = await loanApplication('update', {
			loanApplicationId: APPLICATIONS.available,
			updateFields: { interestRate: 0.095, loanAmountMax: 8000 },
		});

		expect(error).toBeUndefined();
		expect(received()).toEqual([
			`GET /api/loan-applications/${APPLICATIONS.available}`,
			`PUT /api/loan-applications/edit/${APPLICATIONS.available}`,
		]);
		expect(sandbox.requests[1].body).toEqual({
			ltv: 0.5,
			interest_rate: 0.095,
			loan_amount_min: 1000,
			loan_amount_max: 8000,
			duration_days_min: 30,
			duration_days_max: 180,
		});

		const [output] = items;
		const newId = String(output.loan_deal_id);
		expect(newId).toMatch(UUID);
		expect(newId).not.toBe(APPLICATIONS.available);
		expect(Object.keys(output)).toEqual([
			'loan_deal_id',
			'previous_loan_deal_id',
			...SIMPLIFIED_FIELDS.slice(1),
			'note',
		]);
		expect(output).toMatchObject({
			previous_loan_deal_id: APPLICATIONS.available,
			status: 'Available',
			interest_rate: 0.095,
			loan_amount_max: 8000,
			note: `Lendasat posted the updated application under a new ID: use loan_deal_id ${newId} from now on. The previous ID ${APPLICATIONS.available} is now Deleted.`,
		});
		expect(stored(APPLICATIONS.available)?.status).toBe('Deleted');
		expect(stored(newId)).toMatchObject({
			status: 'Available',
			interest_rate: 0.095,
			loan_asset: 'UsdcPol',
		});
		expectNoKey(run, items);
	});

	it('afterwards Get Many shows only the new application', async () => {
		await loanApplication('update', {
			loanApplicationId: APPLICATIONS.available,
			updateFields: { ltv: 0.4 },
		});
		const newId = [...sandbox.state.loanApplications.values()].find(
			(application) => application.ltv === 0.4,
		)?.loan_deal_id;

		const { items } = await loanApplication('getAll');
		expect(items.map((item) => item.loan_deal_id)).toEqual([newId]);
	});

	it('checks the merged terms like Create: a new minimum above the current maximum sends no PUT', async () => {
		const { error } = await loanApplication('update', {
			loanApplicationId: APPLICATIONS.available,
			updateFields: { loanAmountMin: 6000 },
		});

		expect(error?.message).toBe('Invalid Min Loan Amount [item 0]');
		expect(describedBy(error)).toContain(
			"Min Loan Amount: 6000 is more than Max Loan Amount (the application's current value) (5000)",
		);
		expect(received()).toEqual([`GET /api/loan-applications/${APPLICATIONS.available}`]);
		expect(stored(APPLICATIONS.available)?.status).toBe('Available');
	});

	it.each([
		['no field to change', {}, 'Update Fields', /Add at least one field/],
		['a LTV above 1', { ltv: 1.2 }, 'Loan-to-Value (LTV)', /more than 1/],
		['a duration of 0 days', { durationDaysMin: 0 }, 'Min Duration (Days)', /at least 1 day/],
	])('refuses %s before sending anything', async (_case, updateFields, label, problem) => {
		const { error } = await loanApplication('update', {
			loanApplicationId: APPLICATIONS.available,
			updateFields,
		});
		expect(error?.message).toBe(`Invalid ${label} [item 0]`);
		expect(describedBy(error)).toMatch(problem);
		expect(sandbox.requests).toEqual([]);
	});

	it('refuses a Deleted application, which Lendasat would post again as a new one', async () => {
		const { error } = await loanApplication('update', {
			loanApplicationId: APPLICATIONS.deleted,
			updateFields: { ltv: 0.4 },
		});

		expect(error?.message).toBe(
			`Loan application ${APPLICATIONS.deleted} is Deleted and cannot be updated [item 0]`,
		);
		expect(describedBy(error)).toContain('Update its newest ID instead');
		expect(received()).toEqual([`GET /api/loan-applications/${APPLICATIONS.deleted}`]);
		expect(sandbox.state.loanApplications.size).toBe(3);
	});

	it('refuses a Taken application', async () => {
		const taken = sandbox.admin.addLoanApplication(sandbox.keys.borrower, {
			status: 'Taken',
		}).loan_deal_id;
		const { error } = await loanApplication('update', {
			loanApplicationId: taken,
			updateFields: { ltv: 0.4 },
		});
		expect(error?.message).toBe(
			`Loan application ${taken} is Taken and cannot be updated [item 0]`,
		);
		expect(received()).toEqual([`GET /api/loan-applications/${taken}`]);
	});

	it('says "not found" for an unknown ID and sends no PUT', async () => {
		const { error, run } = await loanApplication('update', {
			loanApplicationId: UNKNOWN_ID,
			updateFields: { ltv: 0.4 },
		});
		expect(error?.message).toBe(`Not found: loan application ${UNKNOWN_ID} (HTTP 400)`);
		expect(received()).toEqual([`GET /api/loan-applications/${UNKNOWN_ID}`]);
		expectNoKey(run, error);
	});
});

describe('Loan Application → Delete', () => {
	it('reads the application, PUTs /delete/{id} without a body and confirms with the ID', async () => {
		const { items, error } = await loanApplication('delete', {
			loanApplicationId: APPLICATIONS.available,
		});

		expect(error).toBeUndefined();
		expect(
			sandbox.requests.map(({ method, path, rawBody }) => ({ method, path, rawBody })),
		).toEqual([
			{ method: 'GET', path: `/api/loan-applications/${APPLICATIONS.available}`, rawBody: '' },
			{
				method: 'PUT',
				path: `/api/loan-applications/delete/${APPLICATIONS.available}`,
				rawBody: '',
			},
		]);
		expect(items).toEqual([{ loan_deal_id: APPLICATIONS.available, deleted: true }]);
		expect(stored(APPLICATIONS.available)?.status).toBe('Deleted');
	});

	it("fails for an unknown ID, which Lendasat's delete would answer 200 null, and sends no deletion", async () => {
		const { error, items, run } = await loanApplication('delete', {
			loanApplicationId: UNKNOWN_ID,
		});

		expect(error?.message).toBe(`Not found: loan application ${UNKNOWN_ID} (HTTP 400)`);
		expect(describedBy(error)).toContain('Loan Application → Delete:');
		expect(received()).toEqual([`GET /api/loan-applications/${UNKNOWN_ID}`]);
		expect(items).toEqual([]);
		expectNoKey(run, error);
	});

	it('refuses a Taken application, which Lendasat would relabel Deleted', async () => {
		const taken = sandbox.admin.addLoanApplication(sandbox.keys.borrower, {
			status: 'Taken',
		}).loan_deal_id;
		const { error } = await loanApplication('delete', { loanApplicationId: taken });
		expect(error?.message).toBe(
			`Loan application ${taken} was taken by a lender and cannot be deleted [item 0]`,
		);
		expect(received()).toEqual([`GET /api/loan-applications/${taken}`]);
		expect(stored(taken)?.status).toBe('Taken');
	});
});

describe('the whole life of a loan application on the spec dialect', () => {
	beforeEach(() => sandbox.configure({ dialect: 'spec' }));

	it('creates, updates to a new ID, lists, deletes, and says 404 for what is gone', async () => {
		const created = await loanApplication('create', CREATE_PARAMETERS);
		expect(created.error).toBeUndefined();
		const firstId = String(created.items[0].loan_deal_id);

		const updated = await loanApplication('update', {
			loanApplicationId: firstId,
			updateFields: { durationDaysMax: 120 },
		});
		expect(updated.error).toBeUndefined();
		const secondId = String(updated.items[0].loan_deal_id);
		expect(updated.items[0]).toMatchObject({
			previous_loan_deal_id: firstId,
			duration_days_max: 120,
		});
		expect(secondId).not.toBe(firstId);

		const listed = await loanApplication('getAll', { includeDeleted: true, returnAll: true });
		expect(listed.items.map((item) => [item.loan_deal_id, item.status])).toEqual(
			expect.arrayContaining([
				[firstId, 'Deleted'],
				[secondId, 'Available'],
			]),
		);

		const deleted = await loanApplication('delete', { loanApplicationId: secondId });
		expect(deleted.items).toEqual([{ loan_deal_id: secondId, deleted: true }]);

		const gone = await loanApplication('get', { loanApplicationId: UNKNOWN_ID });
		expect(gone.error?.message).toBe(
			`Not found: loan application ${UNKNOWN_ID} (HTTP 404, LOAN_APPLICATION_NOT_FOUND)`,
		);
		expectNoKey(created.run, updated.run, listed.run, deleted.run, gone.run, gone.error);
	});

	it('explains a blocked account there too', async () => {
		sandbox.admin.setJailed(sandbox.keys.borrower, true);
		const { error } = await loanApplication('get', { loanApplicationId: APPLICATIONS.available });
		expect(error?.message).toBe(
			'Lendasat refuses loan applications for this borrower account (HTTP 403, ACCOUNT_BLOCKED)',
		);
	});
});

describe('Loan Application → Update when things go wrong', () => {
	it('two items updating the same application take turns: the second finds it replaced and changes nothing', async () => {
		const result = await runWorkflow(
			singleNodeWorkflow(
				{
					resource: 'loanApplication',
					operation: 'update',
					loanApplicationId: APPLICATIONS.available,
					updateFields: { interestRate: '={{ $json.rate }}' },
				},
				{ onError: 'continueRegularOutput' },
			),
			{ credential: borrower(), items: [{ rate: 0.1 }, { rate: 0.2 }] },
		);
		const available = [...sandbox.state.loanApplications.values()].filter(
			(application) => application.status === 'Available',
		);
		expect(
			available.filter((application) => application.borrower_id === SEED_IDS.users.borrower),
		).toHaveLength(1);
		expect(received().filter((line) => line.startsWith('PUT'))).toHaveLength(1);
		const outputs = result.output(NODE).map((item) => item.json);
		expect(outputs[0]).toMatchObject({
			interest_rate: 0.1,
			previous_loan_deal_id: APPLICATIONS.available,
		});
		expect(JSON.stringify(outputs[1])).toMatch(/is Deleted and cannot be updated/);
	});

	it('a 500 on the edit says the update may already have happened, and where to look', async () => {
		sandbox.configure({
			faults: [{ kind: '500', method: 'PUT', path: '/api/loan-applications/edit' }],
		});
		const { error, items } = await loanApplication('update', {
			loanApplicationId: APPLICATIONS.available,
			updateFields: { ltv: 0.4 },
		});
		expect(items).toEqual([]);
		expect(error?.message).toMatch(
			/^Lendasat could not confirm the update of the loan application/,
		);
		expect(describedBy(error)).toMatch(/Get Many with Include Deleted/);
	});

	it('an answer without loan_deal_id is an error, not an item that lost the new ID', async () => {
		const current = JSON.stringify(stored(APPLICATIONS.available));
		const server = http.createServer((request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(request.method === 'GET' ? current : '{"status":"Available"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const { error, items } = await loanApplication(
				'update',
				{ loanApplicationId: APPLICATIONS.available, updateFields: { ltv: 0.4 } },
				borrower({ baseUrl }),
			);
			expect(items).toEqual([]);
			expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
			expect(describedBy(error)).toMatch(/no loan_deal_id/);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it('an ID in upper case is sent in lower case, as Lendasat issues them', async () => {
		const { error } = await loanApplication('get', {
			loanApplicationId: APPLICATIONS.available.toUpperCase(),
		});
		expect(error).toBeUndefined();
		expect(received()).toEqual([`GET /api/loan-applications/${APPLICATIONS.available}`]);
	});
});

describe('Loan Application → Create after a failure that may have come after Lendasat stored it', () => {
	const count = () => sandbox.state.loanApplications.size;

	it('a 500 after the application was stored: the node finds it in the list and returns it, once', async () => {
		const before = count();
		sandbox.configure({
			faults: [{ kind: '500', method: 'POST', path: '/api/loan-applications', after: true }],
		});
		const { items, error } = await loanApplication('create', CREATE_PARAMETERS);
		expect(error).toBeUndefined();
		expect(count()).toBe(before + 1);
		expect(received()).toEqual(['POST /api/loan-applications', 'GET /api/loan-applications']);
		expect(items).toHaveLength(1);
		expect(stored(String(items[0].loan_deal_id))).toMatchObject({ status: 'Available', ltv: 0.6 });
	});

	it('a 500 before anything was stored: nothing found, not sent again, and the error says running again is safe', async () => {
		const before = count();
		sandbox.configure({
			faults: [{ kind: '500', method: 'POST', path: '/api/loan-applications' }],
		});
		const { items, error } = await loanApplication('create', CREATE_PARAMETERS);
		expect(items).toEqual([]);
		expect(count()).toBe(before);
		expect(received()).toEqual(['POST /api/loan-applications', 'GET /api/loan-applications']);
		expect(describedBy(error)).toMatch(/it was not posted, and running this item again is safe/);
	});

	it('a 400 is plainly refused: no lookup', async () => {
		const { error } = await loanApplication(
			'create',
			{ ...CREATE_PARAMETERS, ltv: 0.6 },
			borrower(),
		);
		expect(error).toBeUndefined();
		sandbox.requests.length = 0;
		sandbox.admin.setJailed(sandbox.keys.borrower, true);
		const refused = await loanApplication('create', CREATE_PARAMETERS);
		expect(refused.error).toBeDefined();
		expect(received()).toEqual(['POST /api/loan-applications']);
	});
});
