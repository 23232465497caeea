/**
 * A year of loans for many borrowers, as Lendasat's contract list would show them at any moment:
 * for the partner watch's simulation (test/unit/watchYear.test.ts over a thousand borrowers, bench
 * scenario 10 over fifty thousand). Each borrower takes one or two loans of 6 to 12 months with
 * monthly installments, some paid late; some loans go through margin calls (first, sometimes
 * second, then Healthy again, often after extra collateral); loans end (repaid, confirmed, closed)
 * and a borrower may take another. Everything is drawn from a seeded generator, so a run is the
 * same every time.
 *
 * Two views of the same year: `contractsAt` gives the contracts as the API would list them at a
 * moment (the shape of hub 49781f87's Contract: status, liquidation_status, updated_at, timeline with
 * extra funding as further CollateralConfirmed entries and installment payments, installments); and
 * `factsAt` gives what a watcher should notice at that moment, straight from the simulation, so that
 * a check of the watch does not read the contracts the way the watch itself does.
 */
import { createPrng } from './ids';

const DAY = 24 * 60 * 60_000;
const HOUR = 60 * 60_000;

/** The statuses a loan of the simulation goes through, with when it entered each. */
interface Stay {
	status: string;
	at: number;
}

interface SimulatedInstallment {
	id: string;
	due: number;
	dueDate: string;
	paidDate: string;
	/** When it was paid; Infinity for never within the simulation. */
	paidAt: number;
	principal: number;
	interest: number;
}

/** A margin call: First from `from`, Second from `second` (when it got that far), Healthy again at `to`. */
interface MarginEpisode {
	from: number;
	second: number | null;
	to: number;
}

export interface SimulatedLoan {
	id: string;
	stays: Stay[];
	/** Every timeline entry the loan will have, oldest first, each with when it appears. */
	timeline: { at: number; entry: Record<string, unknown> }[];
	/** When anything about the loan changed (what updated_at shows), oldest first. */
	changes: number[];
	installments: SimulatedInstallment[];
	episodes: MarginEpisode[];
	/** Collateral added after the first funding (each becomes a CollateralConfirmed timeline entry). */
	fundings: number[];
	createdAt: number;
}

export interface SimulatedBorrower {
	id: string;
	loans: SimulatedLoan[];
}

export interface YearOptions {
	borrowers: number;
	/** The first poll of the year, in ms. */
	start: number;
	seed?: string;
}

/** When the simulated year starts: loans may have begun up to a year before. */
export const SIMULATION_START = Date.parse('2027-01-01T06:00:00Z');

export function simulateYear(options: YearOptions): SimulatedBorrower[] {
	const random = createPrng(options.seed ?? 'a year of loans');
	const between = (low: number, high: number) => low + random() * (high - low);
	const borrowers: SimulatedBorrower[] = [];
	for (let index = 0; index < options.borrowers; index++) {
		const id = `b-${index + 1}`;
		const loans: SimulatedLoan[] = [];
		// A first loan that began up to ten months before the year, or during its first half.
		let begins = options.start + between(-300, 180) * DAY;
		const count = random() < 0.5 ? 1 : 2;
		for (let number = 0; number < count; number++) {
			const loan = simulateLoan(`${id}-l${number + 1}`, begins, random, between);
			loans.push(loan);
			// The next one after the first ended, or while it runs.
			const ended = loan.stays[loan.stays.length - 1].at;
			begins = random() < 0.7 ? ended + between(5, 60) * DAY : begins + between(20, 90) * DAY;
		}
		borrowers.push({ id, loans });
	}
	return borrowers;
}

function simulateLoan(
	id: string,
	requestedAt: number,
	random: () => number,
	between: (low: number, high: number) => number,
): SimulatedLoan {
	const months = 6 + Math.floor(random() * 7);
	const paidOut = requestedAt + between(1, 3) * DAY;
	const stays: Stay[] = [
		{ status: 'Requested', at: requestedAt },
		{ status: 'Approved', at: requestedAt + between(1, 6) * HOUR },
		{ status: 'CollateralSeen', at: paidOut - between(14, 20) * HOUR },
		{ status: 'CollateralConfirmed', at: paidOut - between(2, 12) * HOUR },
		{ status: 'PrincipalGiven', at: paidOut },
	];
	const installments: SimulatedInstallment[] = [];
	for (let month = 1; month <= months; month++) {
		const due = paidOut + month * 30 * DAY;
		// Most are paid up to ten days early; one in six up to eight days late.
		const paidAt = random() < 1 / 6 ? due + between(0.5, 8) * DAY : due - between(0, 10) * DAY;
		installments.push({
			id: `${id}-i${month}`,
			due,
			dueDate: iso(due),
			paidDate: iso(paidAt),
			paidAt,
			principal: month === months ? 1000 : 0,
			interest: 12.5,
		});
	}
	const lastPaid = Math.max(...installments.map((installment) => installment.paidAt));
	stays.push(
		{ status: 'RepaymentProvided', at: lastPaid },
		{ status: 'RepaymentConfirmed', at: lastPaid + between(2, 20) * HOUR },
		{ status: 'Closed', at: lastPaid + between(1, 3) * DAY },
	);
	const episodes: MarginEpisode[] = [];
	const fundings: number[] = [];
	if (random() < 0.3) {
		// Up to three margin calls while the loan is out, each days long, with days of Healthy between.
		let from = paidOut + between(10, 60) * DAY;
		for (let count = Math.ceil(random() * 3); count > 0 && from < lastPaid - 10 * DAY; count--) {
			const second = random() < 0.4 ? from + between(2, 4) * DAY : null;
			const to = (second ?? from) + between(2, 6) * DAY;
			episodes.push({ from, second, to });
			if (random() < 0.6) fundings.push(to - between(1, 12) * HOUR);
			from = to + between(3, 40) * DAY;
		}
	}
	if (random() < 0.1) fundings.push(paidOut + between(5, 100) * DAY);
	fundings.sort((a, b) => a - b);
	const timeline = [
		...stays.map((stay) => ({
			at: stay.at,
			entry: {
				date: iso(stay.at),
				txid: null,
				event: { type: 'contract_status_change', status: stay.status },
			},
		})),
		...fundings.map((funding, index) => ({
			at: funding,
			entry: {
				date: iso(funding),
				txid: `${id}-funding-${index + 1}`,
				event: { type: 'contract_status_change', status: 'CollateralConfirmed' },
			},
		})),
		...installments.map((installment) => ({
			at: installment.paidAt,
			entry: {
				date: iso(installment.paidAt),
				txid: `${installment.id}-payment`,
				event: { type: 'installment_payment', installment_id: installment.id, is_confirmed: true },
			},
		})),
	].sort((a, b) => a.at - b.at);
	const changes = [
		...stays.map((stay) => stay.at),
		...fundings,
		...episodes.flatMap((episode) => [episode.from, episode.second ?? episode.from, episode.to]),
	].sort((a, b) => a - b);
	return { id, stays, timeline, changes, installments, episodes, fundings, createdAt: requestedAt };
}

/** The status a loan is in at `t`, and when it entered it; null before it was requested. */
function stayAt(loan: SimulatedLoan, t: number): Stay | null {
	let current: Stay | null = null;
	for (const stay of loan.stays) if (stay.at <= t) current = stay;
	return current;
}

function levelAt(
	loan: SimulatedLoan,
	t: number,
): 'Healthy' | 'FirstMarginCall' | 'SecondMarginCall' {
	for (const episode of loan.episodes) {
		if (t < episode.from || t >= episode.to) continue;
		return episode.second !== null && t >= episode.second ? 'SecondMarginCall' : 'FirstMarginCall';
	}
	return 'Healthy';
}

/** A moment as Lendasat writes it. */
function iso(t: number): string {
	return new Date(t).toISOString();
}

/** The borrower's contracts as GET /api/contracts lists them at `t`, newest first. */
export function contractsAt(borrower: SimulatedBorrower, t: number): Record<string, unknown>[] {
	const contracts: Record<string, unknown>[] = [];
	for (let index = borrower.loans.length - 1; index >= 0; index--) {
		const loan = borrower.loans[index];
		const stay = stayAt(loan, t);
		if (!stay) continue;
		const paidOut = loan.stays[4].at;
		let updatedAt = loan.createdAt;
		for (const change of loan.changes) if (change <= t) updatedAt = change;
		contracts.push({
			id: loan.id,
			status: stay.status,
			liquidation_status: stay.status === 'PrincipalGiven' ? levelAt(loan, t) : 'Healthy',
			created_at: iso(loan.createdAt),
			updated_at: iso(updatedAt),
			loan_asset: 'UsdcPol',
			loan_type: 'StableCoin',
			loan_repayment_address: `0x${loan.id}`,
			btc_loan_repayment_address: null,
			timeline: loan.timeline.filter(({ at }) => at <= t).map(({ entry }) => entry),
			installments: loan.installments.map((installment) => {
				const paid = installment.paidAt <= t;
				const late = !paid && t > installment.due && t >= paidOut;
				return {
					id: installment.id,
					principal: installment.principal,
					interest: installment.interest,
					due_date: installment.dueDate,
					status: paid ? 'confirmed' : late ? 'late' : 'pending',
					paid_date: paid ? installment.paidDate : null,
				};
			}),
		});
	}
	return contracts;
}

/** What there is to notice about a loan at a moment, as the simulation knows it. */
export interface LoanFacts {
	status: string;
	/** The status ended more than 30 days ago: nothing of the loan is shown any more. */
	gone: boolean;
	marginCall: 'FirstMarginCall' | 'SecondMarginCall' | null;
	/** Open installments due within `daysAhead`, and whether each is late. */
	due: Map<string, boolean>;
}

const FINAL = new Set(['Closed']);

/** Every loan's facts at `t`, by loan ID, for loans that exist then. */
export function factsAt(
	borrower: SimulatedBorrower,
	t: number,
	daysAhead: number,
): Map<string, LoanFacts> {
	const facts = new Map<string, LoanFacts>();
	for (const loan of borrower.loans) {
		const stay = stayAt(loan, t);
		if (!stay) continue;
		const gone = FINAL.has(stay.status) && stay.at < t - 30 * DAY;
		const level = stay.status === 'PrincipalGiven' ? levelAt(loan, t) : 'Healthy';
		const due = new Map<string, boolean>();
		if (stay.status === 'PrincipalGiven') {
			for (const installment of loan.installments) {
				if (installment.paidAt <= t || installment.due > t + daysAhead * DAY) continue;
				due.set(installment.id, t > installment.due);
			}
		}
		facts.set(loan.id, {
			status: stay.status,
			gone,
			marginCall: level === 'Healthy' ? null : level,
			due,
		});
	}
	return facts;
}

/**
 * What is news at this poll given the facts at the poll before (none for the first): each a short
 * description, `<loan>:status:<status>`, `<loan>:marginCall:<level>`, `<loan>:<installment>:due` or
 * `…:late`. A status is news when it differs from the last poll's, a margin call when the last poll
 * saw another level or none, an installment when it came into the window or became late.
 */
export function newsBetween(
	before: Map<string, LoanFacts> | null,
	now: Map<string, LoanFacts>,
): string[] {
	const news: string[] = [];
	for (const [loan, facts] of now) {
		if (facts.gone) continue;
		const previous = before?.get(loan);
		if (previous?.status !== facts.status) news.push(`${loan}:status:${facts.status}`);
		if (facts.marginCall && previous?.marginCall !== facts.marginCall)
			news.push(`${loan}:marginCall:${facts.marginCall}`);
		for (const [installment, late] of facts.due) {
			const was = previous?.due.get(installment);
			if (was === undefined) news.push(`${loan}:${installment}:${late ? 'late' : 'due'}`);
			else if (late && !was) news.push(`${loan}:${installment}:late`);
		}
	}
	return news;
}

/** One poll of one borrower by the watch under test: what it told, and the memory it stored. */
export type WatchPoll = (
	borrower: SimulatedBorrower,
	contracts: Record<string, unknown>[],
	now: number,
	stored: string | null,
) => { told: string[]; stored: string | null };

export interface YearOfWatching {
	borrowers: number;
	days: number;
	/** Borrower-polls whose news differed from what changed, and the first of them. */
	mismatches: number;
	firstMismatch?: string;
	/** Events told in the year. */
	told: number;
	/** The memory per borrower over every poll: its mean and largest length; all rows together, at most. */
	meanLength: number;
	maxLength: number;
	peakTotalLength: number;
}

/**
 * A year of daily polls (at SIMULATION_START + n days) of every borrower by `poll`, each checked
 * against what the simulation says changed since the poll before (newsBetween), the memory each
 * poll stored handed to the next.
 */
export function watchYear(
	borrowers: SimulatedBorrower[],
	poll: WatchPoll,
	options: { days?: number; daysAhead?: number } = {},
): YearOfWatching {
	const { days = 365, daysAhead = 3 } = options;
	const stored = new Map<string, string | null>();
	const facts = new Map<string, Map<string, LoanFacts>>();
	const result: YearOfWatching = {
		borrowers: borrowers.length,
		days,
		mismatches: 0,
		told: 0,
		meanLength: 0,
		maxLength: 0,
		peakTotalLength: 0,
	};
	let lengths = 0;
	for (let day = 0; day < days; day++) {
		const now = SIMULATION_START + day * DAY;
		let total = 0;
		for (const borrower of borrowers) {
			const polled = poll(
				borrower,
				contractsAt(borrower, now),
				now,
				stored.get(borrower.id) ?? null,
			);
			const known = factsAt(borrower, now, daysAhead);
			const expected = newsBetween(facts.get(borrower.id) ?? null, known).sort();
			const told = [...polled.told].sort();
			if (told.join(' ') !== expected.join(' ')) {
				result.mismatches++;
				result.firstMismatch ??= `day ${day}, ${borrower.id}: told [${told.join(' ')}], changed [${expected.join(' ')}]`;
			}
			facts.set(borrower.id, known);
			stored.set(borrower.id, polled.stored);
			result.told += told.length;
			const length = polled.stored?.length ?? 0;
			total += length;
			lengths += length;
			result.maxLength = Math.max(result.maxLength, length);
		}
		result.peakTotalLength = Math.max(result.peakTotalLength, total);
	}
	result.meanLength = lengths / (borrowers.length * days);
	return result;
}
