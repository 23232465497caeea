import type { Cancellation } from './cancellation';
import { stopAt, systemClock, waitInLine, type Clock } from './clock';

/**
 * How much slower than its rate the gate paces: a server's 1-second window then holds no more of
 * this process's requests than the rate, even when a timer wakes a little late.
 */
export const MARGIN = 0.02;
/** Before the first 429: requests in flight at first, one more per two successes (slow start). */
export const INITIAL_WINDOW = 1;
/** A 429 that does not answer a probe of this process's own: the rate drops to this share of itself. */
export const DECREASE = 0.9;
/** The lowest rate, requests per second; also the rate after a first burst of which nothing got through. */
export const MIN_RATE = 1;
/** The first probe after a hold adds this many requests per second; each probe that finds room doubles it. */
export const STEP = 1;
/** A 429 this soon after a probe answers it; a probe that meets none for this long found room. */
export const PROBE_MS = 3_000;
/** The rate holds this long (give or take half) after a 429 before probing… */
export const HOLD_MIN_MS = 3_000;
/** …while alone at the limit, twice as long after each probe a 429 answered, up to this… */
export const HOLD_MAX_MS = 30_000;
/** …and while the key is shared (a 429 of another process's probe came within this long), twice `HOLD_MIN_MS`. */
export const SHARED_MS = 30_000;
/** After a first burst of which nothing got through, the rate doubles this often while requests get through. */
export const DOUBLING_MS = 500;

/** Proof of a place in the gate's queue, given back with the answer it led to. */
export interface GateTicket {
	/** The pacing the request was sent under. */
	pacing: number;
}

/** After this long without traffic a gate's learned pace is stale, and an unused gate may go. */
const IDLE_FORGET_MS = 60_000;
/** The clock going back by more than this is the clock being set, not two readings of the same moment. */
const CLOCK_SET_BACK_MS = 1_000;
/** After this long with nothing in flight, an unpaced burst starts with the initial window again. */
const WINDOW_IDLE_MS = 1_000;
/** How long successes are remembered. */
const SUCCESSES_KEPT_MS = 3_000;
/** What got through is averaged over this long where a sliding second would count two of the server's windows. */
const AVERAGE_MS = 2_000;

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
 * workers share no memory, and the package has no store); processes sharing a key find their shares
 * the way TCP's congestion control does, by additive increase and multiplicative decrease:
 *
 * - Until the first 429 it sends unpaced: `INITIAL_WINDOW` request in flight at first, one more per
 *   two successes. The first 429 teaches a **rate**: the requests per second the server accepted in
 *   the last second. The gate paces `MARGIN` below it, evenly spaced. When nothing got through (a
 *   storm, or other processes already fill the key's windows), the rate starts at `MIN_RATE` and
 *   doubles every `DOUBLING_MS` while requests get through, until the next 429 teaches it.
 * - A 429 is one congestion event, with the 429s of requests already on their way. One that answers
 *   no probe of this process's own (another process took more) lowers the rate to `DECREASE` of
 *   itself: a server's full window refuses the requests that come last in it, so a process with a
 *   larger share meets more of these 429s and gives up more, and shares even out. The gate pauses
 *   for a spacing or two, with jitter, so that its next requests fall into the server's next window
 *   and processes do not move in lockstep; the refused request waits out its own Retry-After. A 429
 *   before anything got through since the last one pauses as briefly once, then for the Retry-After
 *   (the server refuses everything for now, which says nothing about its rate).
 * - The rate holds for about `HOLD_MIN_MS`, then probes: `STEP` request per second more. A probe no
 *   429 answers within `PROBE_MS` found room, and the next one follows at once with twice the step (a
 *   process sharing the key finished, the server accepts again after a storm): freed capacity is
 *   taken back within seconds. A probe a 429 answers is taken back whole; alone at the limit the hold
 *   then doubles (up to `HOLD_MAX_MS`), so that scenario 2's single process probes rarely, while the
 *   key is shared (`SHARED_MS`) it stays short, so that the room a finished process leaves is found.
 */
export class RateGate {
	private readonly env: Clock;

	/** Earliest time the next request may start. */
	private nextStartAt = 0;

	/** Requests per second this process allows itself; 0 = unpaced, until the first 429. */
	private rate = 0;

	private pausedUntil = 0;

	/** Changes with every congestion event: answers to requests sent before it belong to that event. */
	private pacing = 0;
	/** Whether a request got through since the last congestion event, and 429s since without one. */
	private succeededSinceEvent = false;
	private refusedAgain = 0;

	/**
	 * The first rate was learned from a burst of which nothing got through (a storm, or other
	 * processes filled the key's windows): it climbs while requests get through, until the next 429.
	 */
	private blind = false;
	private lastClimbAt = 0;

	/** Until when answers of the first burst may still refine the first rate. */
	private learningUntil = 0;

	/** When the answers of the last `SUCCESSES_KEPT_MS` succeeded. */
	private successes: number[] = [];

	/** How long the rate holds after a 429, and until when it holds now. */
	private hold = HOLD_MIN_MS;
	private holdUntil = 0;
	/** The probe under way: when it began, the rate before it, its step. */
	private probedAt = -Infinity;
	private beforeProbe = 0;
	private step = STEP;
	/** When a 429 last came that answered no probe of this process's own (another process took more). */
	private sharedAt = -Infinity;

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

	/** `clock`: what the gate reads the time from, waits with and draws its jitter from. */
	constructor(clock: Partial<Clock> = {}) {
		this.env = { ...systemClock, ...clock };
		this.madeAt = this.env.now();
	}

	/**
	 * Waits for one of at most `maxConcurrent` connections of this key, then for this request's turn
	 * under the current pacing. Every ticket is followed by one `release` once the answer is in.
	 * Undefined, with nothing to release, when the turn would come after `deadline` or the run is
	 * `cancelled` first. `waiting` is called when the request has to wait for either, before it does.
	 */
	async acquire(
		maxConcurrent = Infinity,
		deadline = Infinity,
		cancelled?: Cancellation,
		waiting?: () => void,
	): Promise<GateTicket | undefined> {
		if (cancelled?.aborted) return undefined;
		this.restartWindowIfQuiet(this.env.now());
		if (this.waitingForConnection.length === 0 && this.active < this.capFor(maxConcurrent))
			this.active++;
		else {
			waiting?.();
			if (!(await this.waitForConnection(maxConcurrent, deadline, cancelled))) return undefined;
		}
		const ticket = await this.waitForTurn(deadline, cancelled, waiting);
		if (!ticket) this.release();
		return ticket;
	}

	/** The connections a request may count on: the caller's cap, and unpaced the slow start's window. */
	private capFor(maxConcurrent: number): number {
		return this.rate ? maxConcurrent : Math.min(maxConcurrent, this.window);
	}

	/**
	 * Waits for a connection another request gives back: true once it has one, false when `deadline`
	 * or the run's cancellation comes first. The deadline's timer does not keep the process alive.
	 */
	private async waitForConnection(
		cap: number,
		deadline: number,
		cancelled?: Cancellation,
	): Promise<boolean> {
		const stop =
			deadline === Infinity && !cancelled ? undefined : stopAt(this.env, deadline, cancelled);
		return await waitInLine(
			this.waitingForConnection,
			(turn: (connected: boolean) => void) => ({ cap, take: () => turn(true) }),
			false,
			stop,
			() => this.handOverConnections(),
		);
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

	/**
	 * The request's turn, or undefined when it would come after `deadline` or the run is cancelled
	 * first (no turn is taken then).
	 */
	private async waitForTurn(
		deadline: number,
		cancelled?: Cancellation,
		waiting?: () => void,
	): Promise<GateTicket | undefined> {
		this.forgetIfIdle(this.env.now());
		if (cancelled?.aborted || this.turnOf(this.turnQueue.length) >= deadline) return undefined;
		return await new Promise<GateTicket | undefined>((resolve) => {
			let settled = false;
			let unhear = () => {};
			const waiter: TurnWaiter = {
				deadline,
				resolve: (ticket) => {
					settled = true;
					unhear();
					resolve(ticket);
				},
			};
			this.turnQueue.push(waiter);
			if (cancelled)
				unhear = cancelled.onCancel(() => {
					const index = this.turnQueue.indexOf(waiter);
					if (index < 0) return; // it had its turn meanwhile
					this.turnQueue.splice(index, 1);
					waiter.resolve(undefined);
				});
			void this.dispatch();
			// Its turn did not come at once: it waits.
			if (!settled) waiting?.();
		});
	}

	/** When the request at `position` of the queue would start, at the current pace. */
	private turnOf(position: number): number {
		const first = Math.max(this.env.now(), this.nextStartAt, this.pausedUntil);
		return first + position * this.spacingMs;
	}

	/**
	 * Lets the queued requests go one by one, each at the pace of the moment: a pace that changes
	 * (a pause, a lower or higher rate) applies to every request still waiting.
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
				// the pace stays the rate's. After a quiet spell, from now.
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
		this.succeededSinceEvent = true;
		// A success while the first 429 is being learned answers a request of the burst that led to it,
		// read after that 429 (answers of one burst come back in any order): count it too.
		if (now < this.learningUntil) {
			this.learn(now);
			return;
		}
		if (this.blind) {
			this.climb(now);
			return;
		}
		if (!this.rate) {
			this.window += 0.5;
			this.handOverConnections();
			return;
		}
		this.probe(now);
	}

	/**
	 * A 429 for a request sent with `ticket`, which waits out `retryAfterMs` (the server's
	 * Retry-After) itself. The first 429 of a congestion event lowers the rate (or takes a probe back)
	 * and pauses the key briefly; 429s before anything got through since then pause it longer.
	 */
	recordRateLimited(ticket: GateTicket, retryAfterMs: number): void {
		const now = this.env.now();
		this.dropOldSuccesses(now);
		if (ticket.pacing !== this.pacing) {
			// Sent before the gate reacted: the same event.
			if (now < this.learningUntil) this.learn(now);
			return;
		}
		this.pacing += 1;
		if (this.rate && !this.succeededSinceEvent) {
			// The window is still full (a spacing or two was not enough), or the server refuses
			// everything for now, which says nothing about its rate: the second time, wait as it asks.
			this.refusedAgain++;
			this.pauseUntil(
				now + (this.refusedAgain === 1 ? this.briefPause(retryAfterMs) : retryAfterMs),
			);
			return;
		}
		this.succeededSinceEvent = false;
		this.refusedAgain = 0;
		if (!this.rate || this.blind) {
			this.learn(now);
		} else if (now - this.probedAt < PROBE_MS) {
			this.rate = this.beforeProbe;
			// Alone at the limit a process probes ever more rarely; sharing the key, at a steady pace
			// (a process that finishes leaves room that only probing finds).
			this.hold =
				now - this.sharedAt < SHARED_MS ? 2 * HOLD_MIN_MS : Math.min(HOLD_MAX_MS, this.hold * 2);
		} else {
			this.rate = Math.max(MIN_RATE, this.rate * DECREASE);
			this.sharedAt = now;
			this.hold = HOLD_MIN_MS;
		}
		this.probedAt = -Infinity;
		this.step = STEP;
		this.pauseUntil(now + this.briefPause(retryAfterMs));
		if (!this.learningUntil) this.learningUntil = this.pausedUntil;
		this.holdUntil = this.pausedUntil + this.hold * (0.5 + this.env.random());
	}

	/** One spacing or two, with jitter: past the server's full window, not in step with other processes. */
	private briefPause(retryAfterMs: number): number {
		return Math.min(retryAfterMs, (1 + this.env.random()) * this.spacingMs);
	}

	private pauseUntil(at: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, at);
		this.nextStartAt = Math.max(this.nextStartAt, this.pausedUntil);
		this.handOverConnections();
	}

	/**
	 * The first rate: what the server let through in the last second. A window that is full holds at
	 * least that many of our requests, so the rate is not below this process's share (it is above when
	 * the first burst straddled two of the server's windows, and the next 429 brings it down). After a
	 * blind start, the rate climbed fast: the average over `AVERAGE_MS` counts fewer straddled windows.
	 */
	private learn(now: number): void {
		const accepted = this.acceptedWithin(1000, now);
		this.rate = Math.max(
			MIN_RATE,
			this.blind ? (this.acceptedWithin(AVERAGE_MS, now) * 1000) / AVERAGE_MS : accepted,
		);
		this.blind = accepted === 0;
	}

	/** Blind: the rate doubles every `DOUBLING_MS`, never far ahead of what gets through. */
	private climb(now: number): void {
		const elapsed = Math.min(1000, now - Math.max(this.lastClimbAt, this.pausedUntil));
		this.lastClimbAt = now;
		if (elapsed <= 0) return;
		const ceiling = 2 * this.acceptedWithin(1000, now) + 1;
		this.rate = Math.max(this.rate, Math.min(ceiling, this.rate * 2 ** (elapsed / DOUBLING_MS)));
	}

	/** Once the hold is over, while requests are waiting for their turn: more, in growing steps while there is room. */
	private probe(now: number): void {
		if (this.probedAt > -Infinity && now - this.probedAt >= PROBE_MS) {
			// No 429 answered the last probe: there is room, and the next step follows at once, bigger.
			this.step *= 2;
			this.probedAt = -Infinity;
			this.holdUntil = now;
			this.hold = HOLD_MIN_MS;
		}
		if (now < this.holdUntil || this.probedAt > -Infinity) return;
		if (this.turnQueue.length + this.waitingForConnection.length === 0) return;
		this.beforeProbe = this.rate;
		this.rate += this.step;
		this.probedAt = now;
	}

	/** The current spacing between request starts (0 = unpaced), for tests and diagnostics. */
	get spacingMs(): number {
		return this.rate ? 1000 / (this.rate * (1 - MARGIN)) : 0;
	}

	/** The rate in requests per second (0 = unpaced), for tests and diagnostics. */
	get requestsPerSecond(): number {
		return this.rate;
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
		if (!this.rate && this.active === 0 && now - this.lastUsedAt > WINDOW_IDLE_MS)
			this.window = INITIAL_WINDOW;
	}

	/**
	 * After a minute without traffic the learned rate may be stale: start unpaced again. So too when
	 * the clock was set back (n8n's clock is the wall clock): the times the gate keeps would hold its
	 * requests back by as much.
	 */
	private forgetIfIdle(now: number): void {
		const setBack = now < this.lastUsedAt - CLOCK_SET_BACK_MS;
		if (setBack) {
			this.pausedUntil = 0;
			this.lastUsedAt = now;
			this.successes = [];
		}
		if (
			setBack ||
			(this.lastUsedAt && now - this.lastUsedAt > IDLE_FORGET_MS && now >= this.pausedUntil)
		) {
			this.rate = 0;
			this.window = INITIAL_WINDOW;
			this.nextStartAt = 0;
			this.learningUntil = 0;
			this.succeededSinceEvent = false;
			this.blind = false;
		}
	}
}

/**
 * The gates of the keys this process sends, each key identified by a hash, never stored. Gates of
 * keys that went idle are dropped, so that a partner acting for thousands of borrowers (Act as
 * Borrower) does not keep a gate for each in memory forever. Looking every gate over costs as much as
 * there are gates: it is done when their number has doubled since the last time, or a minute has
 * passed, so that making a gate costs the same however many there are.
 */
export class RateGates {
	private readonly gates = new Map<string, RateGate>();
	private keptAtLastSweep = 0;
	private lastSweepAt = -Infinity;

	/** The gate of `identity`; a new one runs on `clock`. */
	gateFor(identity: string, clock: Clock = systemClock): RateGate {
		let gate = this.gates.get(identity);
		if (!gate) {
			const now = clock.now();
			if (this.gates.size >= 2 * this.keptAtLastSweep || !this.sweptWithin(now, IDLE_FORGET_MS))
				this.dropIdle(now);
			gate = new RateGate(clock);
			this.gates.set(identity, gate);
		}
		return gate;
	}

	/** Gates kept now, for tests and diagnostics. */
	get size(): number {
		return this.gates.size;
	}

	private sweptWithin(now: number, ms: number): boolean {
		// A clock set back counts as time passed.
		return now >= this.lastSweepAt && now - this.lastSweepAt < ms;
	}

	private dropIdle(now: number): void {
		for (const [identity, gate] of this.gates)
			if (gate.isForgettable(now)) this.gates.delete(identity);
		this.keptAtLastSweep = this.gates.size;
		this.lastSweepAt = now;
	}
}

const gates = new RateGates();

/** The gate of one key on one server, shared by everything this process sends with that key. */
export function rateGateFor(identity: string, clock: Clock = systemClock): RateGate {
	return gates.gateFor(identity, clock);
}
