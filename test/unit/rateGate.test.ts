import {
	CONTENDED_MS,
	HOLD_INITIAL_MS,
	HOLD_MAX_MS,
	HOLD_MIN_MS,
	INITIAL_WINDOW,
	MARGIN,
	PROBE_STEP_MS,
	RateGate,
	gateCount,
	rateGateFor,
	type GateTicket,
} from '../../nodes/LendasatBorrower/transport/rateGate';
import { VirtualClock, acceptedBetween, simulate } from '../helpers/rateSimulation';

/** A gate on a clock of its own; `random` is its jitter (0 = none). */
function gateOn(clock: VirtualClock, random = () => 0): RateGate {
	return new RateGate({ now: () => clock.now, sleep: clock.sleep, random });
}

/** Takes turns one after the other, as requests of a busy key do, and says when each started. */
async function starts(gate: RateGate, clock: VirtualClock, count: number): Promise<number[]> {
	const at: number[] = [];
	const tickets = Array.from({ length: count }, () =>
		gate.acquire().then((ticket) => {
			at.push(clock.now);
			return ticket;
		}),
	);
	await clock.run(() => at.length === count);
	await Promise.all(tickets);
	for (let index = 0; index < count; index++) gate.release();
	return at;
}

/** Turns taken one after the other, each given back at once. */
async function tickets(gate: RateGate, clock: VirtualClock, count: number): Promise<GateTicket[]> {
	const taken: GateTicket[] = [];
	for (let index = 0; index < count; index++) {
		let ticket: GateTicket | undefined;
		void gate.acquire().then((turn) => (ticket = turn));
		await clock.run(() => ticket !== undefined);
		gate.release();
		taken.push(ticket as GateTicket);
	}
	return taken;
}

/** A gate that has learned a budget of 10 per second from a first burst (10 accepted, then a 429). */
async function learnedGate(clock: VirtualClock, random = () => 0): Promise<RateGate> {
	const gate = gateOn(clock, random);
	const ticket = (await gate.acquire()) as GateTicket;
	gate.release();
	for (let index = 0; index < 10; index++) gate.recordSuccess();
	gate.recordRateLimited(ticket, 1000);
	return gate;
}

describe('RateGate: before the first 429', () => {
	it('sends unpaced, at first with a few requests in flight, one more per success', async () => {
		const clock = new VirtualClock();
		const gate = gateOn(clock);
		const first = await starts(gate, clock, 3);
		expect(first).toEqual([0, 0, 0]);
		expect(gate.spacingMs).toBe(0);

		const held = await Promise.all(Array.from({ length: INITIAL_WINDOW }, () => gate.acquire()));
		expect(gate.inFlight).toBe(INITIAL_WINDOW);
		let extra = false;
		void gate.acquire().then(() => (extra = true));
		await clock.run(() => extra, 10_000);
		expect(extra).toBe(false); // the window is full until an answer comes back
		gate.recordSuccess();
		await clock.run(() => extra, 10_000);
		expect(extra).toBe(true);
		expect(held).toHaveLength(INITIAL_WINDOW);
	});
});

describe('RateGate: the first budget', () => {
	it('is what the server accepted in the last second, paced a margin slower', async () => {
		const clock = new VirtualClock();
		clock.now = 5_000;
		const gate = await learnedGate(clock);
		expect(gate.requestsPerSecond).toBe(10);
		expect(gate.spacingMs).toBeCloseTo(100 / (1 - MARGIN), 9);
		expect(MARGIN).toBeGreaterThan(0);
		expect(MARGIN).toBeLessThanOrEqual(0.05);
	});

	it('counts only the last second, and the answers of the first burst read after its 429', async () => {
		const clock = new VirtualClock();
		const gate = gateOn(clock);
		const ticket = (await gate.acquire()) as GateTicket;
		for (let index = 0; index < 30; index++) gate.recordSuccess();
		clock.now = 2_000;
		for (let index = 0; index < 8; index++) gate.recordSuccess();
		gate.recordRateLimited(ticket, 1000);
		expect(gate.requestsPerSecond).toBe(8);
		// Two more answers of the same burst, read during the pause: the server accepted 10.
		clock.now = 2_002;
		gate.recordSuccess();
		gate.recordRateLimited(ticket, 1000);
		gate.recordSuccess();
		expect(gate.requestsPerSecond).toBe(10);
	});

	it('paces evenly: ten requests a second take about a second', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		const at = await starts(gate, clock, 11);
		expect(at[0]).toBe(1000); // after the Retry-After
		expect(at[10] - at[0]).toBeCloseTo(1000 / (1 - MARGIN), 6);
	});
});

describe('RateGate: Retry-After', () => {
	it('holds every request of the key until the pause is over; a later 429 can only lengthen it', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock); // paused until 1000
		gate.recordRateLimited({ pacing: 0 }, 3_000); // another answer of the first wave
		gate.recordRateLimited({ pacing: 0 }, 500);
		const at = await starts(gate, clock, 3);
		expect(at[0]).toBe(3_000);
		expect(at[1] - at[0]).toBeCloseTo(gate.spacingMs, 6);
	});

	it('lets a request already waiting for its turn go only after a pause that came meanwhile', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		let startedAt: number | undefined;
		void gate.acquire().then(() => (startedAt = clock.now));
		await clock.run(() => startedAt !== undefined, 999);
		expect(startedAt).toBeUndefined();
		gate.recordRateLimited({ pacing: 0 }, 5_000);
		await clock.run(() => startedAt !== undefined);
		expect(startedAt).toBe(5_999);
	});
});

describe('RateGate: jitter', () => {
	it('starts the first request after a pause within one spacing after it ends', async () => {
		for (const random of [0, 0.5, 0.999]) {
			const clock = new VirtualClock();
			const gate = await learnedGate(clock, () => random);
			const [first] = await starts(gate, clock, 1);
			expect(first).toBeGreaterThanOrEqual(1000);
			expect(first).toBeLessThan(1000 + gate.spacingMs);
			expect(first - 1000).toBeCloseTo(random * gate.spacingMs, 6);
		}
	});

	it('holds the budget for the hold give or take a quarter, never less, never more', async () => {
		for (const [random, factor] of [
			[0, 0.75],
			[0.999, 1.25],
		]) {
			const clock = new VirtualClock();
			const gate = await learnedGate(clock, () => random);
			const probeAt = await firstProbe(gate, clock);
			expect(probeAt - 1000).toBeGreaterThanOrEqual(HOLD_INITIAL_MS * 0.75 - 200);
			expect(probeAt - 1000).toBeLessThanOrEqual(HOLD_INITIAL_MS * factor + 200);
		}
	});
});

/** Keeps the key busy (one request always waiting) until the budget grows; says when it did. */
async function firstProbe(gate: RateGate, clock: VirtualClock): Promise<number> {
	const budget = gate.requestsPerSecond;
	let waiting = gate.acquire();
	for (;;) {
		const turn = waiting;
		waiting = gate.acquire();
		let started = false;
		void turn.then(() => (started = true));
		await clock.run(() => started);
		gate.release();
		gate.recordSuccess();
		if (gate.requestsPerSecond > budget) return clock.now;
	}
}

describe('RateGate: probing, one request per second more', () => {
	it('goes back after a probe a 429 answers, and probes ever more rarely while alone', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		const probedAt = await firstProbe(gate, clock);
		expect(gate.requestsPerSecond).toBe(11);
		clock.now = probedAt + 500;
		gate.recordRateLimited({ pacing: 1 }, 1000);
		expect(gate.requestsPerSecond).toBe(10);
		const again = await firstProbe(gate, clock);
		const doubled = Math.min(HOLD_MAX_MS, 2 * HOLD_INITIAL_MS);
		expect(again - (probedAt + 1500)).toBeGreaterThanOrEqual(doubled * 0.75 - 200);
		expect(doubled).toBeGreaterThan(HOLD_INITIAL_MS);
	});

	it('keeps a probe no 429 answers, and probes again soon, with bigger steps (there was room)', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		const probedAt = await firstProbe(gate, clock);
		const next = await firstProbe(gate, clock);
		expect(gate.requestsPerSecond).toBe(13);
		expect(next - probedAt).toBeLessThanOrEqual(PROBE_STEP_MS + 200);
		// The step that meets a 429 is taken back whole.
		clock.now = next + 100;
		gate.recordRateLimited({ pacing: 1 }, 1000);
		expect(gate.requestsPerSecond).toBe(11);
	});

	it('drops one request per second after a 429 met while holding, and then holds shorter', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		clock.now = 10_000;
		gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 1000);
		expect(gate.requestsPerSecond).toBe(9);
		const probedAt = await firstProbe(gate, clock);
		expect(probedAt - 11_000).toBeLessThanOrEqual(HOLD_MIN_MS * 1.25 + 200);
		expect(HOLD_MIN_MS).toBeLessThan(HOLD_INITIAL_MS);
		expect(CONTENDED_MS).toBeGreaterThanOrEqual(HOLD_MIN_MS);
	});

	it('learns again, from what got through, after a 429 right after resuming', async () => {
		const clock = new VirtualClock();
		const gate = gateOn(clock);
		const ticket = (await gate.acquire()) as GateTicket;
		// A first burst that straddled two of the server's windows: 20 "accepted in the last second".
		for (let index = 0; index < 20; index++) gate.recordSuccess();
		gate.recordRateLimited(ticket, 1000);
		expect(gate.requestsPerSecond).toBe(20);
		// Paced at 20 a second after the pause, the next window takes 10 and answers 429.
		for (clock.now = 1000; clock.now < 1500; clock.now += 50) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 1000);
		expect(gate.requestsPerSecond).toBe(10);
	});
});

describe('RateGate: a storm of 429s', () => {
	it('teaches nothing: the budget stays, and pacing resumes where it was', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		clock.now = 5_000;
		gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 1000); // the storm's first 429 comes after successes
		expect(gate.requestsPerSecond).toBe(9);
		const budget = gate.requestsPerSecond;
		for (let wave = 0; wave < 20; wave++) {
			const [ticket] = await tickets(gate, clock, 1);
			gate.recordRateLimited(ticket, 1000);
		}
		expect(gate.requestsPerSecond).toBe(budget);
		const [resumed] = await starts(gate, clock, 1);
		expect(resumed).toBeLessThan(clock.now + gate.spacingMs);
	});

	it('is over for the gate within seconds: 130 items, 20 s of only 429, then 10 per second', async () => {
		const { processes, clock } = await simulate({
			processes: 1,
			itemsPerProcess: 130,
			requestsPerSecond: 10,
			stormUntilMs: 20_000,
		});
		const [process] = processes;
		expect(process.accepted).toHaveLength(130);
		expect(process.accepted[0]).toBeGreaterThanOrEqual(20_000);
		// Within 3 s of the storm's end it runs at the limit again.
		expect(acceptedBetween(process, 23_000, 28_000)).toBeGreaterThanOrEqual(45);
		expect(clock.now).toBeLessThanOrEqual(1.2 * (130 / 10 + 20) * 1000);
	});

	it('probes gently meanwhile: about one request per Retry-After, not a herd', async () => {
		const simulation = await simulate({
			processes: 1,
			itemsPerProcess: 300,
			requestsPerSecond: 10,
			stormUntilMs: 20_000,
			untilMs: 19_000,
		});
		expect(simulation.refused).toBeLessThanOrEqual(INITIAL_WINDOW + 20);
	});
});

describe('RateGate: processes sharing one key (simulated time)', () => {
	it('one process paces at the limit, with 429s only from its first burst and rare probes', async () => {
		const { processes, clock, refused, requests } = await simulate({
			processes: 1,
			itemsPerProcess: 1000,
			requestsPerSecond: 10,
		});
		expect(processes[0].accepted).toHaveLength(1000);
		expect(clock.now).toBeLessThanOrEqual(105_000);
		expect(refused).toBeLessThanOrEqual(INITIAL_WINDOW + 5);
		expect(refused / requests).toBeLessThan(0.02);
	});

	it.each([2, 4])(
		'%i processes: together near the limit, none starving, few 429s (seeds 1 to 5)',
		async (count) => {
			for (let seed = 1; seed <= 5; seed++) {
				const { processes, refused, requests } = await simulate({
					processes: count,
					itemsPerProcess: 2000,
					requestsPerSecond: 10,
					untilMs: 120_000,
					seed,
				});
				// Once settled (60–120 s): most of the key's limit is used, every process keeps a share
				// (not an even one: the budgets move by whole requests per second), and few 429s.
				const rates = processes.map((process) => acceptedBetween(process, 60_000, 120_000) / 60);
				expect(rates.reduce((sum, rate) => sum + rate, 0)).toBeGreaterThanOrEqual(8.5);
				for (const rate of rates) expect(rate).toBeGreaterThanOrEqual((0.4 * 10) / count);
				expect(refused / requests).toBeLessThanOrEqual(0.06);
			}
		},
		30_000,
	);
});

describe('RateGate: idle', () => {
	it('starts unpaced again after a minute without traffic', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		await starts(gate, clock, 1);
		expect(gate.spacingMs).toBeGreaterThan(0);
		clock.now += 61_000;
		await starts(gate, clock, 1);
		expect(gate.spacingMs).toBe(0);
	});
});

describe('RateGate: a connection awaited past the deadline', () => {
	it('gives up at the deadline instead of waiting for the holder, and takes no connection', async () => {
		const gate = new RateGate();
		expect(await gate.acquire(1)).toBeDefined();
		await expect(gate.acquire(1, Date.now() + 150)).resolves.toBeUndefined();
		gate.release();
		expect(gate.inFlight).toBe(0);
	});

	it('gives no turn that would come after the deadline', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		expect(await gate.acquire(Infinity, 500)).toBeUndefined(); // the pause lasts until 1000
		expect(gate.inFlight).toBe(0);
	});
});

describe('rateGateFor: one gate per key, idle ones dropped', () => {
	it('keeps a busy gate and drops gates idle for more than a minute when a new key comes', async () => {
		const busy = rateGateFor('busy-key');
		const ticket = await busy.acquire(1, Date.now() + 1000);
		expect(ticket).toBeDefined();
		for (let i = 0; i < 50; i += 1) rateGateFor(`borrower-${i}`);
		expect(gateCount()).toBeGreaterThanOrEqual(51);

		rateGateFor('one-more', Date.now() + 61_000);
		expect(gateCount()).toBe(2); // the busy gate and the new one
		expect(rateGateFor('busy-key')).toBe(busy);
		busy.release();
	});
});
