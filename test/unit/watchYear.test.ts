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

import {
	contractsAt,
	factsAt,
	newsBetween,
	simulateYear,
	SIMULATION_START,
	type LoanFacts,
} from '../../dev/sandbox/yearOfLoans';
import { currentEvents, EVENT_NAMES } from '../../nodes/LendasatBorrower/resources/contract/events';
import { findNews, readReported } from '../../nodes/LendasatBorrower/resources/contract/reported';

const DAY = 24 * 60 * 60_000;
const DAYS_AHEAD = 3;

/** An event as the simulation names what is news (newsBetween). */
function described(event: IDataObject): string {
	if (event.event === 'contractStatusChanged') return `${event.contract_id}:status:${event.status}`;
	if (event.event === 'marginCall')
		return `${event.contract_id}:marginCall:${event.liquidation_status}`;
	return `${event.contract_id}:${event.installment_id}:${event.late ? 'late' : 'due'}`;
}

test('a year of daily polls over 300 borrowers: every poll tells exactly what changed, once, and the memory stays one entry per standing event', () => {
	const borrowers = simulateYear({ borrowers: 300, start: SIMULATION_START });
	const memory = new Map<string, string | null>();
	const facts = new Map<string, Map<string, LoanFacts>>();
	let told = 0;
	let largest = 0;
	const mismatches: string[] = [];
	for (let day = 0; day < 365; day++) {
		const now = SIMULATION_START + day * DAY;
		for (const borrower of borrowers) {
			const { events, unreadable, malformed } = currentEvents(
				contractsAt(borrower, now) as IDataObject[],
				{
					events: EVENT_NAMES,
					statuses: [],
					daysAhead: DAYS_AHEAD,
					now,
					borrower: borrower.id,
					shape: (contract) => ({
						status: contract.status,
						liquidation_status: contract.liquidation_status,
					}),
				},
			);
			if (unreadable.length || malformed.length)
				mismatches.push(`day ${day}, ${borrower.id}: unreadable`);
			const finding = findNews(events, readReported(memory.get(borrower.id) ?? null), {
				now,
				claimant: 'poll',
				recordFirstPoll: false,
			});
			const news = finding.kind === 'changed' ? finding.news.map(described).sort() : [];
			const known = factsAt(borrower, now, DAYS_AHEAD);
			const expected = newsBetween(facts.get(borrower.id) ?? null, known).sort();
			if (JSON.stringify(news) !== JSON.stringify(expected))
				mismatches.push(
					`day ${day}, ${borrower.id}: told ${news.join(' ')}; changed ${expected.join(' ')}`,
				);
			facts.set(borrower.id, known);
			if (finding.kind === 'changed') memory.set(borrower.id, finding.reported);
			told += news.length;
			const stored = memory.get(borrower.id) ?? '';
			// Exactly one entry per event that stands now: nothing of what ended is kept.
			if (stored.length !== '1:'.length + 11 * events.length)
				mismatches.push(
					`day ${day}, ${borrower.id}: ${stored.length} characters for ${events.length} events`,
				);
			largest = Math.max(largest, stored.length);
		}
	}
	expect(mismatches.slice(0, 5)).toEqual([]);
	expect(told).toBeGreaterThan(2_500);
	expect(largest).toBeLessThanOrEqual(2 + 11 * 8);
});
