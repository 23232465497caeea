import { NodeApiError, NodeOperationError, type IDataObject } from 'n8n-workflow';

import { startSandbox, SEED_IDS, type Sandbox } from '../../dev/sandbox/server';
import { loadPackage, pollTrigger, type TestCredential } from '../../dev/harness/n8n';
import type { Contract, Installment } from '../../dev/sandbox/types';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * The trigger's Installment Due event: each test plays an active workflow whose scheduled polls
 * share the node's static data, as n8n keeps it between polls, against the sandbox API. The seed's
 * loans in PrincipalGiven are c…03 (monthly interest, next installment due in 20 days, then every 30)
 * and c…04 (bullet, due in 40 days); tests move due dates with sandbox.admin.setInstallment.
 */

let sandbox: Sandbox;

useFakeTime();
beforeAll(async () => {
	sandbox = await startSandbox();
	await loadPackage();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const CONTRACTS = SEED_IDS.contracts;
const OFFERS = SEED_IDS.offers;
const WATCHED_QUERY = {
	status: 'PrincipalGiven,Undercollateralized',
	sort_by: 'created_at',
	sort_order: 'desc',
	limit: '100',
};

const borrower = (): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
});

function activeTrigger(parameters: IDataObject, staticData: IDataObject = {}) {
	return {
		staticData,
		poll: () =>
			pollTrigger(
				{ event: 'installmentDue', ...parameters },
				{ credential: borrower(), staticData },
			),
		async emitted(): Promise<IDataObject[]> {
			const { items, error } = await pollTrigger(
				{ event: 'installmentDue', ...parameters },
				{ credential: borrower(), staticData },
			);
			expect(error).toBeUndefined();
			return (items ?? []).map((item) => item.json);
		},
	};
}

const contractOf = (id: string): Contract => sandbox.state.contracts.get(id)!.contract;
const openInstallments = (id: string): Installment[] =>
	contractOf(id)
		.installments.filter((installment) => installment.status === 'pending')
		.sort((a, b) => a.due_date.localeCompare(b.due_date));

/** Moves the contract's next open installment (or the given one) to fall due `inMs` from now. */
function dueIn(
	contractId: string,
	inMs: number,
	installment = openInstallments(contractId)[0],
): Installment {
	return sandbox.admin.setInstallment(contractId, installment.id, {
		due_date: new Date(Date.now() + inMs).toISOString(),
	});
}

const contractRequests = () =>
	sandbox.requests.filter((request) => request.path === '/api/contracts');
const installmentIds = (items: IDataObject[]) => items.map((item) => item.installment_id);
const snapshot = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
const emittedIds = (staticData: IDataObject) =>
	Object.keys(((staticData.installments as IDataObject)?.emitted ?? {}) as IDataObject);

describe('Installment Due: a borrower is reminded before each payment', () => {
	it('on activation emits the installments already due soon, with the amount and where to pay, then never again', async () => {
		const next = dueIn(CONTRACTS.principalGiven, DAY - HOUR);
		const trigger = activeTrigger({});

		const [reminder, ...others] = await trigger.emitted();
		expect(others).toEqual([]);
		const contract = contractOf(CONTRACTS.principalGiven);
		expect(reminder).toEqual({
			event: 'installmentDue',
			contract_id: CONTRACTS.principalGiven,
			installment_id: next.id,
			amount: next.principal + next.interest,
			principal: 0,
			interest: next.interest,
			loan_asset: 'UsdtEth',
			due_date: next.due_date,
			days_until_due: 1,
			late: false,
			installment_status: 'pending',
			contract_status: 'PrincipalGiven',
			loan_type: 'StableCoin',
			loan_repayment_address: contract.loan_repayment_address,
			// The seeded lender takes bitcoin, and this is the installment an invoice would bill.
			btc_loan_repayment_address: contract.btc_loan_repayment_address,
			btc_invoice_possible: true,
		});
		expect(contract.btc_loan_repayment_address).toMatch(/^tb1q/);
		expect(reminder.interest).toBeGreaterThan(0);
		// Every watched contract is read, filtered by the server to loans that can owe something.
		expect(contractRequests().map((request) => request.query)).toEqual([
			{ ...WATCHED_QUERY, page: '1' },
		]);

		expect(await trigger.emitted()).toEqual([]);
		expect(await trigger.emitted()).toEqual([]);
		expect(contractRequests()).toHaveLength(3);
	});

	it.each(['spec', 'live'] as const)('works the same in the %s dialect', async (dialect) => {
		sandbox.configure({ dialect });
		const next = dueIn(CONTRACTS.marginCall, 2 * DAY);
		const trigger = activeTrigger({ daysAhead: 3 });
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				contract_id: CONTRACTS.marginCall,
				installment_id: next.id,
				amount: 1500 + next.interest,
				loan_asset: 'UsdcSol',
				days_until_due: 2,
			}),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('emits nothing outside Days Ahead, then the installment once the window reaches it', async () => {
		const start = Date.now();
		sandbox.reset();
		const next = dueIn(CONTRACTS.principalGiven, 5 * DAY);
		const trigger = activeTrigger({ daysAhead: 3 });
		expect(await trigger.emitted()).toEqual([]);
		expect(emittedIds(trigger.staticData)).toEqual([]);

		jest.setSystemTime(start + 2 * DAY - HOUR);
		expect(await trigger.emitted()).toEqual([]);

		jest.setSystemTime(start + 2 * DAY);
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ installment_id: next.id, days_until_due: 3, late: false }),
		]);
		jest.setSystemTime(start + 3 * DAY);
		expect(await trigger.emitted()).toEqual([]);

		// Past its due date, still pending (the backend's late job runs every 30 minutes): late, once.
		jest.setSystemTime(start + 5 * DAY + 10 * 60_000);
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				installment_id: next.id,
				days_until_due: -1,
				late: true,
				installment_status: 'pending',
			}),
		]);
		// The job then marks it late: nothing new.
		expect(sandbox.admin.markLateInstallments()).toBe(1);
		expect(openInstallments(CONTRACTS.principalGiven)[0].id).not.toBe(next.id);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('emits once more when the backend marks the installment late', async () => {
		const next = dueIn(CONTRACTS.principalGiven, 2 * DAY);
		const trigger = activeTrigger({});
		expect(installmentIds(await trigger.emitted())).toEqual([next.id]);

		sandbox.admin.setInstallment(CONTRACTS.principalGiven, next.id, { status: 'late' });
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				installment_id: next.id,
				late: true,
				installment_status: 'late',
				days_until_due: 2,
			}),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('emits an installment that is already overdue on activation once, as late', async () => {
		const overdue = dueIn(CONTRACTS.principalGiven, -3 * DAY);
		sandbox.admin.markLateInstallments();
		const trigger = activeTrigger({ daysAhead: 0 });
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				installment_id: overdue.id,
				late: true,
				installment_status: 'late',
				days_until_due: -3,
			}),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('changing Days Ahead emits what the wider window adds, and nothing twice', async () => {
		const near = dueIn(CONTRACTS.principalGiven, DAY);
		const narrow = activeTrigger({ daysAhead: 3 });
		expect(installmentIds(await narrow.emitted())).toEqual([near.id]);

		// The same workflow with Days Ahead 45: c…04's bullet (due in 40 days) comes in, c…03's next (50 days) does not.
		const wide = activeTrigger({ daysAhead: 45 }, narrow.staticData);
		const bullet = openInstallments(CONTRACTS.marginCall)[0];
		expect(installmentIds(await wide.emitted())).toEqual([bullet.id]);
		expect(await wide.emitted()).toEqual([]);
		expect(await activeTrigger({ daysAhead: 0 }, narrow.staticData).emitted()).toEqual([]);
	});

	it('watches paid-out loans only: not requests, not defaulted or repaid ones; Undercollateralized still counts', async () => {
		dueIn(CONTRACTS.requested, HOUR);
		dueIn(CONTRACTS.approved, HOUR);
		dueIn(CONTRACTS.otherBorrowers, HOUR);
		const bullet = dueIn(CONTRACTS.marginCall, DAY);
		sandbox.admin.setContractStatus(CONTRACTS.marginCall, 'Undercollateralized');
		const trigger = activeTrigger({});
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({
				installment_id: bullet.id,
				contract_status: 'Undercollateralized',
				btc_invoice_possible: false,
			}),
		]);

		dueIn(CONTRACTS.principalGiven, DAY);
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'Defaulted');
		expect(await trigger.emitted()).toEqual([]);
	});

	it('says when the next installment can be billed in Bitcoin', async () => {
		const first = dueIn(CONTRACTS.principalGiven, DAY);
		const second = dueIn(
			CONTRACTS.principalGiven,
			2 * DAY,
			openInstallments(CONTRACTS.principalGiven)[1],
		);
		contractOf(CONTRACTS.principalGiven).btc_loan_repayment_address =
			'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
		const items = await activeTrigger({}).emitted();
		expect(items.map((item) => [item.installment_id, item.btc_invoice_possible])).toEqual([
			[first.id, true],
			[second.id, false],
		]);
		expect(items[0].btc_loan_repayment_address).toBe('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx');
	});

	it('forgets an installment once it is paid, so the state stays small', async () => {
		const next = dueIn(CONTRACTS.principalGiven, DAY);
		const trigger = activeTrigger({});
		await trigger.emitted();
		expect(emittedIds(trigger.staticData)).toEqual([`${CONTRACTS.principalGiven}/${next.id}`]);

		const paid = await fetch(
			`${sandbox.url}/api/contracts/${CONTRACTS.principalGiven}/installment-paid`,
			{
				method: 'PUT',
				headers: { 'x-api-key': sandbox.keys.borrower, 'content-type': 'application/json' },
				body: JSON.stringify({ installment_id: next.id, payment_id: '0x' + 'ab'.repeat(32) }),
			},
		);
		expect(paid.status).toBe(200);
		expect(await trigger.emitted()).toEqual([]);
		expect(emittedIds(trigger.staticData)).toEqual([]);
	});
});

describe('Installment Due: a failed poll loses nothing and repeats nothing', () => {
	it('a 500 leaves the state as it was; the next poll emits the installment once', async () => {
		const next = dueIn(CONTRACTS.principalGiven, DAY);
		const trigger = activeTrigger({});
		const before = snapshot(trigger.staticData);

		sandbox.configure({
			dialect: 'live',
			faults: [{ kind: '500', path: '/api/contracts', times: 1 }],
		});
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeApiError);
		expect(failed.error?.message).toBe('Lendasat had an internal error (HTTP 500)');
		expect((failed.error as NodeApiError).description).toContain('the next poll tries again');
		expect(failed.items).toBeNull();
		expect(snapshot(trigger.staticData)).toEqual(before);

		expect(installmentIds(await trigger.emitted())).toEqual([next.id]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('a late turn seen by a failed poll is emitted by the next one, once', async () => {
		const next = dueIn(CONTRACTS.principalGiven, DAY);
		const trigger = activeTrigger({});
		await trigger.emitted();
		sandbox.admin.setInstallment(CONTRACTS.principalGiven, next.id, { status: 'late' });
		const before = snapshot(trigger.staticData);

		// The connection drops on every attempt: the poll retries twice, then fails.
		sandbox.configure({ faults: [{ kind: 'reset', path: '/api/contracts', times: 3 }] });
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeApiError);
		expect(contractRequests()).toHaveLength(1 + 3);
		expect(snapshot(trigger.staticData)).toEqual(before);

		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ installment_id: next.id, late: true }),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('an unreadable due date fails the poll with the state kept; once readable, it is emitted once and nothing again', async () => {
		const first = dueIn(CONTRACTS.marginCall, DAY);
		const trigger = activeTrigger({});
		expect(installmentIds(await trigger.emitted())).toEqual([first.id]);
		const before = snapshot(trigger.staticData);

		const unreadable = dueIn(CONTRACTS.principalGiven, 2 * DAY);
		const readable = unreadable.due_date;
		unreadable.due_date = 'next Tuesday';
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeOperationError);
		expect(failed.error?.message).toBe(
			'Lendasat Borrower Trigger (Installment Due): the due date of an installment cannot be read',
		);
		expect((failed.error as NodeOperationError).description).toContain(
			`Installment ${unreadable.id} of contract ${CONTRACTS.principalGiven} is due "next Tuesday"`,
		);
		expect((failed.error as NodeOperationError).description).toContain(
			'Nothing was emitted and the trigger kept its position; the next poll tries again.',
		);
		expect(failed.items).toBeNull();
		expect(snapshot(trigger.staticData)).toEqual(before);

		unreadable.due_date = readable;
		expect(installmentIds(await trigger.emitted())).toEqual([unreadable.id]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('120 loans over two pages: a failure on page 2 emits nothing; the next poll emits each installment once', async () => {
		// Bullet loans of 7 days: each installment falls due 7 days after creation.
		const loans = sandbox.admin.createContracts(sandbox.keys.borrower, 120, {
			loan_id: OFFERS.usdcPolygon,
			status: 'PrincipalGiven',
		});
		const trigger = activeTrigger({ daysAhead: 7 });
		const before = snapshot(trigger.staticData);

		sandbox.configure({
			faults: [
				{ kind: 'slow', delayMs: 0, path: '/api/contracts', times: 1 },
				{ kind: '500', path: '/api/contracts', times: 1 },
			],
		});
		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeApiError);
		expect(contractRequests().map((request) => request.query.page)).toEqual(['1', '2']);
		expect(snapshot(trigger.staticData)).toEqual(before);

		sandbox.requests.length = 0;
		const items = await trigger.emitted();
		expect(contractRequests().map((request) => request.query)).toEqual([
			{ ...WATCHED_QUERY, page: '1' },
			{ ...WATCHED_QUERY, page: '2' },
		]);
		expect(items).toHaveLength(120);
		expect(new Set(items.map((item) => item.contract_id))).toEqual(
			new Set(loans.map((loan) => loan.id)),
		);
		expect(new Set(installmentIds(items))).toEqual(
			new Set(loans.map((loan) => loan.installments[0].id)),
		);
		expect(emittedIds(trigger.staticData)).toHaveLength(120);
		expect(await trigger.emitted()).toEqual([]);
	});
});

describe('Installment Due: no reminder is lost in silence', () => {
	const description = (error: Error | undefined) => (error as NodeOperationError).description;

	it('reads on by page number from a server that pages 50 when asked for 100, up to its total of 150', async () => {
		const loans = sandbox.admin.createContracts(sandbox.keys.borrower, 148, {
			loan_id: OFFERS.usdcPolygon,
			status: 'PrincipalGiven',
		});
		sandbox.configure({ paging: 'small-pages' });
		const trigger = activeTrigger({ daysAhead: 7 });

		const items = await trigger.emitted();
		expect(new Set(installmentIds(items))).toEqual(
			new Set(loans.map((loan) => loan.installments[0].id)),
		);
		expect(items).toHaveLength(148);
		expect(contractRequests().map((request) => request.query)).toEqual([
			{ ...WATCHED_QUERY, page: '1' },
			{ ...WATCHED_QUERY, page: '2' },
			{ ...WATCHED_QUERY, page: '3' },
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('fails the poll, emitting nothing and keeping its state, when the pages end short of the total', async () => {
		const next = dueIn(CONTRACTS.principalGiven, DAY);
		sandbox.configure({ paging: 'inflated-total' });
		const trigger = activeTrigger({});

		const failed = await trigger.poll();
		expect(failed.error).toBeInstanceOf(NodeOperationError);
		expect(failed.error?.message).toBe(
			'Lendasat Borrower Trigger (Installment Due): Lendasat returned 2 of 102 contracts',
		);
		expect(description(failed.error)).toBe(
			"The server counted 102 contracts, but its pages ended after 2, so the poll could not see them all. Nothing was emitted and the trigger kept its position; the next poll tries again. If this keeps happening, check the credential's Base URL: Lendasat's contract list pages completely.",
		);
		expect(contractRequests().map((request) => request.query.page)).toEqual(['1', '2']);
		expect(failed.items).toBeNull();
		expect(trigger.staticData).toEqual({});

		sandbox.configure({ paging: null });
		expect(installmentIds(await trigger.emitted())).toEqual([next.id]);
	});

	it('reminds once of an installment whose ID comes back in another letter case', async () => {
		const next = dueIn(CONTRACTS.principalGiven, DAY);
		const trigger = activeTrigger({});
		expect(installmentIds(await trigger.emitted())).toEqual([next.id]);

		// The same contract and installment, the server now writing the UUIDs in capitals.
		const contract = contractOf(CONTRACTS.principalGiven);
		contract.id = contract.id.toUpperCase();
		next.id = next.id.toUpperCase();
		expect(await trigger.emitted()).toEqual([]);

		sandbox.admin.markLateInstallments();
		next.status = 'late';
		expect(await trigger.emitted()).toEqual([
			expect.objectContaining({ installment_id: next.id, late: true }),
		]);
		expect(await trigger.emitted()).toEqual([]);
	});

	it('keeps working with the state saved by earlier versions of the node', async () => {
		const next = dueIn(CONTRACTS.principalGiven, DAY);
		// As saved before IDs were compared without case, after a server that wrote them in capitals.
		const staticData: IDataObject = {
			installments: {
				version: 1,
				emitted: {
					[`${CONTRACTS.principalGiven.toUpperCase()}/${next.id.toUpperCase()}`]: {
						late: false,
						seenAt: Date.now() - HOUR,
					},
				},
			},
		};
		const trigger = activeTrigger({}, staticData);
		expect(await trigger.emitted()).toEqual([]);
		expect(emittedIds(trigger.staticData)).toEqual([`${CONTRACTS.principalGiven}/${next.id}`]);
	});

	it.each([
		['without a time-zone offset', (iso: string) => iso.replace(/\.\d{3}Z$/, '')],
		['as a date only', (iso: string) => iso.slice(0, 10)],
		['that is not a date', () => 'next Tuesday'],
	])(
		'fails the poll on a due date %s, naming the contract, the installment and the value',
		async (_, rewrite) => {
			const unreadable = dueIn(CONTRACTS.principalGiven, DAY);
			const readable = dueIn(CONTRACTS.marginCall, DAY);
			const stored = unreadable.due_date;
			unreadable.due_date = rewrite(stored);
			const trigger = activeTrigger({});

			const failed = await trigger.poll();
			expect(failed.error).toBeInstanceOf(NodeOperationError);
			expect(failed.error?.message).toBe(
				'Lendasat Borrower Trigger (Installment Due): the due date of an installment cannot be read',
			);
			expect(description(failed.error)).toBe(
				`Installment ${unreadable.id} of contract ${CONTRACTS.principalGiven} is due ${JSON.stringify(unreadable.due_date)}, which is not a date and time with a time-zone offset (RFC 3339, such as 2026-03-01T12:00:00Z, as Lendasat sends it), so the trigger cannot tell when it falls due. Nothing was emitted and the trigger kept its position; the next poll tries again. Check the credential's Base URL: Lendasat's backend always sends the offset.`,
			);
			expect(failed.items).toBeNull();
			expect(trigger.staticData).toEqual({});

			// The same instant with an offset (UTC+05:30) is read as that instant.
			const withOffset = new Date(Date.parse(stored) + 5.5 * HOUR)
				.toISOString()
				.replace(/\.\d{3}Z$/, '+05:30');
			unreadable.due_date = withOffset;
			expect(await trigger.emitted()).toEqual([
				expect.objectContaining({
					installment_id: unreadable.id,
					due_date: withOffset,
					days_until_due: 1,
				}),
				expect.objectContaining({ installment_id: readable.id }),
			]);
		},
	);
});

describe('Installment Due: Days Ahead and Fetch Test Event', () => {
	it.each([
		[-1, 'Must not be negative, got -1.'],
		[2.5, 'Must be a whole number of days like 3, got 2.5.'],
		['soon', 'Expected a whole number of days like 3, got "soon".'],
	])('refuses Days Ahead %p before asking the API', async (daysAhead, problem) => {
		for (const mode of ['trigger', 'manual'] as const) {
			const staticData: IDataObject = {};
			const { error, items } = await pollTrigger(
				{ event: 'installmentDue', daysAhead },
				{ credential: borrower(), staticData, mode },
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error?.message).toBe('Invalid Days Ahead');
			expect((error as NodeOperationError).description).toContain(`Days Ahead: ${problem}`);
			expect(items).toBeNull();
			expect(staticData).toEqual({});
		}
		expect(sandbox.requests).toEqual([]);
	});

	it('"Fetch Test Event" shows the installment due first in the window and leaves the state alone', async () => {
		const trigger = activeTrigger({});
		dueIn(CONTRACTS.marginCall, 2 * DAY);
		await trigger.emitted();
		const before = snapshot(trigger.staticData);

		const soonest = dueIn(CONTRACTS.principalGiven, DAY);
		const { items, error } = await pollTrigger(
			{ event: 'installmentDue' },
			{ credential: borrower(), staticData: trigger.staticData, mode: 'manual' },
		);
		expect(error).toBeUndefined();
		expect(items?.map((item) => item.json)).toEqual([
			expect.objectContaining({
				event: 'installmentDue',
				installment_id: soonest.id,
				days_until_due: 1,
			}),
		]);
		expect(snapshot(trigger.staticData)).toEqual(before);
		expect(installmentIds(await trigger.emitted())).toEqual([soonest.id]);
	});

	it('"Fetch Test Event" with nothing in the window shows the next installment due, so its shape can be seen', async () => {
		const { items, error } = await pollTrigger(
			{ event: 'installmentDue' },
			{ credential: borrower(), staticData: {}, mode: 'manual' },
		);
		expect(error).toBeUndefined();
		expect(items?.map((item) => item.json)).toEqual([
			expect.objectContaining({
				contract_id: CONTRACTS.principalGiven,
				installment_id: openInstallments(CONTRACTS.principalGiven)[0].id,
				days_until_due: 20,
				late: false,
			}),
		]);
		expect(contractRequests().map((request) => request.query)).toEqual([
			{ ...WATCHED_QUERY, page: '1' },
		]);
	});
});

describe('the sandbox moves installments for these tests and demos', () => {
	const admin = async (path: string, body?: unknown) => {
		const answer = await fetch(`${sandbox.url}/__admin${path}`, {
			method: 'POST',
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: answer.status, body: (await answer.json()) as IDataObject };
	};

	it('sets a due date and a status over HTTP, and runs the late job on PrincipalGiven loans only', async () => {
		const [next] = openInstallments(CONTRACTS.principalGiven);
		const updatedAt = contractOf(CONTRACTS.principalGiven).updated_at;
		const moved = await admin(`/contracts/${CONTRACTS.principalGiven}/installments/${next.id}`, {
			due_date: '2026-01-02T03:04:05+01:00',
		});
		expect(moved).toEqual({
			status: 200,
			body: expect.objectContaining({
				id: next.id,
				due_date: '2026-01-02T02:04:05.000Z',
				status: 'pending',
			}),
		});
		// Installments are rows of their own: the contract's updated_at stays.
		expect(contractOf(CONTRACTS.principalGiven).updated_at).toBe(updatedAt);

		const [bullet] = openInstallments(CONTRACTS.marginCall);
		sandbox.admin.setInstallment(CONTRACTS.marginCall, bullet.id, {
			due_date: '2026-01-01T00:00:00Z',
		});
		sandbox.admin.setContractStatus(CONTRACTS.marginCall, 'Undercollateralized');
		expect(await admin('/jobs/late-installments')).toEqual({ status: 200, body: { marked: 1 } });
		expect(next.status).toBe('late');
		expect(bullet.status).toBe('pending');

		expect(
			(
				await admin(`/contracts/${CONTRACTS.principalGiven}/installments/${next.id}`, {
					status: 'pending',
				})
			).body.status,
		).toBe('pending');
		expect(
			(
				await admin(`/contracts/${CONTRACTS.principalGiven}/installments/${next.id}`, {
					due_date: 'tomorrow',
				})
			).status,
		).toBe(400);
		expect(
			(
				await admin(
					`/contracts/${CONTRACTS.principalGiven}/installments/00000000-0000-4000-8000-000000000000`,
					{},
				)
			).status,
		).toBe(404);
	});
});
