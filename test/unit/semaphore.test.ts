import { Semaphore } from '../../nodes/LendasatBorrower/transport/semaphore';

/** Work that runs until `finish` is called, recording when it started. */
function pending(started: string[], name: string) {
	let finish = () => {};
	const done = new Promise<void>((resolve) => {
		finish = resolve;
	});
	return {
		work: async () => {
			started.push(name);
			await done;
			return name;
		},
		finish: () => finish(),
	};
}

/** Lets every promise that can settle now settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore: work under way at once across the keys of a run', () => {
	it('runs at most the limit at once, the others in the order they came', async () => {
		const semaphore = new Semaphore();
		const started: string[] = [];
		const works = ['a', 'b', 'c', 'd', 'e'].map((name) => pending(started, name));
		const results = works.map((each) => semaphore.run(2, each.work));
		await settle();
		expect(started).toEqual(['a', 'b']);
		expect(semaphore.inFlight).toBe(2);

		works[1].finish();
		await settle();
		expect(started).toEqual(['a', 'b', 'c']);
		works[0].finish();
		works[2].finish();
		await settle();
		expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
		works[3].finish();
		works[4].finish();
		expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd', 'e']);
		expect(semaphore.inFlight).toBe(0);
	});

	it('gives the place back when the work fails', async () => {
		const semaphore = new Semaphore();
		await expect(
			semaphore.run(1, async () => {
				throw new Error('refused');
			}),
		).rejects.toThrow('refused');
		expect(semaphore.inFlight).toBe(0);
		expect(await semaphore.run(1, async () => 'next')).toBe('next');
	});

	it('keeps the order when callers bring different limits: a later one with a higher limit does not overtake', async () => {
		const semaphore = new Semaphore();
		const started: string[] = [];
		const first = pending(started, 'first');
		const narrow = pending(started, 'narrow');
		const wide = pending(started, 'wide');
		const runs = [
			semaphore.run(4, first.work),
			semaphore.run(1, narrow.work),
			semaphore.run(4, wide.work),
		];
		await settle();
		// 'narrow' waits for fewer than 1 under way; 'wide' waits behind it.
		expect(started).toEqual(['first']);
		first.finish();
		await settle();
		expect(started).toEqual(['first', 'narrow', 'wide']);
		narrow.finish();
		wide.finish();
		await Promise.all(runs);
	});
});
