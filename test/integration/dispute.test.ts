import { startSandbox, SEED_IDS, type FaultRule, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * Disputes: a borrower whose lender never paid out asks Lendasat's support to step in, writes to the
 * dispute, follows it and closes it once settled. Against the sandbox in both dialects; the live one
 * has the backend's habits (routes/borrower/dispute.rs of hub 0.8.2).
 */

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const CONTRACTS = SEED_IDS.contracts;
const NODE = 'Lendasat Borrower';
const REASON = 'Payment issue: Did not receive loan amount';
const DETAILS = 'The collateral confirmed two days ago; the loan was never paid out.';
const UNKNOWN = '99999999-0000-4000-8000-000000000000';

const borrower = (overrides: Partial<TestCredential> = {}): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
	...overrides,
});

const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });
const fromList = (id: string) => ({ __rl: true, mode: 'list', value: id });

async function dispute(
	operation: string,
	parameters: Record<string, unknown> = {},
	credential = borrower(),
) {
	const result = await runWorkflow(
		singleNodeWorkflow({ resource: 'dispute', operation, ...parameters }, { typeVersion: 1.1 }),
		{ credential },
	);
	return { ...result, items: result.output(NODE).map((item) => item.json) };
}

const open = (contractId: string = CONTRACTS.approved, credential = borrower()) =>
	dispute('create', { contractId: byId(contractId), reason: REASON, message: DETAILS }, credential);

const received = () => sandbox.requests.map((request) => `${request.method} ${request.path}`);
const statusOf = (id: string) => sandbox.state.contracts.get(id)?.contract.status;

function describedBy(error: unknown): string {
	return String((error as { description?: unknown } | undefined)?.description ?? '');
}

/** A contract whose collateral confirmed but whose lender never paid out. */
function neverPaidOut(): string {
	sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralConfirmed');
	return CONTRACTS.approved;
}

describe.each(['live', 'spec'] as const)(
	'the story (%s dialect): the lender never paid out',
	(dialect) => {
		beforeEach(() => sandbox.configure({ dialect }));

		it('opens a dispute, writes to it, lists it with its messages and resolves it', async () => {
			const contractId = neverPaidOut();

			const created = await dispute('create', {
				contractId: fromList(contractId),
				reason: ` ${REASON} `,
				message: `${DETAILS}\nTransaction of the collateral: 4a5e1e4b…`,
			});
			expect(created.error).toBeUndefined();
			const [opened] = created.items;
			expect(opened).toMatchObject({
				id: expect.stringMatching(/^[0-9a-f-]{36}$/),
				contract_id: contractId,
				initiator_type: 'Borrower',
				status: 'DisputeStartedBorrower',
				// Lendasat keeps the message in the reason.
				reason: `${REASON}. ${DETAILS}\nTransaction of the collateral: 4a5e1e4b…`,
				resolved_at: null,
			});
			expect(sandbox.requests[0].body).toEqual({
				contract_id: contractId,
				reason: REASON,
				comment: `${DETAILS}\nTransaction of the collateral: 4a5e1e4b…`,
			});
			expect(statusOf(contractId)).toBe('DisputeBorrowerStarted');
			const id = String(opened.id);

			const written = await dispute('addMessage', {
				disputeId: ` ${id.toUpperCase()} `,
				message: 'Any news from the lender?',
			});
			expect(written.error).toBeUndefined();
			expect(written.items).toEqual([{ id, message_added: true }]);

			const listed = await dispute('getAll', { contractId: byId(contractId) });
			expect(listed.error).toBeUndefined();
			expect(listed.items).toEqual([
				{
					...opened,
					messages: [
						expect.objectContaining({
							dispute_id: id,
							sender_type: 'Borrower',
							message: 'Any news from the lender?',
						}),
					],
				},
			]);

			const resolved = await dispute('resolve', { disputeId: id });
			expect(resolved.error).toBeUndefined();
			expect(resolved.items).toEqual([{ id, resolved: true }]);
			expect(statusOf(contractId)).toBe('CollateralConfirmed');

			expect(received()).toEqual([
				'POST /api/disputes',
				`PUT /api/disputes/${id}`,
				'GET /api/disputes',
				`PUT /api/disputes/${id}/resolve`,
			]);
			expect(sandbox.requests[1].body).toEqual({ message: 'Any news from the lender?' });
			expect(sandbox.requests[2].query).toEqual({ contract_id: contractId });
			expect(sandbox.requests[3].rawBody).toBe('');

			const after = await dispute('getAll', { contractId: byId(contractId) });
			expect(after.items.map((item) => item.status)).toEqual(['Closed']);
			expect(
				everythingVisible(created.items, written.items, listed.items, resolved.items),
			).not.toContain(sandbox.keys.borrower);
		});
	},
);

describe('Dispute → Get Many', () => {
	it('lists the newest first and applies Limit to the whole list Lendasat sends', async () => {
		const first = (await open()).items[0];
		await dispute('resolve', { disputeId: String(first.id) });
		const second = (await open()).items[0];

		const limited = await dispute('getAll', { contractId: byId(CONTRACTS.approved), limit: 1 });
		expect(limited.items.map((item) => item.id)).toEqual([second.id]);
		const all = await dispute('getAll', {
			contractId: byId(CONTRACTS.approved),
			returnAll: true,
		});
		expect(all.items.map((item) => item.id)).toEqual([second.id, first.id]);
		// One request each: the API does not page.
		expect(received().filter((request) => request.startsWith('GET'))).toHaveLength(2);
	});

	it('gives no item for a contract without disputes', async () => {
		const { items, error } = await dispute('getAll', { contractId: byId(CONTRACTS.requested) });
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
	});
});

describe('bad input never reaches Lendasat', () => {
	const createWith = (parameters: Record<string, unknown>) =>
		dispute('create', {
			contractId: byId(CONTRACTS.approved),
			reason: REASON,
			message: DETAILS,
			...parameters,
		});

	it.each([
		['an empty reason', { reason: '  ' }, 'Invalid Reason [item 0]', /Must not be empty/],
		[
			'a reason over two lines',
			{ reason: 'Payment issue\nDid not receive' },
			'Invalid Reason [item 0]',
			/keep it to one line/,
		],
		[
			'a reason of 201 characters',
			{ reason: 'x'.repeat(201) },
			'Invalid Reason [item 0]',
			/Too long: 201 characters, at most 200/,
		],
		['an empty message', { message: '' }, /Parameter "Message" is required/, /^$/],
		[
			'a message an expression left blank',
			{ message: '={{ "  " }}' },
			'Invalid Message [item 0]',
			/Must not be empty/,
		],
		[
			'a message with a control character',
			{ message: 'Not paid\u0007' },
			'Invalid Message [item 0]',
			/control character other than a line break or tab/,
		],
		[
			'a message of 5,001 characters',
			{ message: 'y'.repeat(5001) },
			'Invalid Message [item 0]',
			/Too long: 5001 characters, at most 5000/,
		],
		[
			'a contract ID that is not a UUID',
			{ contractId: byId('contract-1') },
			/Not a contract ID: expected a UUID/,
			/^$/,
		],
		[
			'a contract ID from an expression that is not a UUID',
			{ contractId: byId('={{ "contract-1" }}') },
			'Invalid Contract [item 0]',
			/not an ID of the form/,
		],
	])('Create refuses %s', async (_case, parameters, message, problem) => {
		const { error, items } = await createWith(parameters);
		expect(items).toEqual([]);
		// n8n's editor checks (a required parameter, the By ID pattern) come first; then the node's.
		expect(error?.message).toMatch(message);
		expect(describedBy(error)).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		[
			'Add Message',
			'a dispute ID that is no UUID',
			'addMessage',
			{ disputeId: 'dispute-1', message: 'hi' },
			'Invalid Dispute ID',
		],
		[
			'Add Message',
			'a blank message',
			'addMessage',
			{ disputeId: UNKNOWN, message: ' ' },
			'Invalid Message',
		],
		[
			'Resolve',
			'a dispute ID with a character too many',
			'resolve',
			{ disputeId: `${UNKNOWN}x` },
			'Invalid Dispute ID',
		],
		[
			'Get Many',
			'a blank contract',
			'getAll',
			{ contractId: byId('={{ "" }}') },
			'Invalid Contract',
		],
		[
			'Get Many',
			'Limit 0',
			'getAll',
			{ contractId: byId(CONTRACTS.approved), limit: 0 },
			'Invalid Limit',
		],
	])('%s refuses %s', async (_name, _case, operation, parameters, message) => {
		const { error } = await dispute(operation, parameters);
		expect(error?.message).toBe(`${message} [item 0]`);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['a borrower key in the message', 'message', () => sandbox.keys.borrower],
		['a master key in the reason', 'reason', () => sandbox.keys.master],
	])('sends no text holding %s, and does not repeat it', async (_case, field, keyOf) => {
		const key = keyOf();
		const { error } = await createWith({ [field]: `Here it is: ${key}` });
		expect(error?.message).toMatch(/^Invalid (Message|Reason) \[item 0\]$/);
		expect(describedBy(error)).toContain('Lendasat API key (not shown)');
		// The workflow's own parameters hold what was pasted; the error must not repeat it.
		expect(`${error?.message} ${describedBy(error)}`).not.toContain(key.slice(0, 12));
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe("what Lendasat refuses, explained (the live backend's answers)", () => {
	beforeEach(() => sandbox.configure({ dialect: 'live' }));

	it('a second dispute while one is open', async () => {
		await open();
		const { error } = await open();
		expect(error?.message).toBe('The contract already has an open dispute (HTTP 400)');
		expect(describedBy(error)).toContain('Dispute → Add Message');
		expect(describedBy(error)).toContain('Dispute already in progress');
	});

	it('resolving a dispute twice, or one the lender started', async () => {
		const id = String((await open()).items[0].id);
		await dispute('resolve', { disputeId: id });
		const again = await dispute('resolve', { disputeId: id });
		expect(again.error?.message).toBe(
			'Only an open dispute that you started can be resolved (HTTP 400)',
		);
		expect(describedBy(again.error)).toContain('already resolved (status Closed)');

		const lenders = sandbox.admin.startLenderDispute(CONTRACTS.principalGiven);
		const theirs = await dispute('resolve', { disputeId: lenders.id });
		expect(theirs.error?.message).toBe(
			'Only an open dispute that you started can be resolved (HTTP 400)',
		);
		expect(statusOf(CONTRACTS.principalGiven)).toBe('DisputeLenderStarted');
	});

	it("resolving another borrower's dispute: Lendasat's 500, explained, and not sent twice", async () => {
		const theirs = await open(
			CONTRACTS.otherBorrowers,
			borrower({ apiKey: sandbox.keys.otherBorrower }),
		);
		const { error } = await dispute('resolve', { disputeId: String(theirs.items[0].id) });
		expect(error?.message).toBe('Lendasat could not resolve the dispute (HTTP 500)');
		expect(describedBy(error)).toContain("another account's contract");
		expect(describedBy(error)).toContain('Something went wrong');
		expect(received().filter((request) => request.endsWith('/resolve'))).toHaveLength(1);
		expect(statusOf(CONTRACTS.otherBorrowers)).toBe('DisputeBorrowerStarted');
	});

	it('opening a dispute on a contract that is not yours', async () => {
		const { error } = await open(CONTRACTS.otherBorrowers);
		expect(error?.message).toBe(
			`Lendasat had an internal error — contract ${CONTRACTS.otherBorrowers} may not exist (HTTP 500)`,
		);
		expect(received()).toEqual(['POST /api/disputes']);
	});

	it('writing to a dispute that does not exist', async () => {
		const { error } = await dispute('addMessage', { disputeId: UNKNOWN, message: 'hi' });
		expect(error?.message).toBe(
			`Lendasat had an internal error — dispute ${UNKNOWN} may not exist (HTTP 500)`,
		);
		expect(received()).toEqual([`PUT /api/disputes/${UNKNOWN}`]);
	});

	it('the specification dialect says the same with its own codes', async () => {
		sandbox.configure({ dialect: 'spec' });
		await open();
		expect((await open()).error?.message).toBe(
			'The contract already has an open dispute (HTTP 400, DISPUTE_IN_PROGRESS)',
		);
		expect((await open(CONTRACTS.otherBorrowers)).error?.message).toBe(
			`Not found: contract ${CONTRACTS.otherBorrowers} (HTTP 404, CONTRACT_NOT_FOUND)`,
		);
		expect((await dispute('resolve', { disputeId: UNKNOWN })).error?.message).toBe(
			`Not found: dispute ${UNKNOWN} (HTTP 404, DISPUTE_NOT_FOUND)`,
		);
	});
});

describe("Lendasat's error body with status 200 is an error, never a confirmation", () => {
	const liveError = { kind: 'trickle', body: '{"message":"Something went wrong"}', delayMs: 0 };

	it.each([
		['create', 'POST', '/api/disputes', /it has no id, the ID of a dispute|error message/],
		['addMessage', 'PUT', `/api/disputes/${UNKNOWN}`, /error message, although the status/],
		['resolve', 'PUT', `/api/disputes/${UNKNOWN}/resolve`, /error message, although the status/],
		['getAll', 'GET', '/api/disputes', /it is an error message, although the status says success/],
	])('%s', async (operation, method, path, problem) => {
		sandbox.configure({ faults: [{ ...liveError, method, path }] as FaultRule[] });
		const { error, items } = await dispute(operation, {
			contractId: byId(CONTRACTS.approved),
			disputeId: UNKNOWN,
			reason: REASON,
			message: DETAILS,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(describedBy(error)).toMatch(problem);
		expect(received()).toHaveLength(1);
	});
});

describe('the key stays hidden', () => {
	it('a rejected key is explained, never shown', async () => {
		const wrongKey = 'lndst_sk_0123456789ab_ThisKeyDoesNotExist42';
		const { error } = await dispute(
			'getAll',
			{ contractId: byId(CONTRACTS.approved) },
			borrower({ apiKey: wrongKey }),
		);
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect(`${error?.message} ${describedBy(error)}`).not.toContain('ThisKeyDoesNotExist42');
	});

	it("an answer echoing the key is refused whole (the sandbox's echo fault)", async () => {
		sandbox.configure({
			faults: [{ kind: 'bad-200', body200: 'echo-key', method: 'POST', path: '/api/disputes' }],
		});
		const { error, items } = await open();
		expect(items).toEqual([]);
		expect(everythingVisible(error?.message, describedBy(error), items)).not.toContain(
			sandbox.keys.borrower,
		);
	});
});
