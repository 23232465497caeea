/**
 * Rate gates on simulated time: processes (each with its own gate, as n8n workers have) send items
 * through the sandbox's own rate limiter, without a network and without waiting for real time.
 */
import { RateGate, type GateTicket } from '../../nodes/LendasatBorrower/transport/rateGate';
import { RateLimiter, retryAfterHeader } from '../../dev/sandbox/ratelimit';
import type { RateLimitConfig } from '../../dev/sandbox/types';

/** A clock that only moves when every pending promise has settled: `sleep` resolves in time order. */
export class VirtualClock {
	now = 0;
	private sequence = 0;
	private readonly timers: Array<{ at: number; sequence: number; wake: () => void }> = [];

	readonly sleep = (ms: number): Promise<void> =>
		new Promise((wake) => {
			this.timers.push({ at: this.now + Math.max(0, ms), sequence: this.sequence++, wake });
		});

	/** Runs the timers in order until `done()` or until `untilMs`. */
	async run(done: () => boolean, untilMs = Infinity): Promise<void> {
		for (;;) {
			await settle();
			if (done() || !this.timers.length) return;
			let next = 0;
			for (let index = 1; index < this.timers.length; index++) {
				const timer = this.timers[index];
				const best = this.timers[next];
				if (timer.at < best.at || (timer.at === best.at && timer.sequence < best.sequence))
					next = index;
			}
			if (this.timers[next].at > untilMs) {
				this.now = untilMs;
				return;
			}
			const [timer] = this.timers.splice(next, 1);
			this.now = Math.max(this.now, timer.at);
			timer.wake();
		}
	}
}

/** Lets every pending promise callback run. */
async function settle(): Promise<void> {
	for (let round = 0; round < 3; round++) await new Promise((resolve) => setImmediate(resolve));
}

/** A small deterministic random source (mulberry32), so that a simulation is the same every run. */
export function seededRandom(seed: number): () => number {
	let state = seed | 0;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
		mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
		return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
	};
}

export interface SimulatedProcess {
	gate: RateGate;
	/** When each of its requests was accepted. */
	accepted: number[];
	/** Answers 429 it got. */
	refused: number;
	/** When its last item was accepted. */
	finishedAt?: number;
}

export interface Simulation {
	clock: VirtualClock;
	processes: SimulatedProcess[];
	/** Requests that reached the server, and how many it answered 429. */
	requests: number;
	refused: number;
}

export interface SimulationOptions {
	processes: number;
	itemsPerProcess: number;
	/** The sandbox's limit (requests per second per key). */
	requestsPerSecond: number;
	/** Until when (simulated ms) the server answers only 429. */
	stormUntilMs?: number;
	/** Stop here (simulated ms) even if items are left. */
	untilMs?: number;
	seed?: number;
	/** Max Parallel Requests of each process. */
	maxConcurrent?: number;
}

/**
 * Each process fires all its items at once, as n8n does, a little after the one before it; each
 * request takes 0.6–2 ms to the server and back. Epoch time is offset so that the limiter's
 * 1-second windows do not line up with the processes' start.
 */
export async function simulate(options: SimulationOptions): Promise<Simulation> {
	const clock = new VirtualClock();
	const random = seededRandom(options.seed ?? 1);
	const limiter = new RateLimiter();
	const epoch = 1_700_000_000_123;
	const config: RateLimitConfig = {
		requestsPerSecond: options.requestsPerSecond,
		...(options.stormUntilMs !== undefined && { stormUntilMs: epoch + options.stormUntilMs }),
	};
	const simulation: Simulation = { clock, processes: [], requests: 0, refused: 0 };
	let remaining = options.processes * options.itemsPerProcess;
	for (let index = 0; index < options.processes; index++) {
		const gate = new RateGate({ now: () => clock.now, sleep: clock.sleep, random });
		const process: SimulatedProcess = { gate, accepted: [], refused: 0 };
		simulation.processes.push(process);
		const startsAt = index * 7 + random() * 20;
		let left = options.itemsPerProcess;
		for (let item = 0; item < options.itemsPerProcess; item++) {
			void (async () => {
				await clock.sleep(startsAt + item * 0.3);
				for (;;) {
					const ticket = (await gate.acquire(options.maxConcurrent ?? 32)) as GateTicket;
					await clock.sleep(0.3 + random() * 0.7);
					simulation.requests++;
					const at = epoch + clock.now;
					const decision = limiter.check('key', config, at);
					await clock.sleep(0.3 + random() * 0.7);
					gate.release();
					if (!decision) {
						gate.recordSuccess();
						process.accepted.push(clock.now);
						remaining--;
						if (--left === 0) process.finishedAt = clock.now;
						return;
					}
					simulation.refused++;
					process.refused++;
					gate.recordRateLimited(ticket, Number(retryAfterHeader(config, decision, at)) * 1000);
				}
			})();
		}
	}
	await clock.run(() => remaining === 0, options.untilMs);
	return simulation;
}

/** Requests of `process` accepted in [fromMs, toMs). */
export function acceptedBetween(process: SimulatedProcess, fromMs: number, toMs: number): number {
	return process.accepted.filter((at) => at >= fromMs && at < toMs).length;
}
