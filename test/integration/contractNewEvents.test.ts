/**
 * Contract → Get New Events: a partner's watch remembers, with each borrower, the events it has
 * delivered, and asks only for what is new. Each input item is a borrower as the partner stores it
 * (its reference, its key, what was reported); each output item is one borrower with news: the
 * events, the claim to write before sending them and what to store once they are delivered. Run
 * through n8n-core against the sandbox, storing `reported` between polls as the template does.
 */
import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type RunResult } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';
import { borrowerOf, NODE } from '../helpers/operation';
import { readReported } from '../../nodes/LendasatBorrower/resources/contract/reported';

const CONTRACTS = SEED_IDS.contracts;
const MINUTE = 60_000;

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox({ dialect: 'live' });
});
afterAll(async () => sandbox.close());

/** The partner's table: a row per borrower, with the memory the watch stores. */
interface Row {
	borrower_id: string;
	api_key: string;
	reported: string | null;
}

let rows: Row[];

beforeEach(() => {
	sandbox.reset();
	rows = [
		{ borrower_id: 'alice', api_key: sandbox.keys.borrower, reported: null },
		{ borrower_id: 'bob', api_key: sandbox.keys.otherBorrower, reported: null },
	];
});

type Item = {
	borrower: string;
	events: Array<Record<string, unknown>>;
	reported_before: string | null;
	reported_claim: string;
	reported: string;
};

/** One poll of every row: Get New Events acting as each borrower, with what the row remembers. */
async function poll(
	parameters: Record<string, unknown> = {},
	settings: { onError?: 'continueErrorOutput' } = {},
): Promise<RunResult & { items: Item[] }> {
	const result = await runWorkflow(
		singleNodeWorkflow(
			{
				resource: 'contract',
				operation: 'getNewEvents',
				borrower: '={{ $json.borrower_id }}',
				reported: '={{ $json.reported }}',
				daysAhead: 25,
				...parameters,
				options: { borrowerApiKey: '={{ $json.api_key }}' },
			},
			{ typeVersion: 1.1, ...settings },
		),
		{
			credential: { ...borrowerOf(sandbox, sandbox.keys.master), keyType: 'master' },
			items: rows,
		},
	);
	const made = everythingVisible(result.output(NODE, 0), result.output(NODE, 1), result.error);
	for (const { api_key: key } of rows) expect(made).not.toContain(key);
	return { ...result, items: result.output(NODE).map((item) => item.json as unknown as Item) };
}

/** What the template does once a borrower's alert was delivered: store `reported` in its row. */
function store(items: Item[]): void {
	for (const item of items) {
		const row = rows.find((candidate) => candidate.borrower_id === item.borrower);
		if (row) row.reported = item.reported;
	}
}

/** Polls, delivers everything and stores it; returns the event keys each borrower was told. */
async function pollAndDeliver(parameters: Record<string, unknown> = {}) {
	const { items, error } = await poll(parameters);
	expect(error).toBeUndefined();
	store(items);
	return Object.fromEntries(
		items.map((item) => [item.borrower, item.events.map((event) => String(event.event_key))]),
	);
}

describe('a watch that remembers what it delivered', () => {
	it('first poll: one item per borrower with every event that stands, paired with its row', async () => {
		const { items, output } = await poll();
		expect(items.map((item) => item.borrower)).toEqual(['alice', 'bob']);
		const [alice] = items;
		expect(alice.events.map((event) => [event.event, event.contract_id])).toEqual([
			['contractStatusChanged', CONTRACTS.requested],
			['contractStatusChanged', CONTRACTS.approved],
			['contractStatusChanged', CONTRACTS.marginCall],
			['marginCall', CONTRACTS.marginCall],
			['contractStatusChanged', CONTRACTS.principalGiven],
			['installmentDue', CONTRACTS.principalGiven],
		]);
		expect(alice.events[3]).toMatchObject({
			borrower: 'alice',
			event_key: `${CONTRACTS.marginCall}:marginCall:FirstMarginCall`,
			liquidation_status: 'FirstMarginCall',
		});
		expect(alice.reported_before).toBeNull();
		expect(readReported(alice.reported)?.delivered.size).toBe(6);
		// The claim: nothing delivered yet, this execution sending until 10 minutes from now.
		expect(readReported(alice.reported_claim)).toEqual({
			delivered: new Set(),
			claim: { by: expect.any(String), until: Date.now() + 10 * MINUTE },
		});
		expect(output(NODE).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('then nothing while nothing changes, and only what changed', async () => {
		await pollAndDeliver();
		expect((await poll()).items).toEqual([]);

		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		expect(await pollAndDeliver()).toEqual({
			alice: [`${CONTRACTS.approved}:CollateralSeen:1`],
		});
		expect((await poll()).items).toEqual([]);
	});

	it('a margin call once per episode: not again when something else changes, again after Healthy in between', async () => {
		await pollAndDeliver();
		// Collateral added that Lendasat has not yet found enough: the contract changes, the margin call stays.
		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.addCollateral(CONTRACTS.marginCall, 10_000);
		expect((await poll()).items).toEqual([]);

		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'Healthy');
		// Nothing to tell, but the memory shrinks: the margin call is over.
		const healthy = await poll();
		expect(healthy.items).toEqual([
			expect.objectContaining({ borrower: 'alice', events: [], reported_claim: rows[0].reported }),
		]);
		store(healthy.items);
		expect((await poll()).items).toEqual([]);

		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'FirstMarginCall');
		expect(await pollAndDeliver()).toEqual({
			alice: [`${CONTRACTS.marginCall}:marginCall:FirstMarginCall`],
		});
		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'SecondMarginCall');
		expect(await pollAndDeliver()).toEqual({
			alice: [`${CONTRACTS.marginCall}:marginCall:SecondMarginCall`],
		});
	});

	it('extra collateral on a paid-out loan is no status change', async () => {
		await pollAndDeliver();
		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.addCollateral(CONTRACTS.principalGiven, 50_000);
		expect((await poll()).items).toEqual([]);
	});

	it('what was not stored (the alert failed) is given again at the next poll, and only that', async () => {
		await pollAndDeliver();
		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		const failed = await poll();
		expect(failed.items.map((item) => item.events.length)).toEqual([1]);
		// Not stored: the alert did not go out.
		expect((await pollAndDeliver()).alice).toEqual([`${CONTRACTS.approved}:CollateralSeen:1`]);
	});

	it('leaves a borrower to the poll whose claim stands, and takes it over once the claim lapsed', async () => {
		const first = await poll();
		// Another poll wrote its claim for alice and has not recorded yet.
		rows[0].reported = first.items[0].reported_claim.replace(/![^@]+@/, '!other@');
		expect((await poll()).items.map((item) => item.borrower)).toEqual(['bob']);
		sandbox.admin.advanceClock(11 * MINUTE);
		jest.advanceTimersByTime(11 * MINUTE);
		expect((await poll()).items.map((item) => item.borrower)).toEqual(['alice', 'bob']);
	});

	it('First Poll of a Borrower: Record Without Reporting starts the watch without alerting what stands', async () => {
		const { items } = await poll({ firstPoll: 'record' });
		expect(items.map((item) => [item.borrower, item.events])).toEqual([
			['alice', []],
			['bob', []],
		]);
		store(items);
		sandbox.admin.advanceClock(MINUTE);
		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'SecondMarginCall');
		expect(await pollAndDeliver({ firstPoll: 'record' })).toEqual({
			alice: [`${CONTRACTS.marginCall}:marginCall:SecondMarginCall`],
		});
	});

	it('First Poll of a Borrower from an expression is read for each borrower', async () => {
		const firstPollOf: Record<string, string> = { alice: 'record', bob: 'report' };
		rows = rows.map((row) => ({ ...row, first_poll: firstPollOf[row.borrower_id] }));
		const { items } = await poll({ firstPoll: '={{ $json.first_poll }}' });
		expect(items.map((item) => [item.borrower, item.events.length > 0])).toEqual([
			['alice', false],
			['bob', true],
		]);
	});

	it('refuses an Already Reported it did not write, sending nothing for that borrower', async () => {
		rows[0].reported = 'seen: everything';
		const before = sandbox.requests.length;
		const { output } = await poll({}, { onError: 'continueErrorOutput' });
		const [failed] = output(NODE, 1);
		expect(failed.error?.message).toBe('Invalid Already Reported [item 0]');
		expect(String(failed.error?.description)).toMatch(
			/^Already Reported: It does not start with 1:: expected what this operation gave as reported/,
		);
		expect(output(NODE).map((item) => item.json.borrower)).toEqual(['bob']);
		expect(sandbox.requests.slice(before).map((request) => request.headers['x-api-key'])).toEqual([
			sandbox.keys.otherBorrower,
		]);
	});
});

/**
 * One poll of `items` reading the borrowers from the input without an expression (Borrower From
 * `borrowerFrom`), under Continue (using error output); no key of the rows, nor the master key, is
 * in anything it made.
 */
async function pollFromInput(
	borrowerFrom: 'inputFields' | 'inputList',
	parameters: Record<string, unknown>,
	items: object[],
) {
	const result = await runWorkflow(
		singleNodeWorkflow(
			{
				resource: 'contract',
				operation: 'getNewEvents',
				borrowerFrom,
				daysAhead: 25,
				...parameters,
			},
			{ typeVersion: 1.1, onError: 'continueErrorOutput' },
		),
		{ credential: { ...borrowerOf(sandbox, sandbox.keys.master), keyType: 'master' }, items },
	);
	const made = everythingVisible(result.output(NODE, 0), result.output(NODE, 1), result.error);
	for (const { api_key: key } of rows) expect(made).not.toContain(key);
	expect(made).not.toContain(sandbox.keys.master);
	return {
		...result,
		items: result.output(NODE).map((item) => item.json as unknown as Item),
		failed: result.output(NODE, 1),
	};
}

/** The keys the sandbox received since `from`, in order. */
const keysSent = (from: number) =>
	sandbox.requests.slice(from).map((request) => request.headers['x-api-key']);

describe('Borrower From → Input Item Fields: the same watch without an expression per borrower', () => {
	/** One poll reading each item's key, reference and memory from its fields (the rows by default). */
	const pollFromFields = (parameters: Record<string, unknown> = {}, items: object[] = rows) =>
		pollFromInput('inputFields', parameters, items);

	it('gives the very items of the expressions, each borrower acting with the key of its own row', async () => {
		const withExpressions = await poll();
		const sent = sandbox.requests.length;
		const fromFields = await pollFromFields();
		expect(fromFields.failed).toEqual([]);
		const shape = (items: Item[]) =>
			items.map(({ borrower, events, reported_before, reported }) => ({
				borrower,
				events,
				reported_before,
				reported,
			}));
		expect(shape(fromFields.items)).toEqual(shape(withExpressions.items));
		expect(fromFields.items.map((item) => readReported(item.reported_claim)?.claim)).toEqual([
			{ by: expect.any(String), until: Date.now() + 10 * MINUTE },
			{ by: expect.any(String), until: Date.now() + 10 * MINUTE },
		]);
		expect(new Set(keysSent(sent))).toEqual(
			new Set([sandbox.keys.borrower, sandbox.keys.otherBorrower]),
		);
		// What it stores is what the next poll reads: nothing new then.
		store(fromFields.items);
		expect((await pollFromFields()).items).toEqual([]);
	});

	it('reads the fields it is given the names of', async () => {
		const renamed = rows.map((row) => ({
			key: row.api_key,
			ref: row.borrower_id,
			memory: row.reported,
		}));
		const fields = { keyField: 'key', borrowerField: 'ref', reportedField: 'memory' };
		const first = await pollFromFields(fields, renamed);
		expect(first.items.map((item) => item.borrower)).toEqual(['alice', 'bob']);
		first.items.forEach((item, index) => (renamed[index].memory = item.reported));
		expect((await pollFromFields(fields, renamed)).items).toEqual([]);
	});

	it('a row without its key fails that borrower only, and never falls back to the credential’s key', async () => {
		const items = [{ ...rows[0], api_key: '' }, rows[1]];
		const sent = sandbox.requests.length;
		const { items: out, failed } = await pollFromFields({}, items);
		expect(out.map((item) => item.borrower)).toEqual(['bob']);
		expect(failed[0].error?.message).toBe('Invalid Key Field (api_key) [item 0]');
		expect(String(failed[0].error?.description)).toMatch(
			/did not fall back to the credential's key\. Nothing was sent\.$/,
		);
		expect(keysSent(sent)).toEqual([sandbox.keys.otherBorrower]);
	});

	it('refuses a row without the Already Reported field rather than report everything again', async () => {
		const items = [{ borrower_id: 'alice', api_key: sandbox.keys.borrower }, rows[1]];
		const sent = sandbox.requests.length;
		const { failed } = await pollFromFields({}, items);
		expect(failed[0].error?.message).toBe('Invalid Already Reported Field (reported) [item 0]');
		expect(String(failed[0].error?.description)).toMatch(/The input item has no field reported\./);
		expect(keysSent(sent)).toEqual([sandbox.keys.otherBorrower]);
	});

	it('refuses a Key Field while Act as Borrower is set as well: the item would have two keys', async () => {
		const sent = sandbox.requests.length;
		const { items, failed } = await pollFromFields({
			options: { borrowerApiKey: '={{ $json.api_key }}' },
		});
		expect(items).toEqual([]);
		expect(failed.map((item) => item.error?.message)).toEqual([
			'Invalid Key Field (api_key) [item 0]',
			'Invalid Key Field (api_key) [item 1]',
		]);
		expect(keysSent(sent)).toEqual([]);
	});

	it('a key Lendasat rejects names the field it came from, never the key', async () => {
		const items = [{ ...rows[0], api_key: 'lndst_sk_revoked_000000000000000000' }, rows[1]];
		const { failed } = await pollFromFields({}, items);
		expect(failed).toHaveLength(1);
		expect(failed[0].error?.message).toBe(
			"Lendasat rejected the borrower's API key from the input item (HTTP 401)",
		);
		expect(String(failed[0].error?.description)).toMatch(/Key Field \(api_key\) was sent/);
		expect(everythingVisible(failed)).not.toContain('lndst_sk_revoked');
	});

	it('refuses a Borrower Field that holds a key, sending nothing for that borrower', async () => {
		const items = [{ ...rows[0], borrower_id: sandbox.keys.borrower }, rows[1]];
		const sent = sandbox.requests.length;
		const { failed } = await pollFromFields({}, items);
		expect(failed[0].error?.message).toBe('Invalid Borrower Field (borrower_id) [item 0]');
		expect(keysSent(sent)).toEqual([sandbox.keys.otherBorrower]);
	});
});

describe('Borrower From → Input Item List: many borrowers in one item', () => {
	/** One poll of lists of borrowers, one input item per list (the rows in one list by default). */
	const pollLists = (lists: object[][] = [rows], parameters: Record<string, unknown> = {}) =>
		pollFromInput(
			'inputList',
			parameters,
			lists.map((borrowers) => ({ borrowers })),
		);

	it('gives the very items of one item per borrower, in the list’s order, each paired with its list', async () => {
		const oneEach = await poll();
		sandbox.reset();
		const sent = sandbox.requests.length;
		const listed = await pollLists([[rows[0]], [rows[1]]]);
		expect(listed.failed).toEqual([]);
		const shape = (items: Item[]) =>
			items.map(({ borrower, events, reported_before, reported }) => ({
				borrower,
				events,
				reported_before,
				reported,
			}));
		expect(shape(listed.items)).toEqual(shape(oneEach.items));
		expect(listed.output(NODE).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(new Set(keysSent(sent))).toEqual(
			new Set([sandbox.keys.borrower, sandbox.keys.otherBorrower]),
		);
		store(listed.items);
		expect((await pollLists()).items).toEqual([]);
	});

	it('a borrower that fails gives an item with its error; the others in its list go on', async () => {
		const list = [
			{ borrower_id: 'carol', api_key: 'lndst_sk_revoked_000000000000000000', reported: null },
			{ ...rows[0], api_key: '' },
			rows[1],
			{ borrower_id: 'dave', reported: null },
		];
		const sent = sandbox.requests.length;
		const { items, failed, output } = await pollLists([list]);
		expect(failed).toEqual([]);
		expect(items.map((item) => item.borrower)).toEqual(['carol', 'alice', 'bob', 'dave']);
		const errors = output(NODE).map((item) => {
			const { borrower, list_index, error } = item.json;
			return { borrower, list_index, error };
		});
		expect(errors).toEqual([
			{
				borrower: 'carol',
				list_index: 0,
				error: "Lendasat rejected the borrower's API key from the input item (HTTP 401)",
			},
			{ borrower: 'alice', list_index: 1, error: 'Invalid Key Field (api_key) [item 0]' },
			{ borrower: 'bob', list_index: undefined, error: undefined },
			{ borrower: 'dave', list_index: 3, error: 'Invalid Key Field (api_key) [item 0]' },
		]);
		expect(items[2].events.length).toBeGreaterThan(0);
		expect(String(output(NODE)[3].json.description)).toMatch(/The input item has no field api_key/);
		expect(keysSent(sent).filter((key) => key !== 'lndst_sk_revoked_000000000000000000')).toEqual([
			sandbox.keys.otherBorrower,
		]);
		expect(everythingVisible(output(NODE))).not.toContain('lndst_sk_revoked');
	});

	it('names no borrower whose reference holds a key', async () => {
		const list = [{ ...rows[0], borrower_id: sandbox.keys.borrower }];
		const { output } = await pollLists([list]);
		expect(output(NODE).map((item) => item.json)).toEqual([
			expect.objectContaining({
				borrower: null,
				list_index: 0,
				error: 'Invalid Borrower Field (borrower_id) [item 0]',
			}),
		]);
	});

	it.each([
		['a list field that is missing', [{ other: [] }], /The input item has no field borrowers\./],
		[
			'a list field that is not a list',
			[{ borrowers: 'alice' }],
			/got a string\. Nothing was sent\.$/,
		],
		[
			'an entry that is not an object',
			[{ borrowers: [{ borrower_id: 'alice' }, 'lndst_sk_stray_0000000000000000'] }],
			/entry 1 is a string\. Nothing was sent\.$/,
		],
	])('fails the whole item, sending nothing, for %s', async (_case, items, description) => {
		const sent = sandbox.requests.length;
		const {
			failed: [failed],
		} = await pollFromInput('inputList', {}, items);
		expect(failed.error?.message).toBe('Invalid List Field (borrowers) [item 0]');
		expect(String(failed.error?.description)).toMatch(description);
		expect(everythingVisible(failed.error)).not.toContain('lndst_sk_stray');
		expect(sandbox.requests.length).toBe(sent);
	});

	it('refuses an empty Key Field: every borrower of the list would act with one key', async () => {
		const sent = sandbox.requests.length;
		const { failed } = await pollLists([rows], { keyField: '' });
		expect(failed[0].error?.message).toBe('Invalid Key Field [item 0]');
		expect(sandbox.requests.length).toBe(sent);
	});

	it('reads the List Field it is given the name of', async () => {
		const { items, failed } = await pollFromInput('inputList', { listField: 'shard' }, [
			{ shard: rows },
		]);
		expect(failed).toEqual([]);
		expect(items.map((item) => item.borrower)).toEqual(['alice', 'bob']);
	});
});
