import type { IDataObject } from 'n8n-workflow';

import {
	currentEvents,
	EVENT_NAMES,
	FINISHED_SHOWN_MS,
	type EventSettings,
} from '../../nodes/LendasatBorrower/resources/contract/events';
import {
	previousStatusInTimeline,
	statusHistory,
} from '../../nodes/LendasatBorrower/trigger/contracts';

const NOW = Date.parse('2026-11-21T09:00:00Z');
const ID = '7A3F2C1E-9D4A-4B6F-8E2A-1C5D7F9A0B3E';

const settings = (overrides: Partial<EventSettings> = {}): EventSettings => ({
	events: EVENT_NAMES,
	statuses: [],
	daysAhead: 3,
	now: NOW,
	borrower: 'b-17',
	shape: (contract) => ({ status: contract.status }),
	...overrides,
});

const change = (status: string, date: string) => ({
	date,
	event: { type: 'contract_status_change', status },
});

const contract = (fields: IDataObject = {}): IDataObject => ({
	id: ID,
	status: 'PrincipalGiven',
	liquidation_status: 'Healthy',
	updated_at: '2026-11-20T08:00:00Z',
	timeline: [
		change('Requested', '2026-11-01T08:00:00Z'),
		change('PrincipalGiven', '2026-11-02T08:00:00Z'),
	],
	installments: [],
	...fields,
});

const itemsOf = (contracts: IDataObject[], overrides: Partial<EventSettings> = {}) =>
	currentEvents(contracts, settings(overrides)).events.map((event) => event.item);

const keys = (contracts: IDataObject[], overrides: Partial<EventSettings> = {}) =>
	itemsOf(contracts, overrides).map((item) => item.event_key);

const identities = (contracts: IDataObject[], overrides: Partial<EventSettings> = {}) =>
	currentEvents(contracts, settings(overrides)).events.map((event) => event.identity);

const lower = ID.toLowerCase();

const funding = (date: string) => change('CollateralConfirmed', date);

describe('statusHistory: the statuses a contract went through, from its timeline', () => {
	it('keeps status changes in date order, each stay once, and takes later CollateralConfirmed entries for the extra collateral they are', () => {
		expect(
			statusHistory(
				contract({
					timeline: [
						change('PrincipalGiven', '2026-11-05T08:00:00Z'),
						change('Requested', '2026-11-01T08:00:00Z'),
						change('CollateralConfirmed', '2026-11-03T08:00:00Z'),
						{
							date: '2026-11-06T08:00:00Z',
							event: { type: 'installment_payment', installment_id: 'x', is_confirmed: true },
						},
						// Lendasat records each funding after the first as another CollateralConfirmed.
						funding('2026-11-07T08:00:00Z'),
						funding('2026-11-02T08:00:00Z'),
					],
				}),
			),
		).toEqual(['Requested', 'CollateralConfirmed', 'PrincipalGiven']);
	});

	it('is null without a timeline', () => {
		expect(statusHistory(contract({ timeline: undefined }))).toBeNull();
		expect(statusHistory(contract({ timeline: [] }))).toBeNull();
	});

	it('gives the status before the current stay, also while the timeline lags behind the status', () => {
		expect(previousStatusInTimeline(contract())).toBe('Requested');
		expect(
			previousStatusInTimeline(
				contract({
					timeline: [
						change('CollateralConfirmed', '2026-11-01T08:00:00Z'),
						change('PrincipalGiven', '2026-11-02T08:00:00Z'),
						funding('2026-11-03T08:00:00Z'),
					],
				}),
			),
		).toBe('CollateralConfirmed');
		// The status moved on; its timeline entry has not arrived yet.
		expect(previousStatusInTimeline(contract({ status: 'RepaymentProvided' }))).toBe(
			'PrincipalGiven',
		);
	});
});

describe('currentEvents: the keys Remove Duplicates dedupes on', () => {
	it('keys each event by what makes it news, IDs in lower case, and copies the borrower into each', () => {
		expect(itemsOf([contract({ liquidation_status: 'SecondMarginCall' })])).toEqual([
			{
				borrower: 'b-17',
				event: 'contractStatusChanged',
				event_key: `${lower}:PrincipalGiven:1`,
				contract_id: ID,
				status: 'PrincipalGiven',
				previousStatus: 'Requested',
			},
			{
				borrower: 'b-17',
				event: 'marginCall',
				event_key: `${lower}:marginCall:SecondMarginCall:2026-11-20T08:00:00.000Z`,
				contract_id: ID,
				status: 'PrincipalGiven',
			},
		]);
	});

	it('remembers a margin call by its level alone, and every other event by its key', () => {
		expect(identities([contract({ liquidation_status: 'SecondMarginCall' })])).toEqual([
			`${lower}:PrincipalGiven:1`,
			`${lower}:marginCall:SecondMarginCall`,
		]);
	});

	it('extra collateral on a paid-out loan, a payment in the timeline and a lagging timeline change no key', () => {
		const paidOut = keys([contract()], { events: ['contractStatusChanged'] });
		const withExtraCollateral = keys(
			[
				contract({
					timeline: [...(contract().timeline as IDataObject[]), funding('2026-11-10T08:00:00Z')],
				}),
			],
			{ events: ['contractStatusChanged'] },
		);
		const withPayment = keys(
			[
				contract({
					timeline: [
						...(contract().timeline as IDataObject[]),
						{
							date: '2026-11-11T08:00:00Z',
							event: { type: 'installment_payment', installment_id: 'x', is_confirmed: false },
						},
					],
				}),
			],
			{ events: ['contractStatusChanged'] },
		);
		expect(withExtraCollateral).toEqual(paidOut);
		expect(withPayment).toEqual(paidOut);

		// Repaid: the status comes before its timeline entry; the key is the same before and after.
		const lagging = keys([contract({ status: 'RepaymentProvided' })], {
			events: ['contractStatusChanged'],
		});
		const caughtUp = keys(
			[
				contract({
					status: 'RepaymentProvided',
					timeline: [
						...(contract().timeline as IDataObject[]),
						change('RepaymentProvided', '2026-11-12T08:00:00Z'),
					],
				}),
			],
			{ events: ['contractStatusChanged'] },
		);
		expect(lagging).toEqual([`${lower}:RepaymentProvided:1`]);
		expect(caughtUp).toEqual(lagging);
	});

	it('a status the contract returns to is a new key, also while the timeline lags', () => {
		const returned = (timeline: IDataObject[]) =>
			keys([contract({ timeline })], { events: ['contractStatusChanged'] });
		const before = [...(contract().timeline as IDataObject[])];
		const disputed = [...before, change('DisputeBorrowerStarted', '2026-11-12T08:00:00Z')];
		expect(returned(disputed)).toEqual([`${lower}:PrincipalGiven:2`]);
		expect(returned([...disputed, change('PrincipalGiven', '2026-11-13T08:00:00Z')])).toEqual([
			`${lower}:PrincipalGiven:2`,
		]);
	});

	it('a status without a timeline is keyed by the status alone; a margin call without a readable updated_at by its level', () => {
		expect(
			keys([contract({ timeline: [], liquidation_status: 'FirstMarginCall', updated_at: null })]),
		).toEqual([`${lower}:PrincipalGiven`, `${lower}:marginCall:FirstMarginCall`]);
	});

	it('gives a margin call only while the loan is PrincipalGiven, and a liquidation whatever the status', () => {
		expect(
			keys(
				[
					contract({
						status: 'RepaymentProvided',
						timeline: [],
						liquidation_status: 'FirstMarginCall',
					}),
				],
				{ events: ['marginCall'] },
			),
		).toEqual([]);
		expect(
			keys([contract({ status: 'ClosingByLiquidation', liquidation_status: 'Liquidated' })], {
				events: ['marginCall'],
			}),
		).toEqual([`${lower}:marginCall:Liquidated`]);
	});

	it('leaves out a contract whose final status is older than the window, all events of it', () => {
		const old = new Date(NOW - FINISHED_SHOWN_MS - 1).toISOString();
		const recent = new Date(NOW - FINISHED_SHOWN_MS + 60_000).toISOString();
		const ended = (updatedAt: string) =>
			contract({
				status: 'ClosedByLiquidation',
				liquidation_status: 'Liquidated',
				updated_at: updatedAt,
			});
		expect(keys([ended(old)])).toEqual([]);
		expect(keys([ended(recent)])).toHaveLength(2);
		// An open contract is given however long ago it last changed.
		expect(
			keys([contract({ updated_at: old })], { events: ['contractStatusChanged'] }),
		).toHaveLength(1);
	});

	it('keys an installment by its due instant, and apart once it is late', () => {
		const installment = (dueDate: string, status = 'pending') => ({
			id: 'INST-1',
			principal: 100,
			interest: 1,
			status,
			due_date: dueDate,
		});
		const dueIn = (dueDate: string, status?: string) =>
			keys([contract({ installments: [installment(dueDate, status)] })], {
				events: ['installmentDue'],
			});
		expect(dueIn('2026-11-23T10:00:00+01:00')).toEqual([
			`${lower}:inst-1:2026-11-23T09:00:00.000Z`,
		]);
		expect(dueIn('2026-11-25T09:00:00Z')).toEqual([]);
		expect(dueIn('2026-11-20T09:00:00Z')).toEqual([
			`${lower}:inst-1:2026-11-20T09:00:00.000Z:late`,
		]);
	});

	it('returns an open installment it cannot place apart, for the borrower to fail', () => {
		const { unreadable } = currentEvents(
			[contract({ installments: [{ id: 'i', status: 'pending', due_date: '2026-11-22' }] })],
			settings(),
		);
		expect(unreadable).toEqual([{ contractId: ID, installmentId: 'i', dueDate: '2026-11-22' }]);
	});

	it('gives one contract listed twice, its ID in other letter case, once', () => {
		expect(
			keys([contract(), contract({ id: lower })], { events: ['contractStatusChanged'] }),
		).toEqual([`${lower}:PrincipalGiven:1`]);
	});

	it.each<[string, IDataObject, RegExp]>([
		['no id', { id: undefined }, /^has the id /],
		['a status that is not text', { status: { name: 'PrincipalGiven' } }, /^has the status /],
		['no status', { status: undefined }, /^has the status /],
		[
			'a liquidation status that is not text',
			{ liquidation_status: 3 },
			/^has the liquidation status /,
		],
		['a timeline that is not a list', { timeline: 'soon' }, /^has a timeline that is not a list/],
		[
			'a paid-out loan whose installments are not a list',
			{ installments: { due: 'soon' } },
			/^is PrincipalGiven but its installments are /,
		],
	])('returns a contract with %s apart, and no event of it', (_case, fields, problem) => {
		const { events, malformed } = currentEvents([contract(fields)], settings());
		expect(events).toEqual([]);
		expect(malformed).toEqual([
			{ contractId: 'id' in fields ? undefined : ID, problem: expect.stringMatching(problem) },
		]);
	});

	it('does not ask for installments of a loan when Installment Due is not wanted', () => {
		expect(
			currentEvents([contract({ installments: undefined })], settings({ events: ['marginCall'] }))
				.malformed,
		).toEqual([]);
	});
});
