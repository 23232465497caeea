/**
 * Contract → Get Events: a partner's one workflow watches every borrower it onboarded. Each input
 * item acts as one borrower (Options → Act as Borrower) and gives that borrower's contracts as the
 * events they stand at now, each with an event_key that stays the same until something changes, for
 * Remove Duplicates to let through once. Run through n8n-core against the sandbox.
 */
import { randomBytes } from 'node:crypto';

import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { sealKey } from '../../nodes/LendasatBorrower/encryption/sealedKeys';
import { onboardBorrowers, type OnboardedBorrower } from '../../dev/sandbox/partner';
import {
	runWorkflow,
	singleNodeWorkflow,
	type RunResult,
	type TestCredential,
} from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';
import { borrowerOf, NODE } from '../helpers/operation';

const CONTRACTS = SEED_IDS.contracts;
const DAY_MS = 24 * 60 * 60_000;
/** The credential's Key Sealing Secret in the tests of sealed keys. */
const SEALING_SECRET = 'a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3';

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox({ dialect: 'live' });
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const master = (): TestCredential => ({
	...borrowerOf(sandbox, sandbox.keys.master),
	keyType: 'master',
});

/** The partner's list: its own reference and the key of each borrower. */
interface ListedBorrower {
	borrower_id: string;
	api_key: string;
}

const seededBorrowers = (): ListedBorrower[] => [
	{ borrower_id: 'alice', api_key: sandbox.keys.borrower },
	{ borrower_id: 'bob', api_key: sandbox.keys.otherBorrower },
];

/** Contract → Get Events acting as each listed borrower, as the partner template runs it. */
async function poll(
	borrowers: ListedBorrower[],
	parameters: Record<string, unknown> = {},
	settings: { onError?: 'continueErrorOutput' | 'continueRegularOutput' } = {},
	credential = master(),
): Promise<RunResult & { events: Array<Record<string, unknown>> }> {
	const { options, ...rest } = parameters as { options?: object };
	const result = await runWorkflow(
		singleNodeWorkflow(
			{
				resource: 'contract',
				operation: 'getEvents',
				borrower: '={{ $json.borrower_id }}',
				...rest,
				options: { borrowerApiKey: '={{ $json.api_key }}', ...options },
			},
			{ typeVersion: 1.1, ...settings },
		),
		{ credential, items: borrowers },
	);
	// The run's data holds the input items, keys and all, as n8n keeps them; what the node made must not.
	const made = everythingVisible(result.output(NODE, 0), result.output(NODE, 1), result.error);
	for (const { api_key: key } of borrowers) expect(made).not.toContain(key);
	expect(everythingVisible(result.run)).not.toContain(sandbox.keys.master);
	return {
		...result,
		events: result.output(NODE).map((item) => item.json as Record<string, unknown>),
	};
}

const keysOf = (events: Array<Record<string, unknown>>) =>
	events.map((event) => String(event.event_key)).sort();

/** Contract → Get Events acting as each borrower of `lists`, one input item per list (Input Item List). */
async function pollLists(
	lists: ListedBorrower[][],
	parameters: Record<string, unknown> = {},
	credential = master(),
): Promise<RunResult> {
	return await runWorkflow(
		singleNodeWorkflow(
			{ resource: 'contract', operation: 'getEvents', borrowerFrom: 'inputList', ...parameters },
			{ typeVersion: 1.1 },
		),
		{ credential, items: lists.map((borrowers) => ({ borrowers })) },
	);
}

/** The list with every key sealed with SEALING_SECRET, as the partner template's table holds them. */
const withSealedKeys = (borrowers: ListedBorrower[]): ListedBorrower[] =>
	borrowers.map((borrower) => ({
		...borrower,
		api_key: sealKey(borrower.api_key, SEALING_SECRET, randomBytes),
	}));

/** The partner's list for borrowers onboarded in the sandbox: each one's ID and key. */
const listedBorrowersOf = (borrowers: OnboardedBorrower[]): ListedBorrower[] =>
	borrowers.map((borrower) => ({ borrower_id: borrower.id, api_key: borrower.api_key }));

describe('events per borrower, from one run acting as each', () => {
	it("gives each borrower's contract statuses, margin calls and due installments, each with the borrower and a key", async () => {
		const { events, error, output } = await poll(seededBorrowers(), { daysAhead: 25 });

		expect(error).toBeUndefined();
		const alice = events.filter((event) => event.borrower === 'alice');
		const bob = events.filter((event) => event.borrower === 'bob');
		expect(alice.length + bob.length).toBe(events.length);

		const statuses = alice.filter((event) => event.event === 'contractStatusChanged');
		// Closed 88 days ago: an ending long past is left out.
		expect(statuses.map((event) => [event.contract_id, event.status])).toEqual([
			[CONTRACTS.requested, 'Requested'],
			[CONTRACTS.approved, 'Approved'],
			[CONTRACTS.marginCall, 'PrincipalGiven'],
			[CONTRACTS.principalGiven, 'PrincipalGiven'],
		]);
		const principalGiven = sandbox.state.contracts.get(CONTRACTS.principalGiven)?.contract;
		expect(statuses[3]).toMatchObject({
			borrower: 'alice',
			event: 'contractStatusChanged',
			// The first stay in PrincipalGiven.
			event_key: `${CONTRACTS.principalGiven}:PrincipalGiven:1`,
			previousStatus: 'CollateralConfirmed',
			// Simplify on: what an alert needs, not the whole record.
			next_installment: expect.objectContaining({ status: 'pending' }),
			collateral_asset: 'BitcoinBtc',
		});
		expect(statuses[3]).not.toHaveProperty('timeline');

		const marginCalls = alice.filter((event) => event.event === 'marginCall');
		const marginCall = sandbox.state.contracts.get(CONTRACTS.marginCall)?.contract;
		expect(marginCalls).toEqual([
			expect.objectContaining({
				borrower: 'alice',
				contract_id: CONTRACTS.marginCall,
				liquidation_status: 'FirstMarginCall',
				event_key: `${CONTRACTS.marginCall}:marginCall:FirstMarginCall:${new Date(String(marginCall?.updated_at)).toISOString()}`,
			}),
		]);

		const due = alice.filter((event) => event.event === 'installmentDue');
		const next = principalGiven?.installments.find(
			(installment) => installment.status === 'pending',
		);
		expect(due).toEqual([
			expect.objectContaining({
				borrower: 'alice',
				contract_id: CONTRACTS.principalGiven,
				installment_id: next?.id,
				late: false,
				days_until_due: 20,
				event_key: `${CONTRACTS.principalGiven}:${next?.id}:${new Date(String(next?.due_date)).toISOString()}`,
			}),
		]);

		expect(bob).toEqual([
			expect.objectContaining({
				borrower: 'bob',
				event: 'contractStatusChanged',
				contract_id: CONTRACTS.otherBorrowers,
				status: 'PrincipalGiven',
			}),
		]);
		// Paired with the borrower each came from.
		expect(output(NODE).map((item) => [item.json.borrower, item.pairedItem])).toEqual(
			events.map((event) => [event.borrower, { item: event.borrower === 'alice' ? 0 : 1 }]),
		);

		// One walk per borrower, with the borrower's own key, pages of 100 in creation order.
		const lists = sandbox.requests.filter((request) => request.path === '/api/contracts');
		expect(lists.map((request) => request.headers['x-api-key']).sort()).toEqual(
			[sandbox.keys.borrower, sandbox.keys.otherBorrower].sort(),
		);
		for (const list of lists)
			expect(list.query).toMatchObject({ sort_by: 'created_at', sort_order: 'desc', limit: '100' });
	});

	it('gives the same keys at every poll while nothing changes, and a new key only for what changed', async () => {
		const first = await poll(seededBorrowers(), { daysAhead: 25 });
		const second = await poll(seededBorrowers(), { daysAhead: 25 });
		expect(keysOf(second.events)).toEqual(keysOf(first.events));

		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		const third = await poll(seededBorrowers(), { daysAhead: 25 });
		const added = keysOf(third.events).filter((key) => !keysOf(first.events).includes(key));
		expect(added).toEqual([
			expect.stringMatching(new RegExp(`^${CONTRACTS.approved}:CollateralSeen:`)),
		]);
	});

	it('reads Events for each borrower when it is an expression, and once for the run when it is not', async () => {
		const eventsOf = { alice: ['marginCall'], bob: ['contractStatusChanged'] };
		const listed = seededBorrowers().map((borrower) => ({
			...borrower,
			events: eventsOf[borrower.borrower_id as 'alice' | 'bob'],
		}));
		const fromExpression = await poll(listed, { events: '={{ $json.events }}' });
		expect(fromExpression.events.map((event) => [event.borrower, event.event])).toEqual([
			['alice', 'marginCall'],
			['bob', 'contractStatusChanged'],
		]);

		const constant = await poll(seededBorrowers(), { events: ['marginCall'] });
		expect(constant.events.map((event) => [event.borrower, event.event])).toEqual([
			['alice', 'marginCall'],
		]);
	});

	it('a margin call after the contract was Healthy again is a new event; a liquidation is one event whatever follows', async () => {
		const keyOfMarginCall = async () =>
			(await poll(seededBorrowers(), { events: ['marginCall'] })).events.map(
				(event) => event.event_key,
			);
		const [first] = await keyOfMarginCall();
		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'Healthy');
		expect(await keyOfMarginCall()).toEqual([]);
		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'FirstMarginCall');
		const [again] = await keyOfMarginCall();
		expect(again).toMatch(new RegExp(`^${CONTRACTS.marginCall}:marginCall:FirstMarginCall:`));
		expect(again).not.toBe(first);

		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'Liquidated');
		sandbox.admin.setContractStatus(CONTRACTS.marginCall, 'Undercollateralized');
		const liquidated = await keyOfMarginCall();
		expect(liquidated).toEqual([`${CONTRACTS.marginCall}:marginCall:Liquidated`]);
		sandbox.admin.setContractStatus(CONTRACTS.marginCall, 'ClosingByLiquidation');
		expect(await keyOfMarginCall()).toEqual(liquidated);
	});

	it('returning to an earlier status (a dispute resolved) is a new event', async () => {
		const statusKeys = async () =>
			(await poll(seededBorrowers(), { events: ['contractStatusChanged'] })).events
				.filter((event) => event.contract_id === CONTRACTS.principalGiven)
				.map((event) => event.event_key);
		const [before] = await statusKeys();
		sandbox.admin.advanceClock(60_000);
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'DisputeBorrowerStarted');
		sandbox.admin.advanceClock(60_000);
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'PrincipalGiven');
		const [after] = await statusKeys();
		expect([before, after]).toEqual([
			`${CONTRACTS.principalGiven}:PrincipalGiven:1`,
			`${CONTRACTS.principalGiven}:PrincipalGiven:2`,
		]);
	});

	it('extra collateral on a paid-out loan changes no status key and names no earlier status', async () => {
		const statusOf = async () =>
			(await poll(seededBorrowers(), { events: ['contractStatusChanged'] })).events.find(
				(event) => event.contract_id === CONTRACTS.principalGiven,
			);
		const before = await statusOf();
		sandbox.admin.advanceClock(60_000);
		sandbox.admin.addCollateral(CONTRACTS.principalGiven, 50_000);
		const after = await statusOf();
		expect(after?.event_key).toBe(before?.event_key);
		expect(after?.previousStatus).toBe('CollateralConfirmed');
		expect(after?.previousStatus).toBe(before?.previousStatus);
	});

	it('an installment is given once it falls within Days Ahead, and under a new key once it is late', async () => {
		const contract = sandbox.state.contracts.get(CONTRACTS.principalGiven)?.contract;
		const next = contract?.installments.find((installment) => installment.status === 'pending');
		const dueKeys = async () =>
			(await poll(seededBorrowers(), { events: ['installmentDue'] })).events.map((event) => [
				event.event_key,
				event.late,
			]);
		expect(await dueKeys()).toEqual([]);
		const tomorrow = new Date(Date.now() + DAY_MS).toISOString();
		sandbox.admin.setInstallment(CONTRACTS.principalGiven, String(next?.id), {
			due_date: tomorrow,
		});
		expect(await dueKeys()).toEqual([
			[`${CONTRACTS.principalGiven}:${next?.id}:${tomorrow}`, false],
		]);
		const yesterday = new Date(Date.now() - DAY_MS).toISOString();
		sandbox.admin.setInstallment(CONTRACTS.principalGiven, String(next?.id), {
			due_date: yesterday,
			status: 'late',
		});
		expect(await dueKeys()).toEqual([
			[`${CONTRACTS.principalGiven}:${next?.id}:${yesterday}:late`, true],
		]);
	});

	it('gives only the chosen events and statuses; Simplify off gives the whole record as the trigger does', async () => {
		const { events } = await poll([seededBorrowers()[0]], {
			events: ['contractStatusChanged'],
			statuses: ['Approved', 'Requested'],
			simplify: false,
		});
		expect(events.map((event) => event.contract_id)).toEqual([
			CONTRACTS.requested,
			CONTRACTS.approved,
		]);
		expect(events[1]).toMatchObject({
			status: 'Approved',
			previousStatus: 'Requested',
			timeline: expect.any(Array),
			collateral_asset: 'BitcoinBtc',
			kyc_link: null,
		});
	});

	it('leaves out a contract that ended more than 30 days ago, and gives one that ended since', async () => {
		sandbox.admin.setContractStatus(CONTRACTS.requested, 'Cancelled');
		const { events } = await poll([seededBorrowers()[0]], { events: ['contractStatusChanged'] });
		const ids = events.map((event) => event.contract_id);
		expect(ids).toContain(CONTRACTS.requested);
		expect(ids).not.toContain(CONTRACTS.closed);
	});
});

describe("the partner's list with its keys sealed", () => {
	it('gives the very events of the plain list, and no plain key is anywhere in the run', async () => {
		const plain = await poll(seededBorrowers(), { daysAhead: 25 });
		sandbox.reset();
		const sealed = await poll(
			withSealedKeys(seededBorrowers()),
			{ daysAhead: 25 },
			{},
			{ ...master(), sealingSecret: SEALING_SECRET },
		);

		expect(sealed.error).toBeUndefined();
		expect(keysOf(sealed.events)).toEqual(keysOf(plain.events));
		expect(sealed.events.length).toBeGreaterThan(0);
		const visible = everythingVisible(sealed.run);
		for (const key of [sandbox.keys.borrower, sandbox.keys.otherBorrower, SEALING_SECRET]) {
			expect(visible).not.toContain(key);
		}
	});
});

describe('Borrower From → Input Item Fields', () => {
	it('gives the very events of the expressions, sealed keys opened, each borrower with its own key', async () => {
		const withExpressions = await poll(seededBorrowers(), { daysAhead: 25 });
		sandbox.reset();
		const sealedList = seededBorrowers().map((borrower) => ({
			ref: borrower.borrower_id,
			key: sealKey(borrower.api_key, SEALING_SECRET, randomBytes),
		}));
		const result = await runWorkflow(
			singleNodeWorkflow(
				{
					resource: 'contract',
					operation: 'getEvents',
					borrowerFrom: 'inputFields',
					keyField: 'key',
					borrowerField: 'ref',
					daysAhead: 25,
				},
				{ typeVersion: 1.1 },
			),
			{ credential: { ...master(), sealingSecret: SEALING_SECRET }, items: sealedList },
		);
		expect(result.error).toBeUndefined();
		const events = result.output(NODE).map((item) => item.json as Record<string, unknown>);
		expect(events).toEqual(withExpressions.events);
		expect(new Set(sandbox.requests.map((request) => request.headers['x-api-key']))).toEqual(
			new Set([sandbox.keys.borrower, sandbox.keys.otherBorrower]),
		);
		const visible = everythingVisible(result.run);
		for (const key of [
			sandbox.keys.borrower,
			sandbox.keys.otherBorrower,
			sandbox.keys.master,
			SEALING_SECRET,
		]) {
			expect(visible).not.toContain(key);
		}
	});
});

describe('Borrower From → Input Item List', () => {
	it('gives the very events of an item per borrower, sealed keys opened, from one item listing them', async () => {
		const oneEach = await poll(seededBorrowers(), { daysAhead: 25 });
		sandbox.reset();
		const result = await pollLists(
			[withSealedKeys(seededBorrowers())],
			{ daysAhead: 25 },
			{ ...master(), sealingSecret: SEALING_SECRET },
		);
		expect(result.error).toBeUndefined();
		const events = result.output(NODE).map((item) => item.json as Record<string, unknown>);
		expect(events).toEqual(oneEach.events);
		expect(result.output(NODE).map((item) => item.pairedItem)).toEqual(
			events.map(() => ({ item: 0 })),
		);
		const visible = everythingVisible(result.run);
		for (const key of [sandbox.keys.borrower, sandbox.keys.otherBorrower, SEALING_SECRET]) {
			expect(visible).not.toContain(key);
		}
	});
});

describe('one borrower cannot spoil the others', () => {
	const withBadKey = (): ListedBorrower[] => [
		seededBorrowers()[0],
		{
			borrower_id: 'carol',
			api_key: 'lndst_sk_000000000000_RevokedKeyOfCarolRevokedKeyOfCarol1234',
		},
		seededBorrowers()[1],
	];

	it('a key Lendasat rejects fails that borrower’s item only, on the error output, naming no key', async () => {
		const { events, output, error } = await poll(
			withBadKey(),
			{},
			{ onError: 'continueErrorOutput' },
		);
		expect(error).toBeUndefined();
		expect(new Set(events.map((event) => event.borrower))).toEqual(new Set(['alice', 'bob']));
		const failed = output(NODE, 1);
		expect(failed).toHaveLength(1);
		expect(failed[0].error?.message).toMatch(/^Lendasat rejected the Act as Borrower API key/);
		expect(failed[0].pairedItem).toEqual({ item: 1 });
		// n8n keeps only the error of a failed item; its pairedItem says whom it concerns.
		expect(failed[0].json).toEqual({ error: failed[0].error?.message });
	});

	it('without Continue, the run stops with that error', async () => {
		const { error } = await poll(withBadKey());
		expect(error?.message).toMatch(/^Lendasat rejected the Act as Borrower API key/);
	});

	it('an answer that is an error in a 200 is an error, never events', async () => {
		sandbox.configure({
			faults: [{ kind: 'bad-200', body200: 'message-body', method: 'GET', path: '/api/contracts' }],
		});
		const { events, output } = await poll(
			[seededBorrowers()[0]],
			{},
			{ onError: 'continueErrorOutput' },
		);
		expect(events).toEqual([]);
		expect(output(NODE, 1).map((item) => item.error?.message)).toEqual([
			'Lendasat sent an answer the node cannot use (HTTP 200)',
		]);
	});

	it('refuses a Borrower that holds an API key, sending nothing', async () => {
		const before = sandbox.requests.length;
		const { error, events } = await poll([seededBorrowers()[0]], {
			borrower: '={{ "alice " + $json.api_key }}',
		});
		expect(events).toEqual([]);
		expect(error?.message).toBe('Invalid Borrower [item 0]');

		expect(String((error as { description?: string }).description)).toMatch(/holds an API key/);
		expect(sandbox.requests.length).toBe(before);
	});

	it.each([
		['the key it acts as', (listed: ListedBorrower) => listed.api_key],
		["the credential's master key", () => sandbox.keys.master],
	])('refuses a Borrower that holds %s in base64, which no key pattern finds', async (_, keyOf) => {
		const [alice] = seededBorrowers();
		const listed = { ...alice, hidden: Buffer.from(keyOf(alice)).toString('base64') };
		const before = sandbox.requests.length;
		const { error } = await poll([listed], { borrower: '={{ $json.hidden }}' });
		expect(error?.message).toBe('Invalid Borrower [item 0]');
		expect(String((error as { description?: string }).description)).toMatch(/holds an API key/);
		expect(sandbox.requests.length).toBe(before);
	});

	it('refuses a Borrower that holds a sealed key, sending nothing', async () => {
		// Not the key this item acts with: another borrower's, sealed.
		const listed = {
			borrower_id: 'alice',
			api_key: sandbox.keys.borrower,
			old_key: sealKey(sandbox.keys.otherBorrower, SEALING_SECRET, randomBytes),
		};
		const { error } = await poll(
			[listed],
			{ borrower: '={{ $json.old_key }}' },
			{},
			{ ...master(), sealingSecret: SEALING_SECRET },
		);
		expect(error?.message).toBe('Invalid Borrower [item 0]');
		expect(String((error as { description?: string }).description)).toMatch(/holds an API key/);
		expect(sandbox.requests).toEqual([]);
	});

	it('fails the borrower whose open installment has a due date it cannot place', async () => {
		const contract = sandbox.state.contracts.get(CONTRACTS.principalGiven)?.contract;
		const next = contract?.installments.find((installment) => installment.status === 'pending');
		if (next) next.due_date = '2026-03-01T12:00:00';
		const { output } = await poll(seededBorrowers(), {}, { onError: 'continueErrorOutput' });
		const [failed] = output(NODE, 1);
		expect(failed.error?.message).toBe(
			'Contract → Get Events: the due date of an installment cannot be read',
		);
		expect(failed.pairedItem).toEqual({ item: 0 });
		expect(output(NODE, 0).map((item) => item.json.borrower)).toEqual(['bob']);
	});
});

describe('odd answers fail the borrower, never become odd events', () => {
	const page = (contracts: object[], total = contracts.length) =>
		JSON.stringify({ data: contracts, page: 1, limit: 100, total, total_pages: 1 });

	/** Alice's contract list answered with `body` (a whole 200 answer), Bob's as the sandbox has it. */
	const answerAliceWith = (body: string) =>
		sandbox.configure({
			faults: [{ kind: 'trickle', delayMs: 1, method: 'GET', path: '/api/contracts', body }],
		});

	const aliceContract = () => {
		const contract = sandbox.state.contracts.get(CONTRACTS.principalGiven)?.contract;
		return JSON.parse(JSON.stringify(contract)) as Record<string, unknown>;
	};

	it('the same contract listed twice, its ID in capitals the second time, is one contract', async () => {
		const contract = aliceContract();
		const twice = [contract, { ...contract, id: String(contract.id).toUpperCase() }];
		answerAliceWith(page(twice, 1));
		const { events } = await poll([seededBorrowers()[0]], { events: ['contractStatusChanged'] });
		expect(events.map((event) => event.event_key)).toEqual([
			`${CONTRACTS.principalGiven}:PrincipalGiven:1`,
		]);

		// Counted as two: one contract is missing, so the borrower fails rather than miss it.
		answerAliceWith(page(twice));
		const counted = await poll(
			[seededBorrowers()[0]],
			{ events: ['contractStatusChanged'] },
			{ onError: 'continueErrorOutput' },
		);
		expect(counted.events).toEqual([]);
		expect(counted.output(NODE, 1).map((item) => item.error?.message)).toEqual([
			'Lendasat returned 1 of 2 contracts',
		]);
	});

	it.each([
		['a status that is not text', { status: { value: 'PrincipalGiven' } }, 'has the status {'],
		['no status', { status: undefined }, 'has the status nothing'],
		[
			'installments that are not a list on a paid-out loan',
			{ installments: 'see the schedule' },
			'is PrincipalGiven but its installments are',
		],
	])(
		'a contract with %s fails that borrower alone, with nothing of it output',
		async (_case, fields, problem) => {
			answerAliceWith(page([{ ...aliceContract(), ...fields }]));
			const { events, output } = await poll(
				seededBorrowers(),
				{},
				{ onError: 'continueErrorOutput' },
			);
			expect(new Set(events.map((event) => event.borrower))).toEqual(new Set(['bob']));
			const [failed] = output(NODE, 1);
			expect(failed.error?.message).toBe(
				'Contract → Get Events: Lendasat sent a contract the node cannot read',
			);
			expect(String(failed.error?.description)).toContain(problem);
			expect(failed.pairedItem).toEqual({ item: 0 });
		},
	);

	it('refuses a Statuses value that is no status (a display name), sending nothing', async () => {
		const before = sandbox.requests.length;
		const { error, events } = await poll([seededBorrowers()[0]], {
			events: ['contractStatusChanged'],
			statuses: ['Principal Given'],
		});
		expect(events).toEqual([]);
		expect(error?.message).toBe('Invalid Statuses [item 0]');
		expect(String((error as { description?: string }).description)).toContain(
			'"Principal Given" is not a contract status',
		);
		expect(sandbox.requests.length).toBe(before);
	});
});

describe('polite at partner scale', () => {
	it('40 borrowers, each with a key of its own: at most Max Parallel Requests of the run under way at once', async () => {
		const borrowers = await onboardBorrowers(sandbox.url, sandbox.keys.master, 40, [
			{ status: 'PrincipalGiven' },
		]);
		sandbox.configure({ latencyMs: 30 });
		const from = sandbox.requests.length;
		const { events } = await poll(listedBorrowersOf(borrowers), {
			events: ['contractStatusChanged'],
			options: { maxConcurrent: 4 },
		});
		expect(events).toHaveLength(40);
		expect(
			new Set(sandbox.requests.slice(from).map((request) => request.headers['x-api-key'])).size,
		).toBe(40);
		const { peakRequestsInFlight } = sandbox.stats();
		expect(peakRequestsInFlight).toBeLessThanOrEqual(4);
		expect(peakRequestsInFlight).toBeGreaterThan(1);
	});

	it('a listed borrower’s time budget begins when the node takes it up: ten in one list, one slot, every one answered', async () => {
		const borrowers = await onboardBorrowers(sandbox.url, sandbox.keys.master, 10, [
			{ status: 'PrincipalGiven' },
		]);
		sandbox.configure({ latencyMs: 200 });
		const from = sandbox.requests.length;
		const startedAt = Date.now();
		// As items, only five would be answered within this budget (actAsBorrower.test.ts): every
		// item's budget starts with the run.
		const result = await pollLists([listedBorrowersOf(borrowers)], {
			events: ['contractStatusChanged'],
			options: { maxConcurrent: 1, timeBudget: 1_100 },
		});
		expect(result.error).toBeUndefined();
		expect(result.output(NODE).map((item) => item.json.borrower)).toEqual(
			borrowers.map((borrower) => borrower.id),
		);
		expect(sandbox.requests.slice(from)).toHaveLength(10);
		// One answer every 200 ms; four borrowers at work at once, each waiting at most three answers.
		expect(Date.now() - startedAt).toBe(2_000);
	});

	it('the same 40 in two lists of 20: the run’s cap holds across its items, and each list keeps its order', async () => {
		const borrowers = await onboardBorrowers(sandbox.url, sandbox.keys.master, 40, [
			{ status: 'PrincipalGiven' },
		]);
		sandbox.configure({ latencyMs: 30 });
		const rows = listedBorrowersOf(borrowers);
		const result = await pollLists([rows.slice(0, 20), rows.slice(20)], {
			events: ['contractStatusChanged'],
			options: { maxConcurrent: 4 },
		});
		expect(result.error).toBeUndefined();
		expect(result.output(NODE).map((item) => item.json.borrower)).toEqual(
			rows.map((row) => row.borrower_id),
		);
		const { peakRequestsInFlight } = sandbox.stats();
		expect(peakRequestsInFlight).toBeLessThanOrEqual(4);
		expect(peakRequestsInFlight).toBeGreaterThan(1);
	});
});
