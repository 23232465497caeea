import type { IDataObject } from 'n8n-workflow';

import {
	currentEvents,
	EVENT_NAMES,
	FINISHED_SHOWN_MS,
	statusSince,
	type EventSettings,
} from '../../nodes/LendasatBorrower/resources/contract/events';

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

const keys = (contracts: IDataObject[], overrides: Partial<EventSettings> = {}) =>
	currentEvents(contracts, settings(overrides)).items.map((item) => item.event_key);

describe('statusSince: when the contract entered its current status', () => {
	it('is the first of the last run of entries with that status, in date order', () => {
		expect(
			statusSince(
				contract({
					status: 'CollateralConfirmed',
					timeline: [
						change('CollateralConfirmed', '2026-11-03T08:00:00Z'),
						change('Approved', '2026-11-02T08:00:00Z'),
						// Lendasat records extra funding as another CollateralConfirmed.
						change('CollateralConfirmed', '2026-11-04T08:00:00Z'),
						{
							date: '2026-11-05T08:00:00Z',
							event: { type: 'installment_payment', installment_id: 'x' },
						},
					],
				}),
			),
		).toBe('2026-11-03T08:00:00.000Z');
	});

	it('is null without a timeline, or when the timeline ends in another status', () => {
		expect(statusSince(contract({ timeline: undefined }))).toBeNull();
		expect(statusSince(contract({ status: 'Closed' }))).toBeNull();
	});
});

describe('currentEvents: the keys Remove Duplicates dedupes on', () => {
	it('keys each event by what makes it news, IDs in lower case, and copies the borrower into each', () => {
		const { items } = currentEvents(
			[contract({ liquidation_status: 'SecondMarginCall' })],
			settings(),
		);
		expect(items).toEqual([
			{
				borrower: 'b-17',
				event: 'contractStatusChanged',
				event_key: `${ID.toLowerCase()}:PrincipalGiven:2026-11-02T08:00:00.000Z`,
				contract_id: ID,
				status: 'PrincipalGiven',
				previousStatus: 'Requested',
			},
			{
				borrower: 'b-17',
				event: 'marginCall',
				event_key: `${ID.toLowerCase()}:marginCall:SecondMarginCall:2026-11-20T08:00:00.000Z`,
				contract_id: ID,
				status: 'PrincipalGiven',
			},
		]);
	});

	it('a status without a timeline is keyed by the status alone; a margin call without a readable updated_at by its level', () => {
		expect(
			keys([contract({ timeline: [], liquidation_status: 'FirstMarginCall', updated_at: null })]),
		).toEqual([
			`${ID.toLowerCase()}:PrincipalGiven`,
			`${ID.toLowerCase()}:marginCall:FirstMarginCall`,
		]);
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
				{
					events: ['marginCall'],
				},
			),
		).toEqual([]);
		expect(
			keys([contract({ status: 'ClosingByLiquidation', liquidation_status: 'Liquidated' })], {
				events: ['marginCall'],
			}),
		).toEqual([`${ID.toLowerCase()}:marginCall:Liquidated`]);
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
			`${ID.toLowerCase()}:inst-1:2026-11-23T09:00:00.000Z`,
		]);
		expect(dueIn('2026-11-25T09:00:00Z')).toEqual([]);
		expect(dueIn('2026-11-20T09:00:00Z')).toEqual([
			`${ID.toLowerCase()}:inst-1:2026-11-20T09:00:00.000Z:late`,
		]);
	});

	it('returns an open installment it cannot place apart, for the borrower to fail', () => {
		const { unreadable } = currentEvents(
			[contract({ installments: [{ id: 'i', status: 'pending', due_date: '2026-11-22' }] })],
			settings(),
		);
		expect(unreadable).toEqual([{ contractId: ID, installmentId: 'i', dueDate: '2026-11-22' }]);
	});
});
