import type { IDataObject } from 'n8n-workflow';

import {
	advanceInstallmentCursor,
	FORGET_UNLISTED_AFTER_MS,
	INSTALLMENT_CONTRACT_STATUSES,
	type InstallmentCursor,
} from '../../nodes/LendasatBorrower/trigger/installments';
import { checkDaysAhead } from '../../nodes/LendasatBorrower/validation/checks';

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-23T12:00:00Z');

const at = (ms: number) => new Date(ms).toISOString();

function installment(
	id: string,
	dueInMs: number,
	status = 'pending',
	principal = 0,
	interest = 10,
): IDataObject {
	return {
		id,
		principal,
		interest,
		due_date: at(NOW + dueInMs),
		status,
		paid_date: null,
		payment_id: null,
	};
}

function contract(
	id: string,
	installments: IDataObject[],
	overrides: IDataObject = {},
): IDataObject {
	return {
		id,
		status: 'PrincipalGiven',
		loan_asset: 'UsdcPol',
		loan_type: 'StableCoin',
		loan_repayment_address: '0x52908400098527886E0F7030069857D2E4169EE7',
		btc_loan_repayment_address: null,
		installments,
		...overrides,
	};
}

/** Polls in a row, each with its own clock and contracts, threading the cursor as the node does. */
function poller(daysAhead = 3) {
	let cursor: InstallmentCursor | null = null;
	return {
		get cursor() {
			return cursor;
		},
		poll(contracts: IDataObject[], now = NOW, days = daysAhead): IDataObject[] {
			const { next, items } = advanceInstallmentCursor(cursor, contracts, now, days);
			cursor = next;
			return items;
		},
	};
}

const ids = (items: IDataObject[]) => items.map((item) => item.installment_id);

describe('advanceInstallmentCursor: once per installment, once more when late', () => {
	it('emits installments in the window on the very first poll, soonest first, and never again', () => {
		const trigger = poller(3);
		const contracts = [
			contract('c1', [installment('i-later', 2 * DAY), installment('i-far', 10 * DAY)]),
			contract('c2', [installment('i-soon', 1 * HOUR)]),
		];
		expect(ids(trigger.poll(contracts))).toEqual(['i-soon', 'i-later']);
		expect(trigger.poll(contracts, NOW + HOUR / 2)).toEqual([]);
		expect(Object.keys(trigger.cursor!.emitted).sort()).toEqual(['c1/i-later', 'c2/i-soon']);
	});

	it('compares installment and contract IDs without case', () => {
		const trigger = poller();
		expect(ids(trigger.poll([contract('c-abc', [installment('i-abc', HOUR)])]))).toEqual(['i-abc']);
		expect(trigger.poll([contract('C-ABC', [installment('I-ABC', HOUR)])])).toEqual([]);
		expect(Object.keys(trigger.cursor!.emitted)).toEqual(['c-abc/i-abc']);
		// Paid, in yet another case: forgotten.
		trigger.poll([contract('c-Abc', [installment('i-aBC', HOUR, 'paid')])]);
		expect(trigger.cursor!.emitted).toEqual({});
	});

	it('reads cursors saved before IDs were compared without case, merging the marks of one installment', () => {
		const saved: InstallmentCursor = {
			version: 1,
			emitted: {
				'C1/I-ABC': { late: true, seenAt: NOW - DAY },
				'c1/i-abc': { late: false, seenAt: NOW - HOUR },
				'c1/I-Other': { late: false, seenAt: NOW - HOUR },
			},
		};
		const { next, items } = advanceInstallmentCursor(
			saved,
			[contract('c1', [installment('i-abc', -HOUR), installment('i-other', -HOUR)])],
			NOW,
			3,
		);
		// i-other turned late since; i-abc's late reminder went out already.
		expect(ids(items)).toEqual(['i-other']);
		expect(next.emitted).toEqual({
			'c1/i-abc': { late: true, seenAt: NOW },
			'c1/i-other': { late: true, seenAt: NOW },
		});
		expect(Object.keys(saved.emitted)).toHaveLength(3);
	});

	it('tells apart installments of different contracts that share an ID', () => {
		const trigger = poller(3);
		const first = contract('c1', [installment('1', 2 * DAY)]);
		const second = contract('c2', [installment('1', 1 * DAY)]);
		expect(trigger.poll([first])).toHaveLength(1);
		expect(trigger.poll([first, second], NOW + HOUR)).toEqual([
			expect.objectContaining({ contract_id: 'c2', installment_id: '1' }),
		]);
	});

	it.each([
		['a bare number', '1'],
		['a day that does not exist', '2026-02-30T00:00:00Z'],
		['a date in words', 'June 2, 2026'],
		['a time without its offset', '2026-11-24T20:00:00'],
	])('skips a due date that is not RFC 3339: %s', (_case, dueDate) => {
		const trigger = poller(3);
		const odd = contract('c1', [{ ...installment('i1', HOUR), due_date: dueDate }]);
		expect(trigger.poll([odd])).toEqual([]);
	});

	it('builds the reminder: amount, due date, days until due, where to pay', () => {
		const [item] = poller(3).poll([
			contract('c1', [installment('i1', 2 * DAY + HOUR, 'pending', 1000, 10.1)], {
				btc_loan_repayment_address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
			}),
		]);
		expect(item).toEqual({
			event: 'installmentDue',
			contract_id: 'c1',
			installment_id: 'i1',
			amount: 1010.1,
			principal: 1000,
			interest: 10.1,
			loan_asset: 'UsdcPol',
			due_date: at(NOW + 2 * DAY + HOUR),
			days_until_due: 3,
			late: false,
			installment_status: 'pending',
			contract_status: 'PrincipalGiven',
			loan_type: 'StableCoin',
			loan_repayment_address: '0x52908400098527886E0F7030069857D2E4169EE7',
			btc_loan_repayment_address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
			btc_invoice_possible: true,
		});
	});

	it('adds principal and interest without floating-point noise', () => {
		const [item] = poller().poll([contract('c1', [installment('i1', HOUR, 'pending', 0.1, 0.2)])]);
		expect(item.amount).toBe(0.3);
	});

	it('counts whole days: due within N days ahead, N full days overdue (at least 1), negative exactly when overdue', () => {
		const trigger = poller(3);
		const items = trigger.poll([
			contract('c1', [
				installment('due-now', 0),
				installment('in-1h', HOUR),
				installment('in-1d', DAY),
				installment('in-1d1h', DAY + HOUR),
				installment('1h-ago', -HOUR),
				installment('2d-ago', -2 * DAY),
				installment('2d23h-ago', -3 * DAY + HOUR),
			]),
		]);
		const days = Object.fromEntries(
			items.map((item) => [item.installment_id, item.days_until_due]),
		);
		expect(days).toEqual({
			'due-now': 0,
			'in-1h': 1,
			'in-1d': 1,
			'in-1d1h': 2,
			'1h-ago': -1,
			'2d-ago': -2,
			'2d23h-ago': -2,
		});
		const late = Object.fromEntries(items.map((item) => [item.installment_id, item.late]));
		expect(late).toMatchObject({
			'due-now': false,
			'in-1h': false,
			'1h-ago': true,
			'2d-ago': true,
		});
	});

	it('emits once more when the installment turns late: by status, or pending past its due date', () => {
		const trigger = poller(3);
		expect(
			ids(trigger.poll([contract('c1', [installment('a', DAY), installment('b', 2 * DAY)])])),
		).toEqual(['a', 'b']);

		// The backend's job marked `b` late (it runs every 30 minutes, here early for the test).
		expect(
			trigger.poll([contract('c1', [installment('a', DAY), installment('b', 2 * DAY, 'late')])]),
		).toEqual([
			expect.objectContaining({
				installment_id: 'b',
				late: true,
				installment_status: 'late',
				days_until_due: 2,
			}),
		]);

		// `a` is past due but the job has not run: still pending.
		const later = NOW + DAY + HOUR;
		expect(
			trigger.poll(
				[contract('c1', [installment('a', DAY), installment('b', 2 * DAY, 'late')])],
				later,
			),
		).toEqual([
			expect.objectContaining({
				installment_id: 'a',
				late: true,
				installment_status: 'pending',
				days_until_due: -1,
			}),
		]);
		// Then the job marks it late: nothing new.
		expect(
			trigger.poll(
				[contract('c1', [installment('a', DAY, 'late'), installment('b', 2 * DAY, 'late')])],
				later + HOUR,
			),
		).toEqual([]);
	});

	it('an installment already late when first seen is emitted once, not twice', () => {
		const trigger = poller(0);
		expect(
			trigger.poll([contract('c1', [installment('x', -5 * DAY, 'late'), installment('y', -HOUR)])]),
		).toEqual([
			expect.objectContaining({ installment_id: 'x', late: true }),
			expect.objectContaining({ installment_id: 'y', late: true }),
		]);
		expect(
			trigger.poll([
				contract('c1', [installment('x', -5 * DAY, 'late'), installment('y', -HOUR, 'late')]),
			]),
		).toEqual([]);
	});

	it('leaves installments outside the window for later, and emits them when the window reaches them', () => {
		const trigger = poller(3);
		const contracts = [contract('c1', [installment('i1', 5 * DAY)])];
		expect(trigger.poll(contracts)).toEqual([]);
		expect(trigger.cursor!.emitted).toEqual({});
		expect(trigger.poll(contracts, NOW + 2 * DAY - 1)).toEqual([]);
		expect(ids(trigger.poll(contracts, NOW + 2 * DAY))).toEqual(['i1']);
		expect(trigger.poll(contracts, NOW + 2 * DAY + HOUR)).toEqual([]);
	});

	it('changing Days Ahead never emits an installment again, and a wider window emits the new ones', () => {
		const trigger = poller();
		const contracts = [contract('c1', [installment('near', DAY), installment('far', 6 * DAY)])];
		expect(ids(trigger.poll(contracts, NOW, 3))).toEqual(['near']);
		expect(ids(trigger.poll(contracts, NOW, 7))).toEqual(['far']);
		expect(trigger.poll(contracts, NOW, 0)).toEqual([]);
		expect(trigger.poll(contracts, NOW, 30)).toEqual([]);
	});

	it('daysAhead 0 emits only what is due now or overdue', () => {
		expect(
			ids(
				poller(0).poll([
					contract('c1', [installment('now', 0), installment('soon', 1), installment('past', -1)]),
				]),
			),
		).toEqual(['past', 'now']);
	});

	it('ignores settled installments and contracts in statuses without anything owed', () => {
		expect(INSTALLMENT_CONTRACT_STATUSES).toEqual(['PrincipalGiven', 'Undercollateralized']);
		const trigger = poller(3);
		const items = trigger.poll([
			contract('c1', [
				installment('paid', HOUR, 'paid'),
				installment('confirmed', HOUR, 'confirmed'),
				installment('cancelled', HOUR, 'cancelled'),
				installment('odd', HOUR, 'Pending'),
			]),
			contract('requested', [installment('r', HOUR)], { status: 'Requested' }),
			contract('provided', [installment('p', HOUR)], { status: 'RepaymentProvided' }),
			contract('defaulted', [installment('d', -DAY, 'late')], { status: 'Defaulted' }),
			contract('extended', [installment('e', HOUR)], { status: 'Extended' }),
			contract('under', [installment('u', HOUR)], { status: 'Undercollateralized' }),
		]);
		expect(items).toEqual([
			expect.objectContaining({
				installment_id: 'u',
				contract_status: 'Undercollateralized',
				btc_invoice_possible: false,
			}),
		]);
	});

	it('returns open installments it cannot place instead of skipping them; malformed entries are not installments', () => {
		const { items, unreadable } = advanceInstallmentCursor(
			null,
			[
				contract('c1', [
					{ id: 'no-date', principal: 0, interest: 1, status: 'pending' },
					{ id: 'bad-date', principal: 0, interest: 1, status: 'pending', due_date: 'soon' },
					{ principal: 0, interest: 1, status: 'late', due_date: at(NOW) },
					{ id: 'paid', principal: 0, interest: 1, status: 'paid', due_date: 'whenever' },
					'not an object' as unknown as IDataObject,
					installment('ok', HOUR),
				]),
				{ id: 'c2', status: 'PrincipalGiven', installments: null },
				contract('c3', [{ ...installment('asked', HOUR), due_date: 'never' }], {
					status: 'Requested',
				}),
			],
			NOW,
			3,
		);
		expect(unreadable).toEqual([
			{ contractId: 'c1', installmentId: 'no-date', dueDate: undefined },
			{ contractId: 'c1', installmentId: 'bad-date', dueDate: 'soon' },
			{ contractId: 'c1', installmentId: undefined, dueDate: at(NOW) },
		]);
		expect(ids(items)).toEqual(['ok']);
	});

	it.each([
		['2026-11-24T12:00:00Z', true],
		['2026-11-24T11:59:59.123456789Z', true],
		['2026-11-24T17:30:00+05:30', true],
		['2026-11-24t07:00:00-05:00', true],
		['2026-11-24 12:00:00z', true],
		['2026-11-24T12:00:00', false],
		['2026-11-24', false],
		['2026-11-24T12:00:00+0530', false],
		['2026-11-24T24:00:00Z', false],
		['2026-02-30T12:00:00Z', false],
		['1', false],
		[1795521600000, false],
	])('reads the due date %p: %p', (dueDate, readable) => {
		const { items, unreadable } = advanceInstallmentCursor(
			null,
			[contract('c1', [{ ...installment('i1', 0), due_date: dueDate }])],
			NOW,
			3,
		);
		expect(unreadable).toHaveLength(readable ? 0 : 1);
		if (readable) expect(items).toEqual([expect.objectContaining({ days_until_due: 1 })]);
	});

	it('passes amounts it cannot add as null rather than guessing', () => {
		const [item] = poller().poll([
			contract('c1', [{ ...installment('i1', HOUR), principal: 'lots', interest: '' }]),
		]);
		expect(item).toMatchObject({ amount: null, principal: null, interest: null });
	});
});

describe('advanceInstallmentCursor: the state stays small', () => {
	it('forgets an installment as soon as it is listed paid, confirmed or cancelled', () => {
		const trigger = poller(3);
		trigger.poll([
			contract('c1', [installment('a', HOUR), installment('b', HOUR), installment('c', HOUR)]),
		]);
		trigger.poll([
			contract('c1', [
				installment('a', HOUR, 'paid'),
				installment('b', HOUR, 'confirmed'),
				installment('c', HOUR, 'cancelled'),
			]),
		]);
		expect(trigger.cursor!.emitted).toEqual({});
	});

	it('keeps an installment that is not listed for a while (a page shift, a status away and back), then forgets it', () => {
		const trigger = poller(3);
		const listed = [contract('c1', [installment('a', 2 * DAY)])];
		expect(ids(trigger.poll(listed))).toEqual(['a']);

		// Not listed (e.g. the contract slid between pages during the walk): remembered, not emitted again.
		expect(trigger.poll([], NOW + HOUR)).toEqual([]);
		expect(trigger.poll(listed, NOW + 2 * HOUR)).toEqual([]);

		// Unlisted for longer than the memory: forgotten.
		const lastSeen = NOW + 2 * HOUR;
		trigger.poll([], lastSeen + FORGET_UNLISTED_AFTER_MS);
		expect(Object.keys(trigger.cursor!.emitted)).toEqual(['c1/a']);
		trigger.poll([], lastSeen + FORGET_UNLISTED_AFTER_MS + 1);
		expect(trigger.cursor!.emitted).toEqual({});
	});

	it('holds only emitted installments, whatever the number of contracts', () => {
		const trigger = poller(3);
		const contracts = Array.from({ length: 500 }, (_, index) =>
			contract(`c${index}`, [
				installment(`near-${index}`, HOUR),
				installment(`far-${index}`, 30 * DAY),
			]),
		);
		expect(trigger.poll(contracts)).toHaveLength(500);
		expect(Object.keys(trigger.cursor!.emitted)).toHaveLength(500);
	});

	it('does not change the previous cursor (a failed poll keeps it)', () => {
		const trigger = poller(3);
		trigger.poll([contract('c1', [installment('a', HOUR)])]);
		const before = JSON.parse(JSON.stringify(trigger.cursor)) as InstallmentCursor;
		advanceInstallmentCursor(
			trigger.cursor,
			[contract('c1', [installment('a', HOUR, 'paid'), installment('b', HOUR)])],
			NOW + HOUR,
			3,
		);
		expect(trigger.cursor).toEqual(before);
	});
});

describe('advanceInstallmentCursor: which installment a Bitcoin invoice would bill', () => {
	const btc = { btc_loan_repayment_address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' };

	it('only the pending one due first, in PrincipalGiven, with a lender BTC address, not in EUR', () => {
		const schedule = () => [
			installment('late', -DAY, 'late'),
			installment('next', DAY),
			installment('after', 2 * DAY),
		];
		const possible = (overrides: IDataObject) =>
			Object.fromEntries(
				poller(3)
					.poll([contract('c1', schedule(), overrides)])
					.map((item) => [item.installment_id, item.btc_invoice_possible]),
			);
		expect(possible(btc)).toEqual({ late: false, next: true, after: false });
		expect(possible({})).toEqual({ late: false, next: false, after: false });
		expect(possible({ ...btc, loan_asset: 'Eur' })).toEqual({
			late: false,
			next: false,
			after: false,
		});
		expect(possible({ ...btc, loan_asset: 'Chf' })).toEqual({
			late: false,
			next: true,
			after: false,
		});
		expect(possible({ ...btc, status: 'Undercollateralized' })).toEqual({
			late: false,
			next: false,
			after: false,
		});
	});
});

describe('checkDaysAhead', () => {
	it.each([0, 3, 30, '7', 36500])('accepts %p', (value) => {
		expect(checkDaysAhead(value)).toBeNull();
	});

	it.each([
		[-1, 'Must not be negative, got -1. Use 0 for installments that are due now or overdue.'],
		[1.5, 'Must be a whole number of days like 3, got 1.5.'],
		['', 'Must not be empty. Enter a whole number of days like 3.'],
		['three', 'Expected a whole number of days like 3, got "three".'],
		[null, 'Expected a whole number of days like 3, got null.'],
		[Number.POSITIVE_INFINITY, 'Must be a whole number of days like 3, got Infinity.'],
		[36501, 'Must be at most 36500 days (100 years), got 36501.'],
	])('refuses %p', (value, problem) => {
		expect(checkDaysAhead(value)).toBe(problem);
	});
});
