/**
 * Rate gates on simulated time: processes (each with its own gate, as n8n workers have) send their
 * items through the sandbox's own rate limiter (fixed 1-second windows per key, Retry-After in
 * whole seconds), without a network and without waiting for real time. A request refused with 429
 * is handled as `transport/exchange.ts` handles it: the gate hears of it, the request waits its
 * Retry-After and queues again.
 */
import { RateGate, type GateTicket } from '../../nodes/LendasatBorrower/transport/rateGate';
import { RateLimiter, retryAfterHeader } from '../../dev/sandbox/ratelimit';
import type { RateLimitConfig } from '../../dev/sandbox/types';
import { seededRandom } from './seededRandom';
import { VirtualClock } from './virtualClock';

export { VirtualClock };

export interface SimulatedProcess {
	gate: RateGate;
	/** When it fired its items. */
	startedAt: number;
	/** When each of its requests was accepted. */
	accepted: number[];
	/** When each of its requests was answered 429. */
	refusedAt: number[];
	/** When its last item was accepted. */
	finishedAt?: number;
}

export interface Simulation {
	clock: VirtualClock;
	processes: SimulatedProcess[];
	/** Requests that reached the server, and how many it answered 429. */
	requests: number;
	refused: number;
	/** Items in all, and how many were accepted. */
	items: number;
	done: number;
	/** When the last item was accepted (or the simulation stopped). */
	endedAt: number;
	/** Items per second from the first process's start to the end, over the limit (1 = the limit). */
	throughputRatio: number;
	/** Answers 429 over requests. */
	refusedShare: number;
}

export interface SimulationOptions {
	processes: number;
	/** Items of each process (all fired at once when it starts), or one count per process. */
	itemsPerProcess: number | number[];
	/** The sandbox's limit (requests per second per key). */
	requestsPerSecond: number;
	/** Until when (simulated ms) the server answers only 429. */
	stormUntilMs?: number;
	/** Stop here (simulated ms) even if items are left. */
	untilMs?: number;
	seed?: number;
	/** Max Parallel Requests of each process. */
	maxConcurrent?: number;
	/**
	 * The processes start at random within this long (n8n preparing its items, a job handed out
	 * later); the first at 0. Default 300 ms.
	 */
	startSpreadMs?: number;
	/** A request's time to the server and back again: random within [min, max] ms each way. Default 0.5–3. */
	latencyMs?: [number, number];
	/**
	 * Timers wake this late: every wait of the gate and of a request by a random 0–1 ms, and one in
	 * `busyEvery` by up to `busyMs` more (an event loop busy with other items). Default 1 in 50, 20 ms.
	 */
	busyEvery?: number;
	busyMs?: number;
}

/**
 * Each process fires all its items at once, as n8n does, and each item's request goes through its
 * gate as `exchange` sends it. Epoch time is offset so that the limiter's 1-second windows do not
 * line up with the processes' start.
 */
export async function simulate(options: SimulationOptions): Promise<Simulation> {
	const clock = new VirtualClock();
	const random = seededRandom(options.seed ?? 1);
	const busyEvery = options.busyEvery ?? 50;
	const busyMs = options.busyMs ?? 20;
	const [latencyMin, latencyMax] = options.latencyMs ?? [0.5, 3];
	const late = (ms: number): Promise<void> =>
		clock.sleep(ms + random() + (random() * busyEvery < 1 ? random() * busyMs : 0));
	const travel = (): Promise<void> =>
		clock.sleep(latencyMin + random() * (latencyMax - latencyMin));
	const limiter = new RateLimiter();
	const epoch = 1_700_000_000_123;
	const config: RateLimitConfig = {
		requestsPerSecond: options.requestsPerSecond,
		...(options.stormUntilMs !== undefined && { stormUntilMs: epoch + options.stormUntilMs }),
	};
	const counts = Array.from({ length: options.processes }, (_, index) =>
		typeof options.itemsPerProcess === 'number'
			? options.itemsPerProcess
			: options.itemsPerProcess[index],
	);
	const items = counts.reduce((sum, count) => sum + count, 0);
	const simulation: Simulation = {
		clock,
		processes: [],
		requests: 0,
		refused: 0,
		items,
		done: 0,
		endedAt: 0,
		throughputRatio: 0,
		refusedShare: 0,
	};
	const spread = options.startSpreadMs ?? 300;
	for (let index = 0; index < options.processes; index++) {
		const gate = new RateGate({ ...clock.asClock(random), sleep: late });
		const startedAt = index === 0 ? 0 : random() * spread;
		const process: SimulatedProcess = { gate, startedAt, accepted: [], refusedAt: [] };
		simulation.processes.push(process);
		let left = counts[index];
		for (let item = 0; item < counts[index]; item++) {
			void (async () => {
				await clock.sleep(startedAt + item * 0.05);
				for (;;) {
					const ticket = (await gate.acquire(options.maxConcurrent ?? 32)) as GateTicket;
					await travel();
					simulation.requests++;
					const at = epoch + clock.now;
					const decision = limiter.check('key', config, at);
					await travel();
					gate.release();
					if (!decision) {
						gate.recordSuccess();
						process.accepted.push(clock.now);
						simulation.done++;
						if (--left === 0) process.finishedAt = clock.now;
						return;
					}
					simulation.refused++;
					process.refusedAt.push(clock.now);
					const retryAfterMs = Number(retryAfterHeader(config, decision, at)) * 1000;
					gate.recordRateLimited(ticket, retryAfterMs);
					await late(retryAfterMs);
				}
			})();
		}
	}
	await clock.run(() => simulation.done === items, options.untilMs);
	simulation.endedAt = clock.now;
	simulation.throughputRatio =
		simulation.done / (simulation.endedAt / 1000) / options.requestsPerSecond;
	simulation.refusedShare = simulation.requests ? simulation.refused / simulation.requests : 0;
	return simulation;
}

/** Requests of `process` accepted in [fromMs, toMs). */
export function acceptedBetween(process: SimulatedProcess, fromMs: number, toMs: number): number {
	return process.accepted.filter((at) => at >= fromMs && at < toMs).length;
}
