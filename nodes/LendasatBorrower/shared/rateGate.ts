import { sleep } from 'n8n-workflow';

/** Proof of a place in the gate's queue, given back with the answer it led to. */
export interface GateTicket {
	/** The pacing the request was sent under. */
	pacing: number;
}

/**
 * Paces the requests of one API key across every item, execution and workflow of this n8n instance.
 *
 * n8n fires all items of a declarative node at once, so a thousand items against a rate-limited
 * API would mostly come back 429 and retry in herds. The gate learns the rate the server accepts
 * from the 429s it sees, spaces requests to that rate, pauses everyone for a Retry-After, and
 * speeds up again slowly while the server keeps saying yes.
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

	/** Requests sleeping until their turn. */
	private waiting = 0;

	/** Requests holding one of the connections, and those waiting for one, first come first served. */
	private active = 0;
	private readonly waitingForConnection: Array<() => void> = [];

	constructor(private readonly now: () => number = Date.now) {}

	/**
	 * Waits for one of at most `maxConcurrent` connections of this key, then for this request's turn
	 * under the current pacing. Every acquire is followed by one `release` once the answer is in.
	 */
	async acquire(maxConcurrent = Infinity): Promise<GateTicket> {
		if (this.active < maxConcurrent) this.active++;
		else await new Promise<void>((resolve) => this.waitingForConnection.push(resolve));
		return await this.waitForTurn();
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

	private async waitForTurn(): Promise<GateTicket> {
		for (;;) {
			const now = this.now();
			this.forgetIfIdle(now);
			const start = Math.max(now, this.nextStartAt, this.pausedUntil);
			this.nextStartAt = start + this.intervalMs;
			this.lastUsedAt = start;
			const pacing = this.pacing;
			if (start > now) {
				this.waiting++;
				await sleep(start - now);
				this.waiting--;
			}
			if (pacing === this.pacing) return { pacing };
		}
	}

	recordSuccess(): void {
		const now = this.now();
		this.recentSuccesses.push(now);
		this.dropOldSuccesses(now);
		// About 1 % faster per success: it probes upward again within a few dozen requests. Not while
		// requests wait: after a slowdown they take their new places one by one, as their old turns
		// come, and a spacing that shrinks meanwhile packs them into more than the server accepts.
		if (this.intervalMs > 0 && this.waiting === 0) {
			this.intervalMs = this.intervalMs < 1 ? 0 : this.intervalMs * 0.99;
		}
	}

	/** A 429 for a request sent with `ticket`: everyone pauses for `pauseMs`, and the pacing slows. */
	recordRateLimited(ticket: GateTicket, pauseMs: number): void {
		const now = this.now();
		this.dropOldSuccesses(now);
		this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
		// One slowdown per pacing: the other 429s of the same wave say nothing new.
		if (ticket.pacing !== this.pacing) return;
		// What the server let through in the last second is the best guess of its limit. A 429 while
		// already pacing below that guess is often a leftover of an earlier burst still filling the
		// server's window, so the pacing slows by a tenth only: the rest of the queue keeps it.
		const acceptedPerSecond = Math.max(1, this.recentSuccesses.length);
		this.intervalMs = Math.max(this.intervalMs * 1.1, 1000 / acceptedPerSecond);
		this.pacing += 1;
		this.nextStartAt = this.pausedUntil;
	}

	/** The current spacing, for tests and diagnostics. */
	get spacingMs(): number {
		return this.intervalMs;
	}

	private dropOldSuccesses(now: number): void {
		let stale = 0;
		while (stale < this.recentSuccesses.length && this.recentSuccesses[stale] <= now - 1000) stale++;
		if (stale) this.recentSuccesses.splice(0, stale);
	}

	/** After a minute without traffic the learned limit may be stale: start unpaced again. */
	private forgetIfIdle(now: number): void {
		if (this.lastUsedAt && now - this.lastUsedAt > 60_000 && now >= this.pausedUntil) {
			this.intervalMs = 0;
			this.nextStartAt = 0;
		}
	}
}

const gates = new Map<string, RateGate>();

/** The gate of one key on one server; the key is identified by a hash, never stored. */
export function rateGateFor(identity: string): RateGate {
	let gate = gates.get(identity);
	if (!gate) {
		gate = new RateGate();
		gates.set(identity, gate);
	}
	return gate;
}
