import { sleep } from 'n8n-workflow';

/**
 * How much slower than its budget the gate paces (2.5 %): at 10 requests per second, a request may
 * arrive 25 ms later than the one ten places behind it before a server's 1-second window takes one
 * too many.
 */
export const MARGIN = 0.025;
/** Before the first 429: requests in flight at first, one more per success (slow start). */
export const INITIAL_WINDOW = 4;
/**
 * Nothing got through at first, for less than this long (other processes fill the key's windows):
 * the rate climbs from one request per second, doubling every `SLOW_START_DOUBLING_MS`. After a
 * longer storm the gate starts afresh, as before its first 429.
 */
export const LONG_STORM_MS = 5_000;
export const SLOW_START_DOUBLING_MS = 500;
/** A 429 this soon after the pacing resumed: the budget was far too high, learn it again. */
export const QUICK_MS = 2_000;
/** After the first budget is learned, it holds this long before probing one request per second more… */
export const HOLD_INITIAL_MS = 90_000;
/** …each 429 that answers a probe of its own doubles the hold, up to this… */
export const HOLD_MAX_MS = 120_000;
/** …and after a 429 met while holding (another process took more: the key is shared), this long. */
export const HOLD_MIN_MS = 20_000;
/** A 429 met while holding keeps the holds at `HOLD_MIN_MS` for this long. */
export const CONTENDED_MS = 30_000;
/** A 429 within this long after a probe answers that probe. */
export const PROBE_ANSWER_MS = 3_000;
/**
 * A probe no 429 answered found room: the next follows after this long (doubling with each one
 * while the key is shared, so that a process does not take over what another one gave up).
 */
export const PROBE_STEP_MS = 3_000;

/** Proof of a place in the gate's queue, given back with the answer it led to. */
export interface GateTicket {
	/** The pacing the request was sent under. */
	pacing: number;
}

/** What the gate reads the time from, waits with and draws its jitter from; injectable for tests. */
export interface GateEnvironment {
	now: () => number;
	sleep: (ms: number) => Promise<void>;
	random: () => number;
}

/** After this long without traffic a gate's learned pace is stale, and an unused gate may go. */
const IDLE_FORGET_MS = 60_000;
/** After this long with nothing in flight, an unpaced burst starts with the initial window again. */
const WINDOW_IDLE_MS = 1_000;
/** How long successes are remembered. */
const SUCCESSES_KEPT_MS = 5_000;

/** One request per second more; two per cent more for a budget above 100 per second. */
function higher(budget: number): number {
	return budget + Math.max(1, Math.floor(budget / 50));
}

/** One request per second less (two per cent above 100), never below one. */
function lower(budget: number): number {
	return Math.max(1, budget - Math.max(1, Math.floor(budget / 50)));
}

interface ConnectionWaiter {
	cap: number;
	take: () => void;
}

interface TurnWaiter {
	deadline: number;
	resolve: (ticket: GateTicket | undefined) => void;
}

/**
 * Paces the requests of one API key across every item, execution and workflow of this n8n process.
 *
 * n8n fires all items of a declarative node at once, so a thousand items against a rate-limited
 * API would mostly come back 429 and retry in herds. Each process paces on its own (n8n's queue-mode
 * workers share no memory, and the package has no store), and finds its share when processes share
 * a key:
 *
 * - Until the first 429 it sends unpaced: `INITIAL_WINDOW` requests in flight at first, one more per
 *   success. The first 429 teaches a **budget**: the requests per second the server accepted in the
 *   last second. The gate paces `MARGIN` below it, evenly spaced, so a server counting in windows
 *   sees at most the budget in any one of them.
 * - Every 429 pauses every request of the key for its Retry-After. The first request after a pause
 *   starts up to one spacing late at random, so that processes paused together do not resume in
 *   lockstep.
 * - After a 429 the budget holds, then probes: one request per second more. A probe that meets a 429
 *   is taken back; one that does not found room, and bigger steps follow soon (a process sharing
 *   the key finished, or the limit was raised). A process alone meets each 429 with a probe of its
 *   own, and probes more rarely (the hold doubles). A 429 met while holding means another process
 *   took more: the budget drops by one, and holds stay short while that goes on. A process with the
 *   larger budget sends more of the requests a full window refuses, so it gives up more often.
 * - A 429 soon after resuming (the budget was far too high, e.g. learned while others had not
 *   started yet) sets the budget to what got through since resuming.
 * - A 429 when nothing got through lately teaches nothing (the server refuses everything for now):
 *   it only pauses, and the pacing goes on where it was when the storm is over. Without a budget,
 *   one request per second asks; when one gets through, a short refusal (other processes fill the
 *   key's windows) leads to a slow start from one request per second, a long storm to a fresh start.
 */
export class RateGate {
	private readonly env: GateEnvironment;

	/** Earliest time the next request may start. */
	private nextStartAt = 0;

	/** Requests per second this process allows itself; 0 = unpaced, until the first 429. */
	private budget = 0;

	/** Without a budget: the slow start's rate (0 = unpaced), and since when nothing got through. */
	private slowStart = 0;
	private refusedSince = Infinity;
	private lastClimbAt = 0;

	private pausedUntil = 0;

	/** Changes with every wave of 429s: answers to requests sent before it belong to that wave. */
	private pacing = 0;

	/** Until when the first wave may still refine the first budget (its pause). */
	private learningUntil = 0;

	/** When the answers of the last `SUCCESSES_KEPT_MS` succeeded. */
	private successes: number[] = [];
	private succeededSinceRefusal = false;

	/** When the pacing resumed after the last pause. */
	private resumedAt = 0;

	/** How long the budget holds after a 429, until when it holds now, and the probing's state. */
	private hold = HOLD_INITIAL_MS;
	private holdUntil = 0;
	private probedAt = -Infinity;
	private probesFindingRoom = 0;
	private beforeProbe = 0;
	private lastContendedAt = -Infinity;

	private lastUsedAt = 0;

	/** Unpaced: how many requests may be in flight (slow start). */
	private window = INITIAL_WINDOW;

	/** Requests holding one of the connections, and those waiting for one, first come first served. */
	private active = 0;
	private readonly waitingForConnection: ConnectionWaiter[] = [];

	/** Requests holding a connection that wait for their turn, first come first served. */
	private readonly turnQueue: TurnWaiter[] = [];
	private dispatching = false;

	/** When the gate was made: a gate not used yet is not idle. */
	private readonly madeAt: number;

	constructor(environment: Partial<GateEnvironment> = {}) {
		this.env = { now: Date.now, sleep, random: Math.random, ...environment };
		this.madeAt = this.env.now();
	}

	/**
	 * Waits for one of at most `maxConcurrent` connections of this key, then for this request's turn
	 * under the current pacing. Every acquire is followed by one `release` once the answer is in.
	 */
	async acquire(maxConcurrent = Infinity, deadline = Infinity): Promise<GateTicket | undefined> {
		this.restartWindowIfQuiet(this.env.now());
		if (this.waitingForConnection.length === 0 && this.active < this.capFor(maxConcurrent))
			this.active++;
		else if (!(await this.waitForConnection(maxConcurrent, deadline))) return undefined;
		const ticket = await this.waitForTurn(deadline);
		if (!ticket) this.release();
		return ticket;
	}

	/** The connections a request may count on: the caller's cap, and unpaced the slow start's window. */
	private capFor(maxConcurrent: number): number {
		return this.budget || this.slowStart ? maxConcurrent : Math.min(maxConcurrent, this.window);
	}

	/**
	 * Waits for a connection another request gives back: true once it has one, false when `deadline`
	 * (n8n's clock) comes first. The deadline's timer does not keep the process alive.
	 */
	private async waitForConnection(cap: number, deadline: number): Promise<boolean> {
		return await new Promise<boolean>((resolve) => {
			const waiter = { cap, take: () => resolve(true) };
			this.waitingForConnection.push(waiter);
			if (deadline === Infinity) return;
			const expiry = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
			expiry.addEventListener(
				'abort',
				() => {
					const index = this.waitingForConnection.indexOf(waiter);
					if (index < 0) return; // it was given a connection meanwhile
					this.waitingForConnection.splice(index, 1);
					resolve(false);
					this.handOverConnections();
				},
				{ once: true },
			);
		});
	}

	/** Gives the connection back: the next waiting requests take what is free. */
	release(): void {
		this.active = Math.max(0, this.active - 1);
		this.lastUsedAt = Math.max(this.lastUsedAt, this.env.now());
		this.handOverConnections();
	}

	private handOverConnections(): void {
		for (;;) {
			const next = this.waitingForConnection[0];
			if (!next || this.active >= this.capFor(next.cap)) return;
			this.waitingForConnection.shift();
			this.active++;
			next.take();
		}
	}

	/** Requests holding a connection right now, for tests and diagnostics. */
	get inFlight(): number {
		return this.active;
	}

	/** Nothing in flight or waiting, no pause pending, and unused for longer than it remembers a pace. */
	isForgettable(now: number): boolean {
		return (
			this.active === 0 &&
			this.waitingForConnection.length === 0 &&
			now >= this.pausedUntil &&
			now >= this.nextStartAt &&
			now - Math.max(this.lastUsedAt, this.madeAt) > IDLE_FORGET_MS
		);
	}

	/** The request's turn, or undefined when it would come after `deadline` (no turn is taken then). */
	private async waitForTurn(deadline: number): Promise<GateTicket | undefined> {
		this.forgetIfIdle(this.env.now());
		if (this.turnOf(this.turnQueue.length) >= deadline) return undefined;
		return await new Promise<GateTicket | undefined>((resolve) => {
			this.turnQueue.push({ deadline, resolve });
			void this.dispatch();
		});
	}

	/** When the request at `position` of the queue would start, at the current pace. */
	private turnOf(position: number): number {
		const first = Math.max(this.env.now(), this.nextStartAt, this.pausedUntil);
		return first + position * this.spacingMs;
	}

	/**
	 * Lets the queued requests go one by one, each at the pace of the moment: a pace that changes
	 * (a pause, a lower or higher budget) applies to every request still waiting.
	 */
	private async dispatch(): Promise<void> {
		if (this.dispatching) return;
		this.dispatching = true;
		try {
			while (this.turnQueue.length) {
				this.dropPastDeadline();
				const now = this.env.now();
				const start = Math.max(now, this.nextStartAt, this.pausedUntil);
				if (start > now) {
					await this.env.sleep(start - now);
					continue;
				}
				const next = this.turnQueue.shift();
				if (!next) break;
				// Counted from when this turn was due, not from when the timer woke up (timers run late):
				// the pace stays the budget's. After a quiet spell, from now.
				const due = Math.max(this.nextStartAt, this.pausedUntil);
				this.nextStartAt = (now - due < this.spacingMs ? due : now) + this.spacingMs;
				this.lastUsedAt = now;
				next.resolve({ pacing: this.pacing });
			}
		} finally {
			this.dispatching = false;
		}
	}

	/** Requests whose turn now lies beyond their deadline get none (they give up at once). */
	private dropPastDeadline(): void {
		let position = 0;
		for (const waiter of [...this.turnQueue]) {
			if (this.turnOf(position) < waiter.deadline) {
				position++;
				continue;
			}
			this.turnQueue.splice(position, 1);
			waiter.resolve(undefined);
		}
	}

	/** An answer that was not a 429. */
	recordSuccess(): void {
		const now = this.env.now();
		this.successes.push(now);
		this.dropOldSuccesses(now);
		this.succeededSinceRefusal = true;
		if (!this.budget && now - this.refusedSince >= LONG_STORM_MS) this.slowStart = 0;
		this.refusedSince = Infinity;
		// A success during the pause of the first 429 answers a request of the burst that led to it,
		// read after that 429 (answers of one burst come back in any order): count it too.
		if (now < this.learningUntil) {
			this.learn(now);
			return;
		}
		if (this.slowStart) {
			this.climb(now);
			return;
		}
		if (!this.budget) {
			this.window++;
			this.handOverConnections();
			return;
		}
		this.probe(now);
	}

	/**
	 * A 429 for a request sent with `ticket`: everyone pauses for `pauseMs` (the server's
	 * Retry-After), and the first 429 of each wave adjusts the budget.
	 */
	recordRateLimited(ticket: GateTicket, pauseMs: number): void {
		const now = this.env.now();
		this.dropOldSuccesses(now);
		this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
		if (ticket.pacing !== this.pacing) {
			// Another 429 of the same wave: it only pauses, or refines the first budget.
			if (now < this.learningUntil && this.acceptedWithin(1000, now)) this.learn(now);
			return;
		}
		// Nothing got through since the last 429, or lately (a gate used long ago starts afresh).
		const storm =
			!this.succeededSinceRefusal ||
			this.acceptedWithin(Math.max(1000, 2 * this.spacingMs), now) === 0;
		const quick = now - this.resumedAt < QUICK_MS;
		const sinceResuming = this.successes.filter((at) => at >= this.resumedAt).length;
		this.succeededSinceRefusal = false;
		this.resumedAt = this.pausedUntil;
		if (storm) {
			// The server refuses everything for now, which says nothing about its rate: the pacing
			// resumes where it was. Unpaced, one request per second finds out when it is over.
			this.refusedSince = Math.min(this.refusedSince, now);
			if (!this.budget) this.slowStart = 1;
			this.window = 1;
		} else if (!this.budget) {
			this.learningUntil = this.pausedUntil;
			this.learn(now);
		} else {
			this.adjust(now, quick ? Math.min(lower(this.budget), Math.max(1, sinceResuming)) : 0);
		}
		this.pacing += 1;
		this.nextStartAt = this.pausedUntil + this.env.random() * this.spacingMs;
		this.handOverConnections();
	}

	/**
	 * The first budget: what the server let through in the last second. A window that is full holds
	 * at least that many of our requests, so the budget is not below this process's share (it is
	 * above when the first burst straddled two of the server's windows, and the next 429 corrects it).
	 */
	private learn(now: number): void {
		this.budget = Math.max(1, this.acceptedWithin(1000, now));
		// Nothing got through at first (other processes already filled the key's windows): the key is
		// shared, and this budget is whatever was left; probe soon.
		if (this.slowStart) this.lastContendedAt = now;
		this.slowStart = 0;
		this.hold = now - this.lastContendedAt < CONTENDED_MS ? HOLD_MIN_MS : HOLD_INITIAL_MS;
		this.holdFor(this.hold);
	}

	/** A 429 while pacing: back from a probe, one less when it came while holding, or `relearned`. */
	private adjust(now: number, relearned: number): void {
		const answersProbe = now - this.probedAt < PROBE_ANSWER_MS;
		if (!answersProbe) this.lastContendedAt = now;
		this.budget = relearned || (answersProbe ? this.beforeProbe : lower(this.budget));
		const contended = now - this.lastContendedAt < CONTENDED_MS;
		this.hold = answersProbe && !contended ? Math.min(HOLD_MAX_MS, this.hold * 2) : HOLD_MIN_MS;
		this.holdFor(relearned ? PROBE_STEP_MS : this.hold);
		this.probedAt = -Infinity;
		this.probesFindingRoom = 0;
	}

	/** The slow start: the rate doubles every `SLOW_START_DOUBLING_MS`, never far ahead of what gets through. */
	private climb(now: number): void {
		const step = Math.min(1000, now - Math.max(this.lastClimbAt, this.resumedAt));
		this.lastClimbAt = now;
		if (step <= 0) return;
		const ceiling = 2 * this.acceptedWithin(1000, now) + 1;
		this.slowStart = Math.min(ceiling, this.slowStart * 2 ** (step / SLOW_START_DOUBLING_MS));
	}

	/** One request per second more once the hold is over, while requests are waiting for their turn. */
	private probe(now: number): void {
		if (now < this.holdUntil || this.turnQueue.length + this.waitingForConnection.length === 0)
			return;
		const contended = now - this.lastContendedAt < CONTENDED_MS;
		// Room found again and again (a process sharing the key finished, the limit was raised): the
		// steps grow. While the key is shared they stay single and come ever more slowly instead, so that
		// a process does not take over what another one gave up for a moment.
		const steps = contended ? 1 : 2 ** Math.min(this.probesFindingRoom, 4);
		this.beforeProbe = this.budget;
		for (let step = 0; step < steps; step++) this.budget = higher(this.budget);
		this.holdUntil = now + PROBE_STEP_MS * (contended ? 2 ** this.probesFindingRoom : 1);
		this.probedAt = now;
		this.probesFindingRoom++;
	}

	/** The budget holds for about `ms` after the pause (give or take a quarter, so that processes do not probe at once). */
	private holdFor(ms: number): void {
		this.holdUntil = this.pausedUntil + ms * (0.75 + 0.5 * this.env.random());
	}

	/** The current spacing between request starts (0 = unpaced), for tests and diagnostics. */
	get spacingMs(): number {
		if (this.budget) return 1000 / (this.budget * (1 - MARGIN));
		return this.slowStart ? 1000 / this.slowStart : 0;
	}

	/** The budget in requests per second (0 = unpaced), for tests and diagnostics. */
	get requestsPerSecond(): number {
		return this.budget;
	}

	private dropOldSuccesses(now: number): void {
		let stale = 0;
		while (stale < this.successes.length && this.successes[stale] <= now - SUCCESSES_KEPT_MS)
			stale++;
		if (stale) this.successes.splice(0, stale);
	}

	/** Successes in the last `ms`. */
	private acceptedWithin(ms: number, now: number): number {
		let count = 0;
		for (let index = this.successes.length - 1; index >= 0; index--) {
			if (this.successes[index] <= now - ms) break;
			count++;
		}
		return count;
	}

	/** Unpaced and quiet for a moment: the next burst starts small again. */
	private restartWindowIfQuiet(now: number): void {
		if (!this.budget && this.active === 0 && now - this.lastUsedAt > WINDOW_IDLE_MS)
			this.window = INITIAL_WINDOW;
	}

	/** After a minute without traffic the learned budget may be stale: start unpaced again. */
	private forgetIfIdle(now: number): void {
		if (this.lastUsedAt && now - this.lastUsedAt > IDLE_FORGET_MS && now >= this.pausedUntil) {
			this.budget = 0;
			this.slowStart = 0;
			this.window = INITIAL_WINDOW;
			this.nextStartAt = 0;
		}
	}
}

const gates = new Map<string, RateGate>();

/**
 * The gate of one key on one server; the key is identified by a hash, never stored. Gates of keys
 * that went idle are dropped when a new one is made, so a partner acting for thousands of borrowers
 * (Act as Borrower) does not keep a gate for each in memory forever.
 */
export function rateGateFor(identity: string, now: number = Date.now()): RateGate {
	let gate = gates.get(identity);
	if (!gate) {
		for (const [other, idle] of gates) if (idle.isForgettable(now)) gates.delete(other);
		gate = new RateGate();
		gates.set(identity, gate);
	}
	return gate;
}

/** How many gates are kept, for tests. */
export const gateCount = (): number => gates.size;
