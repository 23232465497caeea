import {
	DECREASE,
	HOLD_MAX_MS,
	HOLD_MIN_MS,
	INITIAL_WINDOW,
	MARGIN,
	MIN_RATE,
	PROBE_MS,
	RateGate,
	RateGates,
	SHARED_MS,
	rateGateFor,
	type GateTicket,
} from '../../nodes/LendasatBorrower/transport/rateGate';
import { Cancellation } from '../../nodes/LendasatBorrower/transport/cancellation';
import { systemClock } from '../../nodes/LendasatBorrower/transport/clock';
import { VirtualClock, acceptedBetween, simulate } from '../helpers/rateSimulation';

/** A gate on a clock of its own; `random` is its jitter (0 = none). */
function gateOn(clock: VirtualClock, random = () => 0): RateGate {
	return new RateGate(clock.asClock(random));
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

/** A gate that has learned a rate of 10 per second from a first burst (10 accepted, then a 429). */
async function learnedGate(clock: VirtualClock, random = () => 0): Promise<RateGate> {
	const gate = gateOn(clock, random);
	const ticket = (await gate.acquire()) as GateTicket;
	gate.release();
	for (let index = 0; index < 10; index++) gate.recordSuccess();
	gate.recordRateLimited(ticket, 1000);
	return gate;
}

describe('RateGate: before the first 429', () => {
	it('sends unpaced, at first one request in flight, one more per two successes', async () => {
		const clock = new VirtualClock();
		const gate = gateOn(clock);
		expect(INITIAL_WINDOW).toBe(1);
		const first = await gate.acquire();
		expect(gate.spacingMs).toBe(0);
		let second = false;
		void gate.acquire().then(() => (second = true));
		await clock.run(() => second, 10_000);
		expect(second).toBe(false); // the window is full until an answer comes back
		gate.recordSuccess(); // the window is now 1.5: room for a second request
		await clock.run(() => second, 10_000);
		expect(second).toBe(true);
		expect(gate.inFlight).toBe(2);
		expect(first).toBeDefined();
		gate.release();
		gate.release();
		// Paced or not, the first requests start at once.
		expect(await starts(gate, clock, 1)).toEqual([clock.now]);
	});
});

describe('RateGate: the first rate', () => {
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
		expect(at[0]).toBeCloseTo(gate.spacingMs, 6); // after a brief pause (no jitter here)
		expect(at[10] - at[0]).toBeCloseTo(1000 / (1 - MARGIN), 6);
	});
});

describe('RateGate: pauses after a 429', () => {
	it('pauses the key a spacing or two (jittered), past the full window, not the whole Retry-After', async () => {
		for (const random of [0, 0.5, 0.999]) {
			const clock = new VirtualClock();
			const gate = await learnedGate(clock, () => random);
			const [first] = await starts(gate, clock, 1);
			expect(first).toBeCloseTo((1 + random) * gate.spacingMs, 6);
			expect(first).toBeLessThan(1000);
		}
	});

	it('ignores the 429s of requests sent before it reacted (the same event)', async () => {
		const clock = new VirtualClock();
		clock.now = 5_000;
		const gate = await learnedGate(clock);
		clock.now = 5_200;
		gate.recordRateLimited({ pacing: 0 }, 3_000);
		expect(gate.requestsPerSecond).toBe(10);
		const [first] = await starts(gate, clock, 1);
		expect(first).toBe(5_200);
	});

	it('waits out the Retry-After when 429s keep coming with nothing getting through', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		let startedAt: number | undefined;
		void gate.acquire().then(() => (startedAt = clock.now));
		gate.recordRateLimited({ pacing: 1 }, 5_000); // once more: still brief
		await clock.run(() => startedAt !== undefined);
		expect(startedAt).toBeLessThan(1000);
		gate.release();
		startedAt = undefined;
		const at = clock.now;
		void gate.acquire().then(() => (startedAt = clock.now));
		gate.recordRateLimited({ pacing: 2 }, 5_000); // a third time: the server refuses everything
		await clock.run(() => startedAt !== undefined);
		expect(startedAt).toBe(at + 5_000);
		expect(gate.requestsPerSecond).toBe(10); // which teaches nothing about its rate
	});
});

describe('RateGate: jitter', () => {
	it('holds the rate for the hold give or take half, never less, never more', async () => {
		for (const [random, factor] of [
			[0, 0.5],
			[0.999, 1.5],
		]) {
			const clock = new VirtualClock();
			const gate = await learnedGate(clock, () => random);
			const probeAt = await firstProbe(gate, clock);
			expect(probeAt).toBeGreaterThanOrEqual(HOLD_MIN_MS * factor);
			expect(probeAt).toBeLessThanOrEqual(HOLD_MIN_MS * factor + 2 * gate.spacingMs + 200);
		}
	});
});

/** Keeps the key busy (one request always waiting) until the rate grows; says when it did. */
async function firstProbe(gate: RateGate, clock: VirtualClock): Promise<number> {
	const rate = gate.requestsPerSecond;
	let waiting = gate.acquire();
	for (;;) {
		const turn = waiting;
		waiting = gate.acquire();
		let started = false;
		void turn.then(() => (started = true));
		await clock.run(() => started);
		gate.release();
		gate.recordSuccess();
		if (gate.requestsPerSecond > rate) return clock.now;
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
		// No jitter: half the hold, which doubled.
		expect(again - (probedAt + 500)).toBeGreaterThanOrEqual(HOLD_MIN_MS);
		expect(HOLD_MAX_MS).toBeGreaterThan(2 * HOLD_MIN_MS);
	});

	it('keeps a probe no 429 answers, and probes again at once, with twice the step (there was room)', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		const probedAt = await firstProbe(gate, clock);
		const next = await firstProbe(gate, clock);
		expect(gate.requestsPerSecond).toBe(13);
		expect(next - probedAt).toBeLessThanOrEqual(PROBE_MS + 200);
		const third = await firstProbe(gate, clock);
		expect(gate.requestsPerSecond).toBe(17);
		expect(third - next).toBeLessThanOrEqual(PROBE_MS + 200);
		// The step that meets a 429 is taken back whole.
		clock.now = third + 100;
		gate.recordRateLimited({ pacing: 1 }, 1000);
		expect(gate.requestsPerSecond).toBe(13);
	});

	it('gives up a share after a 429 met while holding (another process took more), and keeps probing while shared', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		clock.now = 10_000;
		gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 1000);
		expect(gate.requestsPerSecond).toBeCloseTo(10 * DECREASE, 9);
		const probedAt = await firstProbe(gate, clock);
		expect(probedAt - 10_000).toBeLessThanOrEqual(HOLD_MIN_MS * 0.5 + 500);
		// Its probe meets a 429: taken back, and while the key is shared the hold does not grow.
		clock.now = probedAt + 500;
		gate.recordRateLimited({ pacing: 2 }, 1000);
		const again = await firstProbe(gate, clock);
		expect(again - clock.now).toBeLessThanOrEqual(HOLD_MIN_MS + 500);
		expect(again - (probedAt + 500)).toBeLessThan(SHARED_MS);
	});

	it('after a first burst of which nothing got through: climbs from one per second, then learns', async () => {
		const clock = new VirtualClock();
		const gate = gateOn(clock);
		const ticket = (await gate.acquire()) as GateTicket;
		gate.release();
		gate.recordRateLimited(ticket, 1000);
		expect(gate.requestsPerSecond).toBe(MIN_RATE);
		// Requests get through again: the rate doubles every half second, never far ahead of them.
		for (clock.now = 1000; clock.now <= 3000; clock.now += 100) gate.recordSuccess();
		expect(gate.requestsPerSecond).toBeGreaterThan(10);
		expect(gate.requestsPerSecond).toBeLessThanOrEqual(2 * 10 + 1);
		// The next 429 teaches the rate from what got through (averaged over two seconds).
		gate.recordRateLimited({ pacing: 1 }, 1000);
		expect(gate.requestsPerSecond).toBe(19 / 2); // 19 successes in the last two seconds
	});
});

describe('RateGate: a storm of 429s', () => {
	it('teaches nothing: the rate stays, and pacing resumes where it was', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		clock.now = 5_000;
		gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 1000); // the storm's first 429 comes after successes
		expect(gate.requestsPerSecond).toBeCloseTo(10 * DECREASE, 9);
		const rate = gate.requestsPerSecond;
		for (let wave = 0; wave < 20; wave++) {
			const [ticket] = await tickets(gate, clock, 1);
			gate.recordRateLimited(ticket, 1000);
		}
		expect(gate.requestsPerSecond).toBe(rate);
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
		// Within 3 s of the storm's end it runs near the limit again.
		expect(acceptedBetween(process, 23_000, 28_000)).toBeGreaterThanOrEqual(40);
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
		expect(simulation.refused).toBeLessThanOrEqual(25);
	});
});

describe('RateGate: processes sharing one key (simulated time, the shape of bench scenario 7)', () => {
	it('one process: 1,000 items within 1.05 × the floor, 429s only from its first burst and rare probes', async () => {
		for (let seed = 1; seed <= 3; seed++) {
			const { processes, clock, refused, refusedShare } = await simulate({
				processes: 1,
				itemsPerProcess: 1000,
				requestsPerSecond: 10,
				seed,
			});
			expect(processes[0].accepted).toHaveLength(1000);
			expect(clock.now).toBeLessThanOrEqual(105_000);
			expect(refused).toBeLessThanOrEqual(25);
			expect(refusedShare).toBeLessThan(0.025);
		}
	});

	// Measured on seeds 1–5: 2 processes 0.907–0.928 of the limit with 4.2–4.6 % answers 429;
	// 4 processes 0.895–0.921 with 8–10 %. The target of at most 5 % 429s is met with 2
	// processes, not with 4: every probe of a process that shares the key costs a 429 or two.
	it.each([
		[2, 0.9, 0.05],
		[4, 0.89, 0.11],
	])(
		'%i processes, 1,000 items in all: together at least %d of the limit, 429s at most %d of requests',
		async (count, throughput, refusals) => {
			for (let seed = 1; seed <= 5; seed++) {
				const simulation = await simulate({
					processes: count,
					itemsPerProcess: 1000 / count,
					requestsPerSecond: 10,
					untilMs: 300_000,
					seed,
				});
				expect(simulation.done).toBe(1000);
				expect(simulation.throughputRatio).toBeGreaterThanOrEqual(throughput);
				expect(simulation.refusedShare).toBeLessThanOrEqual(refusals);
			}
		},
		30_000,
	);

	it('a process left alone takes the freed rate back within seconds', async () => {
		for (let seed = 1; seed <= 5; seed++) {
			const { processes } = await simulate({
				processes: 2,
				itemsPerProcess: [150, 600],
				requestsPerSecond: 10,
				seed,
			});
			const [first, second] = processes;
			const finished = first.finishedAt as number;
			// 10–20 s after the other finished, most of the limit is this process's.
			expect(acceptedBetween(second, finished + 10_000, finished + 20_000)).toBeGreaterThanOrEqual(
				65,
			);
		}
	});
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

	it('starts unpaced again, at once, when the clock was set back', async () => {
		const clock = new VirtualClock();
		clock.now = 10 * 86_400_000;
		const gate = await learnedGate(clock);
		await starts(gate, clock, 5);
		clock.now -= 86_400_000;
		const setBackAt = clock.now;
		expect(await gate.acquire(Infinity, setBackAt + 1000)).toBeDefined();
		expect(clock.now).toBe(setBackAt);
		expect(gate.spacingMs).toBe(0);
		gate.release();
	});
});

describe('RateGate: a connection awaited past the deadline', () => {
	it('gives up at the deadline instead of waiting for the holder, and takes no connection', async () => {
		const clock = new VirtualClock();
		const gate = gateOn(clock);
		expect(await gate.acquire(1)).toBeDefined();
		let outcome: 'waiting' | 'gave up' | 'connected' = 'waiting';
		void gate.acquire(1, 150).then((ticket) => (outcome = ticket ? 'connected' : 'gave up'));
		await clock.run(() => false, 149);
		expect(outcome).toBe('waiting');
		await clock.run(() => outcome !== 'waiting');
		expect(outcome).toBe('gave up');
		expect(clock.now).toBe(150);
		gate.release();
		expect(gate.inFlight).toBe(0);
	});

	it('gives no turn that would come after the deadline', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		expect(await gate.acquire(Infinity, 50)).toBeUndefined(); // the pause lasts a spacing
		expect(gate.inFlight).toBe(0);
	});
});

describe('RateGate: a cancelled run', () => {
	it('gets no connection: the wait for one ends at once, and none is taken', async () => {
		const clock = new VirtualClock();
		const gate = gateOn(clock);
		expect(await gate.acquire(1)).toBeDefined();
		const run = new AbortController();
		let outcome: 'waiting' | 'gave up' | 'connected' = 'waiting';
		void gate
			.acquire(1, Infinity, new Cancellation(run.signal))
			.then((ticket) => (outcome = ticket ? 'connected' : 'gave up'));
		await clock.run(() => false);
		clock.now = 500;
		expect(outcome).toBe('waiting');
		run.abort();
		await clock.run(() => outcome !== 'waiting');
		expect(outcome).toBe('gave up');
		expect(clock.now).toBe(500);
		gate.release();
		expect(gate.inFlight).toBe(0);
	});

	it('gets no turn: a request paced seconds ahead stops waiting at once, the others keep their turns', async () => {
		const clock = new VirtualClock();
		const gate = await learnedGate(clock);
		const run = new AbortController();
		let cancelledOutcome: 'waiting' | 'gave up' | 'turn' = 'waiting';
		void gate
			.acquire(Infinity, Infinity, new Cancellation(run.signal))
			.then((ticket) => (cancelledOutcome = ticket ? 'turn' : 'gave up'));
		let otherTurn: number | undefined;
		void gate.acquire().then(() => (otherTurn = clock.now));
		await clock.run(() => false, 10);
		expect(cancelledOutcome).toBe('waiting'); // the pause after the 429 lasts a spacing
		run.abort();
		await clock.run(() => cancelledOutcome !== 'waiting');
		expect(cancelledOutcome).toBe('gave up');
		expect(clock.now).toBe(10);
		expect(gate.inFlight).toBe(1);
		await clock.run(() => otherTurn !== undefined);
		// The other request moves up to the turn the cancelled one would have had.
		expect(otherTurn).toBeLessThanOrEqual(gate.spacingMs);
		gate.release();
	});

	it('was cancelled before it asked: nothing is given', async () => {
		const gate = gateOn(new VirtualClock());
		expect(
			await gate.acquire(Infinity, Infinity, new Cancellation(AbortSignal.abort())),
		).toBeUndefined();
		expect(gate.inFlight).toBe(0);
	});
});

describe('rateGateFor: one gate per key, idle ones dropped', () => {
	it('keeps a busy gate and drops gates idle for more than a minute when a new key comes', async () => {
		const busy = rateGateFor('busy-key');
		const ticket = await busy.acquire(1, Date.now() + 1000);
		expect(ticket).toBeDefined();
		const idle = Array.from({ length: 50 }, (_, i) => rateGateFor(`borrower-${i}`));
		expect(idle.map((gate, i) => rateGateFor(`borrower-${i}`) === gate)).not.toContain(false);

		const aMinuteLater = { ...systemClock, now: () => Date.now() + 61_000 };
		rateGateFor('one-more', aMinuteLater);
		expect(idle.map((gate, i) => rateGateFor(`borrower-${i}`) === gate)).not.toContain(true);
		expect(rateGateFor('busy-key')).toBe(busy);
		busy.release();
	});
});

describe("RateGates: finding or making a key's gate costs the same however many keys there are", () => {
	afterEach(() => jest.restoreAllMocks());

	it('looks the gates over when their number has doubled, not at every new key: 20,000 keys, fewer than 40,000 looks', () => {
		const looks = jest.spyOn(RateGate.prototype, 'isForgettable');
		const clock = new VirtualClock();
		const gates = new RateGates();
		for (let index = 0; index < 20_000; index++)
			gates.gateFor(`borrower-${index}`, clock.asClock());
		expect(gates.size).toBe(20_000);
		// Every sweep looks at each gate once; one at every new key would be about 200 million looks.
		expect(looks.mock.calls.length).toBeLessThan(2 * 20_000);
		expect(looks).toHaveBeenCalled();
	});

	it('still drops the gates idle for more than a minute, and keeps a busy one', async () => {
		const clock = new VirtualClock();
		const gates = new RateGates();
		const busy = gates.gateFor('busy-key', clock.asClock());
		await busy.acquire();
		const idle = Array.from({ length: 1_000 }, (_, index) =>
			gates.gateFor(`borrower-${index}`, clock.asClock()),
		);
		clock.now = 61_000;
		// New keys keep coming: the gates from a minute ago go with the next look, the busy one stays.
		const looks = jest.spyOn(RateGate.prototype, 'isForgettable');
		gates.gateFor('one-more', clock.asClock());
		expect(looks.mock.calls.length).toBe(1 + 1_000);
		expect(gates.size).toBe(2);
		expect(gates.gateFor('busy-key', clock.asClock())).toBe(busy);
		expect(gates.gateFor('borrower-0', clock.asClock())).not.toBe(idle[0]);
		busy.release();
	});

	it('keeps memory bounded while new keys keep coming: never more than twice the gates in use, plus those of the last minute', () => {
		const clock = new VirtualClock();
		const gates = new RateGates();
		let most = 0;
		for (let index = 0; index < 10_000; index++) {
			clock.now = index * 100; // a new key every 100 ms: 600 a minute
			gates.gateFor(`borrower-${index}`, clock.asClock());
			most = Math.max(most, gates.size);
		}
		expect(most).toBeLessThanOrEqual(2 * 2 * 600);
	});
});
