/**
 * Scenario 10: the partner watch's memory over a simulated year (dev/sandbox/yearOfLoans.ts). Every
 * borrower is polled every day by Contract → Get New Events' pure core (the contracts as the API lists
 * them → the events that stand → what is new against the memory stored the day before), everything
 * new is delivered and the memory stored. Each poll is checked against what the simulation itself
 * says changed. Reports the polls that told something other than what changed (must be 0), the events
 * told, and the memory per borrower: its average and largest size, and the table's total.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	contractsAt,
	factsAt,
	newsBetween,
	simulateYear,
	SIMULATION_START,
	type LoanFacts,
} from '../../sandbox/yearOfLoans';
import {
	currentEvents,
	EVENT_NAMES,
} from '../../../nodes/LendasatBorrower/resources/contract/events';
import {
	findNews,
	readReported,
} from '../../../nodes/LendasatBorrower/resources/contract/reported';

const DAY = 24 * 60 * 60_000;
const DAYS_AHEAD = 3;

export interface WatchYearResult {
	borrowers: number;
	polls: number;
	/** Borrower-polls whose news differed from what changed. */
	mismatches: number;
	firstMismatch?: string;
	told: number;
	/** `reported` per borrower over every day: the mean, the largest, and all rows together at the end. */
	meanBytes: number;
	maxBytes: number;
	finalTotalBytes: number;
	/** Largest total of all rows on any day. */
	peakTotalBytes: number;
	cpuMs: number;
}

function described(event: IDataObject): string {
	if (event.event === 'contractStatusChanged') return `${event.contract_id}:status:${event.status}`;
	if (event.event === 'marginCall')
		return `${event.contract_id}:marginCall:${event.liquidation_status}`;
	return `${event.contract_id}:${event.installment_id}:${event.late ? 'late' : 'due'}`;
}

export function watchYear(borrowerCount: number, days = 365): WatchYearResult {
	const borrowers = simulateYear({ borrowers: borrowerCount, start: SIMULATION_START });
	const memory = new Map<string, string>();
	const facts = new Map<string, Map<string, LoanFacts>>();
	const shape = (contract: IDataObject) => ({
		status: contract.status,
		liquidation_status: contract.liquidation_status,
	});
	const result: WatchYearResult = {
		borrowers: borrowerCount,
		polls: days,
		mismatches: 0,
		told: 0,
		meanBytes: 0,
		maxBytes: 0,
		finalTotalBytes: 0,
		peakTotalBytes: 0,
		cpuMs: 0,
	};
	const started = process.cpuUsage();
	let bytesSum = 0;
	for (let day = 0; day < days; day++) {
		const now = SIMULATION_START + day * DAY;
		let total = 0;
		for (const borrower of borrowers) {
			const read = currentEvents(contractsAt(borrower, now) as IDataObject[], {
				events: EVENT_NAMES,
				statuses: [],
				daysAhead: DAYS_AHEAD,
				now,
				borrower: borrower.id,
				shape,
			});
			const finding = findNews(read.events, readReported(memory.get(borrower.id) ?? null), {
				now,
				claimant: 'poll',
				recordFirstPoll: false,
			});
			const told = finding.kind === 'changed' ? finding.news.map(described).sort() : [];
			const known = factsAt(borrower, now, DAYS_AHEAD);
			const expected = newsBetween(facts.get(borrower.id) ?? null, known).sort();
			facts.set(borrower.id, known);
			if (
				read.unreadable.length + read.malformed.length > 0 ||
				told.join(' ') !== expected.join(' ')
			) {
				result.mismatches++;
				result.firstMismatch ??= `day ${day}, ${borrower.id}: told [${told.join(' ')}], changed [${expected.join(' ')}]`;
			}
			if (finding.kind === 'changed') memory.set(borrower.id, finding.reported);
			result.told += told.length;
			const bytes = (memory.get(borrower.id) ?? '').length;
			total += bytes;
			bytesSum += bytes;
			result.maxBytes = Math.max(result.maxBytes, bytes);
		}
		result.peakTotalBytes = Math.max(result.peakTotalBytes, total);
		result.finalTotalBytes = total;
	}
	const cpu = process.cpuUsage(started);
	result.cpuMs = (cpu.user + cpu.system) / 1000;
	result.meanBytes = bytesSum / (borrowerCount * days);
	return result;
}

if (require.main === module) {
	const count = Number(process.argv[2] ?? 50_000);
	const result = watchYear(count);
	process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
