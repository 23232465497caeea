import { sleep } from 'n8n-workflow';

/**
 * How much wider than the rate the server accepted the gate spaces requests (2.5 %): at 10 requests
 * per second, a request may arrive 25 ms later than the one ten places behind it before a
 * server's 1-second window takes one too many.
 */
export const MARGIN = 0.025;
/** How much wider the spacing gets on a 429 that came although it kept the margin (2 %). */
export const SLOWDOWN = 0.02;
/** Probing upward: the spacing shrinks by `PROBE_STEP` after each `PROBE_EVERY_MS` without a 429. */
export const PROBE_EVERY_MS = 60_000;
export const PROBE_STEP = 0.01;

/** Proof of a place in the gate's queue, given back with the answer it led to. */
export interface GateTicket {
	/** The pacing the request was sent under. */
	pacing: number;
}

/** After this long without traffic a gate's learned pace is stale, and an unused gate may go. */
const IDLE_FORGET_MS = 60_000;

/**
 * Paces the requests of one API key across every item, execution and workflow of this n8n instance.
 *
 * n8n fires all items of a declarative node at once, so a thousand items against a rate-limited
 * API would mostly come back 429 and retry in herds. The gate sends unpaced until the first 429,
 * takes what the server accepted in the last second as its rate, spaces requests a little wider
 * than that (`MARGIN`), pauses everyone for a Retry-After, and probes upward only very slowly
 * (`PROBE_STEP` per `PROBE_EVERY_MS` without a 429): every 429 costs everyone a Retry-After pause,
 * far more than a spacing a few per cent wider.
 */
export class RateGate {
	/** Earliest time the next request may start. */
	private nextStartAt = 0;

	/** Learned spacing between request starts; 0 = unpaced until the first 429. */
	private intervalMs = 0;

	private pausedUntil = 0;

	/** Changes with every slowdown: requests queued under an older pacing take a new place. */
	private pacing = 0;

	private recentSuccesses: number[] = [];

	private lastUsedAt = 0;

	/** Since when the pacing has gone without a slowdown or a probe: the clock of the next probe. */
	private steadySince = 0;

	/** The spacing before the last slowdown, and when that slowdown's pause ends. */
	private spacingBeforeSlowdown = 0;
	private slowdownPauseEndsAt = 0;

	/** Requests holding one of the connections, and those waiting for one, first come first served. */
	private active = 0;
	private readonly waitingForConnection: Array<() => void> = [];

	/** When the gate was made: a gate not used yet is not idle. */
	private readonly madeAt: number;

	constructor(private readonly now: () => number = Date.now) {
		this.madeAt = now();
	}

	/**
	 * Waits for one of at most `maxConcurrent` connections of this key, then for this request's turn
	 * under the current pacing. Every acquire is followed by one `release` once the answer is in.
	 */
	async acquire(maxConcurrent = Infinity, deadline = Infinity): Promise<GateTicket | undefined> {
		if (this.active < maxConcurrent) this.active++;
		else if (!(await this.waitForConnection(deadline))) return undefined;
		const ticket = await this.waitForTurn(deadline);
		if (!ticket) this.release();
		return ticket;
	}

	/**
	 * Waits for a connection another request gives back: true once it has one, false when `deadline`
	 * (n8n's clock) comes first. The deadline's timer does not keep the process alive.
	 */
	private async waitForConnection(deadline: number): Promise<boolean> {
		return await new Promise<boolean>((resolve) => {
			const take = () => resolve(true);
			this.waitingForConnection.push(take);
			if (deadline === Infinity) return;
			const expiry = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
			expiry.addEventListener(
				'abort',
				() => {
					const index = this.waitingForConnection.indexOf(take);
					if (index < 0) return; // it was given a connection meanwhile
					this.waitingForConnection.splice(index, 1);
					resolve(false);
				},
				{ once: true },
			);
		});
	}

	/** Gives the connection back: the next waiting request takes it over. */
	release(): void {
		const next = this.waitingForConnection.shift();
		if (next) next();
		else this.active = Math.max(0, this.active - 1);
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
		for (;;) {
			const now = this.now();
			this.forgetIfIdle(now);
			const start = Math.max(now, this.nextStartAt, this.pausedUntil);
			if (start >= deadline) return undefined;
			this.nextStartAt = start + this.intervalMs;
			this.lastUsedAt = start;
			const pacing = this.pacing;
			if (start > now) await sleep(start - now);
			if (pacing === this.pacing) return { pacing };
		}
	}

	recordSuccess(): void {
		const now = this.now();
		this.recentSuccesses.push(now);
		this.dropOldSuccesses(now);
		// A success during the pause of a slowdown is an answer to a request of the wave that led to
		// it, read after its first 429 (answers of one burst come back in any order): count it too.
		if (now < this.slowdownPauseEndsAt) this.learn();
		// Probing upward: one small step after a long stretch without a 429, not per success. A step
		// that overshoots costs one 429 and one Retry-After pause for everyone, then the rate is learned
		// again: with the margin eaten up after about three steps, that is one pause every few minutes.
		if (this.intervalMs > 0 && now - this.steadySince >= PROBE_EVERY_MS) {
			this.intervalMs = this.intervalMs < 1 ? 0 : this.intervalMs * (1 - PROBE_STEP);
			this.steadySince = now;
		}
	}

	/** A 429 for a request sent with `ticket`: everyone pauses for `pauseMs`, and the pacing slows. */
	recordRateLimited(ticket: GateTicket, pauseMs: number): void {
		const now = this.now();
		this.dropOldSuccesses(now);
		this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
		// One slowdown per pacing: the other 429s of the same wave only pause, and refine the guess
		// with the successes read since.
		if (ticket.pacing !== this.pacing) {
			if (now < this.slowdownPauseEndsAt) this.learn();
			return;
		}
		// What the server let through in the last second is the best guess of its limit: a window
		// that is full holds at least that many of our requests, so the guess is never slower than
		// the limit (it is faster when the first burst straddled two of the server's windows, and the
		// next 429 corrects it). The spacing keeps a margin above it, so that a request a few
		// milliseconds late does not tip a window over. A 429 while already pacing at or below the
		// guess (jitter, a leftover of an earlier burst, a limit shared with someone else) widens the
		// spacing a little instead.
		this.spacingBeforeSlowdown = this.intervalMs;
		this.slowdownPauseEndsAt = this.pausedUntil;
		this.learn();
		this.pacing += 1;
		this.nextStartAt = this.pausedUntil;
		this.steadySince = this.pausedUntil;
	}

	/** The spacing after a slowdown, from what the server accepted in the last second. */
	private learn(): void {
		const acceptedPerSecond = Math.max(1, this.recentSuccesses.length);
		this.intervalMs = Math.max(
			this.spacingBeforeSlowdown * (1 + SLOWDOWN),
			(1000 / acceptedPerSecond) * (1 + MARGIN),
		);
	}

	/** The current spacing, for tests and diagnostics. */
	get spacingMs(): number {
		return this.intervalMs;
	}

	private dropOldSuccesses(now: number): void {
		let stale = 0;
		while (stale < this.recentSuccesses.length && this.recentSuccesses[stale] <= now - 1000)
			stale++;
		if (stale) this.recentSuccesses.splice(0, stale);
	}

	/** After a minute without traffic the learned limit may be stale: start unpaced again. */
	private forgetIfIdle(now: number): void {
		if (this.lastUsedAt && now - this.lastUsedAt > IDLE_FORGET_MS && now >= this.pausedUntil) {
			this.intervalMs = 0;
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
