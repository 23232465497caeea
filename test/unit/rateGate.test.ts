import {
	MARGIN,
	PROBE_EVERY_MS,
	PROBE_STEP,
	RateGate,
	SLOWDOWN,
	gateCount,
	rateGateFor,
} from '../../nodes/LendasatBorrower/transport/rateGate';

/** Whether `promise` is still pending after `ms` of real time. */
async function stillPending(promise: Promise<unknown>, ms: number): Promise<boolean> {
	const pending = Symbol('pending');
	const first = await Promise.race([
		promise,
		new Promise((resolve) => setTimeout(() => resolve(pending), ms)),
	]);
	return first === pending;
}

/** A gate that has learned a spacing of 100 ms × (1 + MARGIN) from a first burst of 10 accepted requests. */
function pacedGate(clock: { now: number }): RateGate {
	const gate = new RateGate(() => clock.now);
	for (let i = 0; i < 10; i++) gate.recordSuccess();
	gate.recordRateLimited({ pacing: 0 }, 0);
	return gate;
}

describe('RateGate', () => {
	it('lets requests through unpaced until the first 429', async () => {
		const gate = new RateGate(() => 1_000);
		expect(await gate.acquire()).toEqual({ pacing: 0 });
		expect(await gate.acquire()).toEqual({ pacing: 0 });
		expect(gate.spacingMs).toBe(0);
	});

	it('learns the accepted rate from the first 429 and spaces requests a margin wider', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 20; i++) gate.recordSuccess();
		now = 1_010;
		gate.recordRateLimited({ pacing: 0 }, 1_000);
		expect(MARGIN).toBeGreaterThan(0);
		expect(MARGIN).toBeLessThanOrEqual(0.05);
		expect(gate.spacingMs).toBeCloseTo(50 * (1 + MARGIN), 9);
	});

	it('counts only what the server accepted in the last second', () => {
		let now = 0;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 30; i++) gate.recordSuccess();
		now = 2_000;
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 1_000);
		expect(gate.spacingMs).toBeCloseTo(100 * (1 + MARGIN), 9);
	});

	it('pauses every request of the key for the Retry-After of a 429', async () => {
		const clock = { now: 0 };
		const gate = new RateGate(() => clock.now);
		gate.recordRateLimited({ pacing: 0 }, 40);
		const waiting = gate.acquire();
		expect(await stillPending(waiting, 10)).toBe(true);
		clock.now = 40;
		expect(await waiting).toEqual({ pacing: 1 });
		// A later 429 of the same wave (same pacing) lengthens the pause without slowing twice.
		const spacing = gate.spacingMs;
		gate.recordRateLimited({ pacing: 0 }, 30);
		expect(gate.spacingMs).toBe(spacing);
		const next = gate.acquire();
		expect(await stillPending(next, 10)).toBe(true);
		clock.now = 70;
		await next;
	});

	it('counts the successes of the first burst that are read after its first 429', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 8; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 1_000);
		expect(gate.spacingMs).toBeCloseTo(125 * (1 + MARGIN), 9);
		// Two more answers of the same burst, read during the pause: the server accepted 10.
		now = 1_002;
		gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 1_000);
		gate.recordSuccess();
		expect(gate.spacingMs).toBeCloseTo(100 * (1 + MARGIN), 9);
		// After the pause, successes are of the new pacing and change nothing.
		now = 2_500;
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		expect(gate.spacingMs).toBeCloseTo(100 * (1 + MARGIN), 9);
	});

	it('counts a burst of 429s from one wave of requests as one slowdown', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		now = 1_020;
		gate.recordRateLimited({ pacing: 0 }, 500);
		const afterFirst = gate.spacingMs;
		gate.recordRateLimited({ pacing: 0 }, 500);
		gate.recordRateLimited({ pacing: 0 }, 500);
		expect(gate.spacingMs).toBe(afterFirst);
	});

	it('sends a request queued under an old pacing to the back of the new queue', async () => {
		let now = 0;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 5);
		const queued = gate.acquire();
		gate.recordRateLimited({ pacing: 1 }, 10);
		now = 50;
		expect(await queued).toEqual({ pacing: 2 });
	});

	it('corrects a guess that was too fast (a first burst straddling two server windows) in one step', () => {
		let now = 0;
		const gate = new RateGate(() => now);
		// 20 accepted across the boundary of two 1-second windows of a 10-per-second limit.
		for (let i = 0; i < 20; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 1_000);
		expect(gate.spacingMs).toBeCloseTo(50 * (1 + MARGIN), 9);
		// Paced at 20 per second after the pause, the next window fills after 10 and answers 429.
		now = 1_000;
		for (let i = 0; i < 10; i++) {
			gate.recordSuccess();
			now += 50;
		}
		gate.recordRateLimited({ pacing: 1 }, 1_000);
		expect(gate.spacingMs).toBeCloseTo(100 * (1 + MARGIN), 9);
	});

	it('widens the spacing a little, not to a guess below it, on a 429 while keeping the margin', () => {
		const clock = { now: 0 };
		const gate = pacedGate(clock);
		const learned = gate.spacingMs;
		clock.now = 5_000;
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 1_000);
		expect(SLOWDOWN).toBeLessThanOrEqual(0.05);
		expect(gate.spacingMs).toBeCloseTo(learned * (1 + SLOWDOWN), 9);
	});

	it('does not speed up per success: it stays just under the learned rate', () => {
		const clock = { now: 0 };
		const gate = pacedGate(clock);
		const learned = gate.spacingMs;
		// 20 seconds of successes at the learned pace: not a single step faster.
		for (let i = 0; i < 200; i++) {
			clock.now += 100;
			gate.recordSuccess();
		}
		expect(PROBE_EVERY_MS).toBeGreaterThan(20_000);
		expect(gate.spacingMs).toBe(learned);
	});

	it('probes upward by one small step per long stretch without a 429', () => {
		const clock = { now: 0 };
		const gate = pacedGate(clock);
		const learned = gate.spacingMs;
		clock.now = PROBE_EVERY_MS;
		gate.recordSuccess();
		expect(gate.spacingMs).toBeCloseTo(learned * (1 - PROBE_STEP), 9);
		expect(PROBE_STEP).toBeLessThanOrEqual(0.01);
		// The next step only after another full stretch.
		clock.now = PROBE_EVERY_MS * 1.5;
		for (let i = 0; i < 50; i++) gate.recordSuccess();
		expect(gate.spacingMs).toBeCloseTo(learned * (1 - PROBE_STEP), 9);
		clock.now = PROBE_EVERY_MS * 2;
		gate.recordSuccess();
		expect(gate.spacingMs).toBeCloseTo(learned * (1 - PROBE_STEP) ** 2, 9);
	});

	it('starts the probing clock again at every slowdown, from the end of its pause', () => {
		const clock = { now: 0 };
		const gate = pacedGate(clock);
		clock.now = PROBE_EVERY_MS - 1_000;
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 1_000);
		const slowed = gate.spacingMs;
		clock.now = 2 * PROBE_EVERY_MS - 1;
		gate.recordSuccess();
		expect(gate.spacingMs).toBe(slowed);
		clock.now = 2 * PROBE_EVERY_MS;
		gate.recordSuccess();
		expect(gate.spacingMs).toBeCloseTo(slowed * (1 - PROBE_STEP), 9);
	});

	it('starts unpaced again after a minute without traffic', async () => {
		const clock = { now: 1_000 };
		const gate = pacedGate(clock);
		await gate.acquire();
		expect(gate.spacingMs).toBeGreaterThan(0);
		clock.now = 62_001;
		await gate.acquire();
		expect(gate.spacingMs).toBe(0);
	});
});

describe('RateGate: a connection awaited past the deadline', () => {
	it('gives up at the deadline instead of waiting for the holder, and takes no connection', async () => {
		const gate = new RateGate();
		expect(await gate.acquire(1)).toBeDefined();
		const started = Date.now();
		await expect(gate.acquire(1, Date.now() + 150)).resolves.toBeUndefined();
		expect(Date.now() - started).toBeLessThan(1000);
		gate.release();
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
