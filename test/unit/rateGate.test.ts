import { RateGate } from '../../nodes/LendasatBorrower/shared/rateGate';

describe('RateGate', () => {
	it('lets requests through unpaced until the first 429', async () => {
		const gate = new RateGate(() => 1_000);
		expect(await gate.acquire()).toEqual({ pacing: 0 });
		expect(await gate.acquire()).toEqual({ pacing: 0 });
		expect(gate.spacingMs).toBe(0);
	});

	it('learns the accepted rate from a 429 and pauses everyone for Retry-After', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 20; i++) gate.recordSuccess();
		now = 1_010;
		gate.recordRateLimited({ pacing: 0 }, 1_000);
		expect(gate.spacingMs).toBe(50);
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

	it('speeds up again while the server keeps accepting', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 0);
		const slowed = gate.spacingMs;
		now += 5_000;
		for (let i = 0; i < 50; i++) gate.recordSuccess();
		expect(gate.spacingMs).toBeLessThan(slowed);
	});

	it('slows an already paced queue by a tenth, not to a guess below the accepted rate', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 0);
		expect(gate.spacingMs).toBe(100);
		now += 2_000;
		for (let i = 0; i < 5; i++) gate.recordSuccess();
		const before = gate.spacingMs;
		now += 2_000;
		for (let i = 0; i < 20; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 1 }, 0);
		expect(gate.spacingMs).toBeCloseTo(Math.max(before * 0.99 ** 20 * 1.1, 1000 / 20), 6);
	});

	it('does not speed up while requests wait for their turn', async () => {
		let now = 0;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		gate.recordRateLimited({ pacing: 0 }, 20);
		const spacing = gate.spacingMs;
		const waiting = gate.acquire();
		gate.recordSuccess();
		expect(gate.spacingMs).toBe(spacing);
		now = 20;
		await waiting;
		gate.recordSuccess();
		expect(gate.spacingMs).toBeLessThan(spacing);
	});
});
