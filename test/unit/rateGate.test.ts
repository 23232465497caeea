import { RateGate } from '../../nodes/LendasatBorrower/shared/rateGate';

describe('RateGate', () => {
	it('lets requests through unpaced until the first 429', async () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		expect(await gate.acquire()).toBe(1_000);
		expect(await gate.acquire()).toBe(1_000);
		expect(gate.spacingMs).toBe(0);
	});

	it('learns the accepted rate from a 429 and pauses everyone for Retry-After', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 20; i++) gate.recordSuccess();
		now = 1_010;
		gate.recordRateLimited(1_005, 1_000, 500);
		expect(gate.spacingMs).toBe(50);
	});

	it('counts a burst of 429s from one wave of requests as one slowdown', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		for (let i = 0; i < 10; i++) gate.recordSuccess();
		now = 1_020;
		gate.recordRateLimited(1_000, undefined, 500);
		const afterFirst = gate.spacingMs;
		gate.recordRateLimited(1_001, undefined, 500);
		gate.recordRateLimited(1_002, undefined, 500);
		expect(gate.spacingMs).toBe(afterFirst);
	});

	it('speeds up again while the server keeps accepting', () => {
		let now = 1_000;
		const gate = new RateGate(() => now);
		gate.recordSuccess();
		gate.recordRateLimited(now, undefined, 0);
		const slowed = gate.spacingMs;
		now += 5_000;
		for (let i = 0; i < 50; i++) gate.recordSuccess();
		expect(gate.spacingMs).toBeLessThan(slowed);
	});
});
