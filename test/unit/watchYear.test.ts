/**
 * A partner watch over a simulated year (dev/sandbox/yearOfLoans.ts): three hundred borrowers with one
 * or two loans each, monthly installments (some paid late), margin calls that come and go, extra
 * collateral, loans that end and new ones. Every day the watch polls each borrower (Contract → Get
 * New Events' pure core: the contracts as the API lists them → the events that stand → what is new
 * against the memory stored the day before) and delivers what is new. Each poll must tell exactly
 * what changed since the one before, as the simulation itself knows it, and the memory must stay
 * one 11-character entry per event that stands. Bench scenario 10 runs the same over 50,000.
 */
import type { IDataObject } from 'n8n-workflow';

import { simulateYear, SIMULATION_START, watchYear } from '../../dev/sandbox/yearOfLoans';
import { currentEvents, EVENT_NAMES } from '../../nodes/LendasatBorrower/resources/contract/events';
import { findNews, readReported } from '../../nodes/LendasatBorrower/resources/contract/reported';

/** An event as the simulation names what is news (newsBetween). */
function described(event: IDataObject): string {
	if (event.event === 'contractStatusChanged') return `${event.contract_id}:status:${event.status}`;
	if (event.event === 'marginCall')
		return `${event.contract_id}:marginCall:${event.liquidation_status}`;
	return `${event.contract_id}:${event.installment_id}:${event.late ? 'late' : 'due'}`;
}

test('a year of daily polls over 300 borrowers: every poll tells exactly what changed, once, and the memory stays one entry per standing event', () => {
	const memoryBeyondStanding: string[] = [];
	const year = watchYear(
		simulateYear({ borrowers: 300, start: SIMULATION_START }),
		(borrower, contracts, now, stored) => {
			const { events, unreadable, malformed } = currentEvents(contracts as IDataObject[], {
				events: EVENT_NAMES,
				statuses: [],
				daysAhead: 3,
				now,
				borrower: borrower.id,
				shape: (contract) => ({
					status: contract.status,
					liquidation_status: contract.liquidation_status,
				}),
			});
			if (unreadable.length || malformed.length) return { told: ['unreadable'], stored };
			const finding = findNews(events, readReported(stored), {
				now,
				claimant: 'poll',
				recordFirstPoll: false,
			});
			const next = finding.kind === 'changed' ? finding.reported : stored;
			// Exactly one entry per event that stands now: nothing of what ended is kept.
			if ((next ?? '').length !== '1:'.length + 11 * events.length)
				memoryBeyondStanding.push(`${borrower.id}: ${next} for ${events.length} events`);
			return { told: finding.kind === 'changed' ? finding.news.map(described) : [], stored: next };
		},
	);
	expect(year.firstMismatch).toBeUndefined();
	expect(year.mismatches).toBe(0);
	expect(memoryBeyondStanding.slice(0, 3)).toEqual([]);
	expect(year.told).toBeGreaterThan(2_500);
	expect(year.maxLength).toBeLessThanOrEqual(2 + 11 * 8);
});
