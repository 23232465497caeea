/**
 * Scenario 10: the partner watch's memory over a simulated year (dev/sandbox/yearOfLoans.ts, its
 * watchYear driver): every borrower polled every day by Contract → Get New Events' pure core (the
 * contracts as the API lists them → the events that stand → what is new against the memory stored the
 * day before), everything new delivered and the memory stored; each poll checked against what the
 * simulation itself says changed. Reports the polls that told something else (must be 0), the events
 * told, the memory per borrower (mean and largest length, and all rows together) and the CPU time.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	simulateYear,
	SIMULATION_START,
	watchYear,
	type YearOfWatching,
} from '../../sandbox/yearOfLoans';
import {
	currentEvents,
	EVENT_NAMES,
} from '../../../nodes/LendasatBorrower/resources/contract/events';
import {
	findNews,
	readReported,
} from '../../../nodes/LendasatBorrower/resources/contract/reported';

/** An event as the simulation names what is news. */
function described(event: IDataObject): string {
	if (event.event === 'contractStatusChanged') return `${event.contract_id}:status:${event.status}`;
	if (event.event === 'marginCall')
		return `${event.contract_id}:marginCall:${event.liquidation_status}`;
	return `${event.contract_id}:${event.installment_id}:${event.late ? 'late' : 'due'}`;
}

export function watchSimulatedYear(borrowers: number): YearOfWatching & { cpuMs: number } {
	const simulated = simulateYear({ borrowers, start: SIMULATION_START });
	const started = process.cpuUsage();
	const year = watchYear(simulated, (borrower, contracts, now, stored) => {
		const { events } = currentEvents(contracts as IDataObject[], {
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
		const finding = findNews(events, readReported(stored), {
			now,
			claimant: 'poll',
			recordFirstPoll: false,
		});
		return finding.kind === 'changed'
			? { told: finding.news.map(described), stored: finding.reported }
			: { told: [], stored };
	});
	const cpu = process.cpuUsage(started);
	return { ...year, cpuMs: (cpu.user + cpu.system) / 1000 };
}

if (require.main === module) {
	const result = watchSimulatedYear(Number(process.argv[2] ?? 50_000));
	process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
