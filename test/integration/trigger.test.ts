import { NodeApiError, NodeOperationError, type IDataObject } from 'n8n-workflow';

import { startSandbox, SEED_IDS, type Sandbox } from '../../dev/sandbox/server';
import { loadPackage, pollTrigger, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * The Lendasat Borrower Trigger polls: each test plays an active workflow whose scheduled polls
 * share the node's static data, as n8n keeps it between polls, against the sandbox API.
 */

let sandbox: Sandbox;

useFakeTime();
/** The sandbox's clock: real time, unless a test stops it to stamp changes at chosen instants. */
let frozenAt: Date | null = null;

beforeAll(async () => {
	sandbox = await startSandbox({ now: () => frozenAt ?? new Date() });
	const loader = await loadPackage();
	expect(loader.nodeTypes.lendasatBorrowerTrigger).toBeDefined();
});
afterAll(async () => sandbox.close());
beforeEach(() => {
	frozenAt = null;
	sandbox.reset();
});

const CONTRACTS = SEED_IDS.contracts;
const OFFERS = SEED_IDS.offers;

const borrower = (overrides: Partial<TestCredential> = {}): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
	...overrides,
});

/** A trigger in an active workflow: every poll() sees what the previous polls left in the static data. */
function activeTrigger(parameters: IDataObject, credential: TestCredential = borrower()) {
	const staticData: IDataObject = {};
	return {
		staticData,
		poll: () => pollTrigger(parameters, { credential, staticData }),
		/** A poll that must succeed; returns what it emitted ([] for nothing). */
		async emitted(): Promise<IDataObject[]> {
			const { items, error } = await pollTrigger(parameters, { credential, staticData });
			expect(error).toBeUndefined();
			return (items ?? []).map((item) => item.json);
		},
	};
}

async function fetchTestEvent(parameters: IDataObject, staticData: IDataObject = {}) {
	const { items, error } = await pollTrigger(parameters, {
		credential: borrower(),
		mode: 'manual',
		staticData,
	});
	expect(error).toBeUndefined();
	return (items ?? []).map((item) => item.json);
}

const requestsTo = (path: string) => sandbox.requests.filter((request) => request.path === path);
const idsOf = (items: IDataObject[]) => items.map((item) => item.id);
const snapshot = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('Contract Status Changed: a borrower follows their contracts', () => {
	const statusChanged = { event: 'contractStatusChanged' };

	it('notes the contracts on activation without emitting them, then emits each change once', async () => {
		const trigger = activeTrigger(statusChanged);
		expect(await trigger.emitted()).toEqual([]);
		expect(requestsTo('/api/contracts').map((request) => request.query)).toEqual([
			{ sort_by: 'updated_at', sort_order: 'desc', page: '1', limit: '100' },
		]);

		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		const [change, ...others] = await trigger.emitted();
		expect(others).toEqual([]);
		expect(change).toMatchObject({
			id: CONTRACTS.approved,
			status: 'CollateralSeen',
			event: 'contractStatusChanged',
			previousStatus: 'Approved',
			loan_amount: 5000,
		});

		expect(await trigger.emitted()).toEqual([]);
	});

	it('reports a new contract as a change from no status', async () => {
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();

		const created = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: OFFERS.usdcPolygon,
		});
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ id: created.id, status: 'Requested', previousStatus: null }),
		]);
	});

	it("carries the collateral and KYC keys Simplify gives: a KYC offer's new request with its link", async () => {
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();

		const kyc = sandbox.admin.createContract(sandbox.keys.borrower, { loan_id: OFFERS.kyc });
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		const items = await trigger.emitted();
		const link = sandbox.state.offers.get(OFFERS.kyc)!.kyc_link;
		expect(link).toEqual(expect.any(String));
		expect(items.find((item) => item.id === kyc.id)).toMatchObject({
			status: 'Requested',
			previousStatus: null,
			collateral_asset: 'BitcoinBtc',
			requires_ark_settlement: null,
			kyc_link: link,
			kyc_done: false,
			// The full record stays whole.
			kyc_info: { kyc_link: link, is_kyc_done: false },
			installments: expect.any(Array),
		});
		expect(items.find((item) => item.id === CONTRACTS.approved)).toMatchObject({
			collateral_asset: 'BitcoinBtc',
			requires_ark_settlement: null,
			kyc_link: null,
			kyc_done: null,
		});
	});

	it('emits only changes to the chosen statuses, and still remembers the others', async () => {
		const trigger = activeTrigger({ ...statusChanged, statuses: ['Approved'] });
		await trigger.emitted();

		sandbox.admin.setContractStatus(CONTRACTS.requested, 'Approved');
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				id: CONTRACTS.requested,
				status: 'Approved',
				previousStatus: 'Requested',
			}),
		]);

		sandbox.admin.setContractStatus(CONTRACTS.approved, 'Approved');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				id: CONTRACTS.approved,
				status: 'Approved',
				previousStatus: 'CollateralSeen',
			}),
		]);
	});

	it('stays quiet when a long-finished contract is touched again without changing status', async () => {
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();
		expect(
			Object.keys((trigger.staticData.contracts as IDataObject).contracts as IDataObject),
		).not.toContain(CONTRACTS.closed);

		sandbox.admin.setLiquidationStatus(CONTRACTS.closed, 'Healthy');
		expect(await trigger.emitted()).toEqual([]);
	});

	it('passes status values it does not know through', async () => {
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();

		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'PartiallyLiquidated');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ status: 'PartiallyLiquidated', previousStatus: 'PrincipalGiven' }),
		]);
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'PrincipalGiven');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ status: 'PrincipalGiven', previousStatus: 'PartiallyLiquidated' }),
		]);
	});

	it('emits every one of 160 changes exactly once, across several pages', async () => {
		const contracts = sandbox.admin.createContracts(sandbox.keys.borrower, 160, {
			loan_id: OFFERS.usdcPolygon,
		});
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();

		for (const contract of contracts) sandbox.admin.setContractStatus(contract.id, 'Approved');
		sandbox.requests.length = 0;
		const changes = await trigger.emitted();

		expect(changes).toHaveLength(160);
		expect(new Set(idsOf(changes))).toEqual(new Set(contracts.map((contract) => contract.id)));
		expect(
			changes.every(
				(change) => change.status === 'Approved' && change.previousStatus === 'Requested',
			),
		).toBe(true);
		expect(requestsTo('/api/contracts').map((request) => request.query.page)).toEqual(['1', '2']);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('does not trust timestamps alone: equal and earlier-stamped changes are still emitted once', async () => {
		frozenAt = new Date('2026-03-01T12:00:00.000Z');
		sandbox.reset();
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();

		sandbox.admin.setContractStatus(CONTRACTS.requested, 'Approved');
		expect(idsOf(await trigger.emitted())).toEqual([CONTRACTS.requested]);

		// Same instant as the change already reported.
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ id: CONTRACTS.approved, updated_at: '2026-03-01T12:00:00.000Z' }),
		]);

		// Stamped five minutes before the newest change seen: a server clock step or a late commit.
		frozenAt = new Date('2026-03-01T11:55:00.000Z');
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'RepaymentProvided');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ id: CONTRACTS.principalGiven, previousStatus: 'PrincipalGiven' }),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('after a failed poll the state is unchanged and the next poll emits the change once', async () => {
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		const before = snapshot(trigger.staticData);

		// The live backend's error dialect: only {"message": "Something went wrong"}.
		sandbox.configure({
			dialect: 'live',
			faults: [{ kind: '500', path: '/api/contracts', times: 1 }],
		});
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeApiError);
		expect(failed.error?.message).toBe('Lendasat had an internal error (HTTP 500)');
		expect((failed.error as NodeApiError).description).toContain(
			'Server said: "Something went wrong".',
		);
		expect((failed.error as NodeApiError).description).toContain('the next poll tries again');
		expect(failed.items).toBeNull();
		expect(snapshot(trigger.staticData)).toEqual(before);

		expect(idsOf(await trigger.emitted())).toEqual([CONTRACTS.approved]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('a poll that fails on its second page emits nothing, and the next poll emits all changes once', async () => {
		const contracts = sandbox.admin.createContracts(sandbox.keys.borrower, 120, {
			loan_id: OFFERS.usdcPolygon,
		});
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();
		for (const contract of contracts) sandbox.admin.setContractStatus(contract.id, 'Cancelled');
		const before = snapshot(trigger.staticData);

		// The first rule lets page 1 through untouched (a slow answer with no delay); the second fails page 2.
		sandbox.configure({
			faults: [
				{ kind: 'slow', delayMs: 0, path: '/api/contracts', times: 1 },
				{ kind: '500', path: '/api/contracts', times: 1 },
			],
		});
		sandbox.requests.length = 0;
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeApiError);
		expect(requestsTo('/api/contracts').map((request) => request.query.page)).toEqual(['1', '2']);
		expect(snapshot(trigger.staticData)).toEqual(before);

		const changes = await trigger.emitted();
		expect(changes).toHaveLength(120);
		expect(new Set(idsOf(changes)).size).toBe(120);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('retries a brief 503 within the poll', async () => {
		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');

		sandbox.configure({ faults: [{ kind: '503', path: '/api/contracts', times: 1 }] });
		sandbox.requests.length = 0;
		expect(idsOf(await trigger.emitted())).toEqual([CONTRACTS.approved]);
		expect(requestsTo('/api/contracts')).toHaveLength(2);
	});

	it('"Fetch Test Event" shows the most recently updated contract and leaves the state alone', async () => {
		const [sample, ...others] = await fetchTestEvent(statusChanged);
		expect(others).toEqual([]);
		expect(sample).toMatchObject({
			id: CONTRACTS.marginCall,
			status: 'PrincipalGiven',
			event: 'contractStatusChanged',
			previousStatus: 'CollateralConfirmed',
		});
		expect(requestsTo('/api/contracts').map((request) => request.query)).toEqual([
			{ sort_by: 'updated_at', sort_order: 'desc', page: '1', limit: '100' },
		]);

		const trigger = activeTrigger(statusChanged);
		await trigger.emitted();
		const before = snapshot(trigger.staticData);
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		await fetchTestEvent(statusChanged, trigger.staticData);
		expect(snapshot(trigger.staticData)).toEqual(before);
		expect(idsOf(await trigger.emitted())).toEqual([CONTRACTS.approved]);
	});

	it.each(['spec', 'live'] as const)(
		'"Fetch Test Event" shows the newest contract in the chosen statuses, the specification\'s pending included (%s dialect)',
		async (dialect) => {
			sandbox.configure({ dialect });
			const [sample] = await fetchTestEvent({
				...statusChanged,
				statuses: ['pending', 'Approved', 'Requested'],
			});
			expect(sample).toMatchObject({ id: CONTRACTS.requested, status: 'Requested' });
			// Filtered by the node: the live backend refuses pending in a status query.
			expect(requestsTo('/api/contracts')[0].query.status).toBeUndefined();
		},
	);
});

describe('Margin Call: a borrower hears when the collateral runs thin', () => {
	const marginCall = { event: 'marginCall' };

	it('emits moves into a margin call or liquidation, not recoveries or status changes', async () => {
		const trigger = activeTrigger(marginCall);
		expect(await trigger.emitted()).toEqual([]);

		sandbox.admin.setLiquidationStatus(CONTRACTS.principalGiven, 'FirstMarginCall');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				id: CONTRACTS.principalGiven,
				liquidation_status: 'FirstMarginCall',
				event: 'marginCall',
				previousLiquidationStatus: 'Healthy',
			}),
		]);

		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'SecondMarginCall');
		sandbox.admin.setLiquidationStatus(CONTRACTS.principalGiven, 'Healthy');
		sandbox.admin.setContractStatus(CONTRACTS.requested, 'Approved');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				id: CONTRACTS.marginCall,
				liquidation_status: 'SecondMarginCall',
				previousLiquidationStatus: 'FirstMarginCall',
			}),
		]);

		sandbox.admin.setLiquidationStatus(CONTRACTS.marginCall, 'Liquidated');
		sandbox.admin.setContractStatus(CONTRACTS.marginCall, 'Undercollateralized');
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ liquidation_status: 'Liquidated', status: 'Undercollateralized' }),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('"Fetch Test Event" shows the most recently updated contract in a margin call', async () => {
		expect(await fetchTestEvent(marginCall)).toEqual([
			expect.objectContaining({
				id: CONTRACTS.marginCall,
				liquidation_status: 'FirstMarginCall',
				event: 'marginCall',
				previousLiquidationStatus: null,
			}),
		]);
	});
});

describe('New Loan Offer: a borrower watches the market', () => {
	const newOffer = {
		event: 'newOffer',
		filters: { loanType: 'All', loanAssets: ['UsdcPol', 'UsdtPol'], maxInterestRate: 0.12 },
	};

	it('emits offers that appear and match the filters, each once', async () => {
		const trigger = activeTrigger(newOffer);
		expect(await trigger.emitted()).toEqual([]);
		expect(requestsTo('/api/offers').map((request) => request.query)).toEqual([
			{
				collateral_asset_type: 'Any',
				loan_type: 'All',
				loan_assets: 'UsdcPol,UsdtPol',
				max_interest_rate: '0.12',
			},
		]);

		const cheap = sandbox.admin.addOffer({
			name: 'Cheap USDT on Polygon',
			loan_asset: 'UsdtPol',
			interest_rate: 0.08,
		});
		sandbox.admin.addOffer({ name: 'Expensive', loan_asset: 'UsdcPol', interest_rate: 0.2 });
		sandbox.admin.addOffer({ name: 'Wrong asset', loan_asset: 'UsdcSol', interest_rate: 0.05 });
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ id: cheap.id, name: 'Cheap USDT on Polygon', event: 'newOffer' }),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('does not announce an offer again when it is withdrawn and listed again', async () => {
		const trigger = activeTrigger(newOffer);
		await trigger.emitted();
		const offer = sandbox.admin.addOffer({ loan_asset: 'UsdcPol', interest_rate: 0.1 });
		expect(idsOf(await trigger.emitted())).toEqual([offer.id]);

		sandbox.admin.withdrawOffer(offer.id);
		expect(await trigger.emitted()).toEqual([]);
		sandbox.state.offers.get(offer.id)!.status = 'Available';
		expect(await trigger.emitted()).toEqual([]);
	});

	it('starts a new baseline when the filters change, instead of announcing old offers', async () => {
		const trigger = activeTrigger(newOffer);
		await trigger.emitted();
		const widened = activeTrigger({ event: 'newOffer', filters: { loanType: 'All' } });
		Object.assign(widened.staticData, trigger.staticData);
		expect(await widened.emitted()).toEqual([]);
	});

	it('sends the maximum amount and duration filters too, and keeps announcing what matches', async () => {
		const bounded = {
			event: 'newOffer',
			filters: { loanType: 'All', maxLoanAmount: 200, maxDurationDays: 14 },
		};
		const trigger = activeTrigger(bounded);
		expect(await trigger.emitted()).toEqual([]);
		expect(requestsTo('/api/offers').map((request) => request.query)).toEqual([
			{
				collateral_asset_type: 'Any',
				loan_type: 'All',
				max_loan_amount: '200',
				duration_max: '14',
			},
		]);
		// The spec dialect applies them ([INF]: offers whose minimum is within the maximum).
		const small = sandbox.admin.addOffer({ loan_amount_min: 50, duration_days_min: 7 });
		sandbox.admin.addOffer({ loan_amount_min: 500, duration_days_min: 7 });
		expect(idsOf(await trigger.emitted())).toEqual([small.id]);
	});

	it('refuses a bad filter before asking the API', async () => {
		const { error } = await pollTrigger(
			{ event: 'newOffer', filters: { maxInterestRate: '12' } },
			{ credential: borrower(), staticData: {} },
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe('Invalid filter Max Interest Rate');
		expect((error as NodeOperationError).description).toContain('0.12 means 12 %');
		expect(requestsTo('/api/offers')).toEqual([]);
	});

	it('"Fetch Test Event" shows the newest matching offer', async () => {
		const offer = sandbox.admin.addOffer({ loan_asset: 'UsdtPol', interest_rate: 0.1 });
		expect(await fetchTestEvent(newOffer)).toEqual([
			expect.objectContaining({ id: offer.id, event: 'newOffer' }),
		]);
	});
});

describe('New Notification: a borrower reads the feed as it grows', () => {
	const newNotification = { event: 'newNotification' };

	it('emits new notifications, read or unread, each once', async () => {
		const trigger = activeTrigger(newNotification);
		expect(await trigger.emitted()).toEqual([]);
		expect(requestsTo('/api/notifications').map((request) => request.query)).toEqual([
			{ unread_only: 'false', page: '1', limit: '100' },
		]);

		const chat = sandbox.admin.postNotification(sandbox.keys.borrower, {
			type: 'ChatMessage',
			data: { contract_id: CONTRACTS.approved, counterparty_name: 'Satoshi Capital', read: true },
		});
		sandbox.admin.postNotification(sandbox.keys.otherBorrower, {
			data: { contract_id: CONTRACTS.otherBorrowers },
		});
		expect(await trigger.emitted()).toEqual([
			{ type: 'ChatMessage', data: chat.data, event: 'newNotification' },
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('emits every one of 150 new notifications exactly once, oldest first, across pages', async () => {
		frozenAt = new Date('2026-03-01T12:00:00.000Z');
		sandbox.reset();
		const trigger = activeTrigger(newNotification);
		await trigger.emitted();

		const posted = Array.from({ length: 150 }, (_, index) => {
			frozenAt = new Date(Date.parse('2026-03-01T12:00:00.000Z') + Math.floor(index / 3) * 1000);
			return sandbox.admin.postNotification(sandbox.keys.borrower, {
				data: { status: 'Approved', index },
			});
		});
		sandbox.requests.length = 0;
		const emitted = await trigger.emitted();

		expect(emitted).toHaveLength(150);
		expect(new Set(emitted.map((item) => (item.data as IDataObject).id))).toEqual(
			new Set(posted.map((message) => message.data.id)),
		);
		const times = emitted.map((item) => Date.parse(String((item.data as IDataObject).timestamp)));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect(requestsTo('/api/notifications').map((request) => request.query.page)).toEqual([
			'1',
			'2',
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('"Fetch Test Event" shows the newest notification', async () => {
		expect(await fetchTestEvent(newNotification)).toEqual([
			expect.objectContaining({ type: 'ContractUpdate', event: 'newNotification' }),
		]);
		expect(requestsTo('/api/notifications')[0].query).toEqual({
			unread_only: 'false',
			page: '1',
			limit: '1',
		});
	});
});

describe('every walk ends at the total the server counts, or the poll fails and tries again', () => {
	const description = (error: Error | undefined) => (error as NodeOperationError).description;

	it('Contract Status Changed reads on by page number from a server that pages 50 when asked for 100', async () => {
		const contracts = sandbox.admin.createContracts(sandbox.keys.borrower, 160, {
			loan_id: OFFERS.usdcPolygon,
		});
		sandbox.configure({ paging: 'small-pages' });
		const trigger = activeTrigger({ event: 'contractStatusChanged' });
		await trigger.emitted();

		for (const contract of contracts) sandbox.admin.setContractStatus(contract.id, 'Approved');
		sandbox.requests.length = 0;
		const changes = await trigger.emitted();

		expect(new Set(idsOf(changes))).toEqual(new Set(contracts.map((contract) => contract.id)));
		expect(changes).toHaveLength(160);
		expect(requestsTo('/api/contracts').map((request) => request.query)).toEqual(
			['1', '2', '3', '4'].map((page) => ({
				sort_by: 'updated_at',
				sort_order: 'desc',
				page,
				limit: '100',
			})),
		);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('Contract Status Changed fails, keeping its state, when the pages end short of the total', async () => {
		const trigger = activeTrigger({ event: 'contractStatusChanged' });
		await trigger.emitted();
		// Every contract touched since the last poll, one of them to a new status: the walk cannot stop at its position.
		const own = [
			CONTRACTS.requested,
			CONTRACTS.approved,
			CONTRACTS.principalGiven,
			CONTRACTS.marginCall,
			CONTRACTS.closed,
		];
		for (const id of own) sandbox.admin.setLiquidationStatus(id, 'Healthy');
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralSeen');
		const before = snapshot(trigger.staticData);

		// Page 1 holds all five contracts, but the server counts 105; page 2 is empty.
		sandbox.configure({ paging: 'inflated-total' });
		sandbox.requests.length = 0;
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeOperationError);
		expect(failed.error?.message).toBe(
			'Lendasat Borrower Trigger (Contract Status Changed): Lendasat returned 5 of 105 contracts',
		);
		expect(description(failed.error)).toContain(
			'Nothing was emitted and the trigger kept its position; the next poll tries again.',
		);
		expect(requestsTo('/api/contracts').map((request) => request.query.page)).toEqual(['1', '2']);
		expect(failed.items).toBeNull();
		expect(snapshot(trigger.staticData)).toEqual(before);

		sandbox.configure({ paging: null });
		expect(idsOf(await trigger.emitted())).toEqual([CONTRACTS.approved]);
	});

	it('Margin Call does not take a baseline from pages that end short of the total', async () => {
		sandbox.configure({ paging: 'inflated-total' });
		const trigger = activeTrigger({ event: 'marginCall' });
		const failed = await trigger.poll();
		expect(failed.error?.message).toBe(
			'Lendasat Borrower Trigger (Margin Call): Lendasat returned 5 of 105 contracts',
		);
		expect(trigger.staticData).toEqual({});
	});

	it('New Notification reads every page of a server that pages 50 when asked for 100', async () => {
		frozenAt = new Date('2026-03-01T12:00:00.000Z');
		sandbox.reset();
		sandbox.configure({ paging: 'small-pages' });
		const trigger = activeTrigger({ event: 'newNotification' });
		await trigger.emitted();

		const posted = sandbox.admin.postNotifications(sandbox.keys.borrower, 150, {
			newest: '2026-03-01T15:00:00.000Z',
		});
		sandbox.requests.length = 0;
		const emitted = await trigger.emitted();

		expect(new Set(emitted.map((item) => (item.data as IDataObject).id))).toEqual(
			new Set(posted.map((message) => message.data.id)),
		);
		expect(emitted).toHaveLength(150);
		expect(requestsTo('/api/notifications').map((request) => request.query.page)).toEqual([
			'1',
			'2',
			'3',
			'4',
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it("New Notification on Lendasat's feed: exact within its newest 100; beyond them, the poll fails instead of skipping some", async () => {
		frozenAt = new Date('2026-03-01T12:00:00.000Z');
		sandbox.reset();
		sandbox.configure({ dialect: 'live' });
		const trigger = activeTrigger({ event: 'newNotification' });
		await trigger.emitted();

		// 60 of the three kinds: all of them are among the newest 100, which Lendasat lists exactly.
		const first = sandbox.admin.postNotifications(sandbox.keys.borrower, 60, {
			newest: '2026-03-01T14:00:00.000Z',
		});
		expect(new Set((await trigger.emitted()).map((item) => (item.data as IDataObject).id))).toEqual(
			new Set(first.map((message) => message.data.id)),
		);
		const before = snapshot(trigger.staticData);

		// 150 more: past its first page, Lendasat's feed leaves some out (live-api §4).
		sandbox.admin.postNotifications(sandbox.keys.borrower, 150, {
			newest: '2026-03-01T20:00:00.000Z',
		});
		const total = await notificationCount();
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeOperationError);
		expect(failed.error?.message).toBe(
			`Lendasat Borrower Trigger (New Notification): Lendasat returned 100 of ${total} notifications`,
		);
		expect(description(failed.error)).toContain('only its newest 100 notifications exactly');
		expect(description(failed.error)).toContain('Nothing was emitted');
		expect(failed.items).toBeNull();
		expect(snapshot(trigger.staticData)).toEqual(before);

		// A trigger without a position (a node under another name) starts from the newest.
		expect(await activeTrigger({ event: 'newNotification' }).emitted()).toEqual([]);
	});
});

/** How many notifications the borrower has, read or not, as the server counts them. */
async function notificationCount(): Promise<number> {
	const answer = await fetch(`${sandbox.url}/api/notifications?unread_only=false&limit=1`, {
		headers: { 'x-api-key': sandbox.keys.borrower },
	});
	return ((await answer.json()) as { total: number }).total;
}

describe('credentials', () => {
	it('says the key was rejected, without showing it, and keeps the state', async () => {
		const badKey = 'lndst_sk_0123456789ab_ThisKeyDoesNotExist0000000000000000000000';
		const trigger = activeTrigger({ event: 'newNotification' }, borrower({ apiKey: badKey }));
		const { error } = await trigger.poll();
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect(everythingVisible(error)).not.toContain(badKey);
		expect(trigger.staticData).toEqual({});
	});

	it('refuses a partner master key before sending anything', async () => {
		const trigger = activeTrigger(
			{ event: 'contractStatusChanged' },
			borrower({ keyType: 'master', apiKey: sandbox.keys.master }),
		);
		const { error } = await trigger.poll();
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toContain(
			'needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toEqual([]);
	});
});
