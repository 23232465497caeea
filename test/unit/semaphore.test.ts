import type { StopWatch } from '../../nodes/LendasatBorrower/transport/clock';
import { Semaphore } from '../../nodes/LendasatBorrower/transport/semaphore';

/** `work` once it has a slot, which it gives back when it ends, as the exchange does around a send. */
async function run<T>(semaphore: Semaphore, limit: number, work: () => Promise<T>): Promise<T> {
	const release = await semaphore.take(limit);
	if (!release) throw new Error('no slot, with nothing to end the wait');
	try {
		return await work();
	} finally {
		release();
	}
}

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

describe('Semaphore: requests on the wire at once across the keys of a run', () => {
	it('runs at most the limit at once, the others in the order they came', async () => {
		const semaphore = new Semaphore();
		const started: string[] = [];
		const works = ['a', 'b', 'c', 'd', 'e'].map((name) => pending(started, name));
		const results = works.map((each) => run(semaphore, 2, each.work));
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
			run(semaphore, 1, async () => {
				throw new Error('refused');
			}),
		).rejects.toThrow('refused');
		expect(semaphore.inFlight).toBe(0);
		expect(await run(semaphore, 1, async () => 'next')).toBe('next');
	});

	it('keeps the order when callers bring different limits: a later one with a higher limit does not overtake', async () => {
		const semaphore = new Semaphore();
		const started: string[] = [];
		const first = pending(started, 'first');
		const narrow = pending(started, 'narrow');
		const wide = pending(started, 'wide');
		const runs = [
			run(semaphore, 4, first.work),
			run(semaphore, 1, narrow.work),
			run(semaphore, 4, wide.work),
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

	it('gives a slot back once only, however often its release is called', async () => {
		const semaphore = new Semaphore();
		const release = await semaphore.take(2);
		await semaphore.take(2);
		release?.();
		release?.();
		expect(semaphore.inFlight).toBe(1);
	});

	it('ends a wait when its watch says stop: no slot is taken, and those behind it move up', async () => {
		const semaphore = new Semaphore();
		const holder = await semaphore.take(2);
		const asked: string[] = [];
		let stop = () => {};
		const narrow = semaphore.take(1, (stopWaiting) => {
			asked.push('narrow');
			stop = stopWaiting;
			return () => asked.push('unwatched');
		});
		let wide: (() => void) | undefined;
		void semaphore.take(2).then((release) => (wide = release));
		await settle();
		// 'wide' could start (one of two is taken) but waits behind 'narrow', first come first served.
		expect(wide).toBeUndefined();
		expect(asked).toEqual(['narrow']);

		stop();
		expect(await narrow).toBeUndefined();
		await settle();
		expect(wide).toBeDefined();
		expect(semaphore.inFlight).toBe(2);
		holder?.();
		wide?.();
		expect(semaphore.inFlight).toBe(0);
	});

	it('stops watching a wait that is given its slot', async () => {
		const semaphore = new Semaphore();
		const holder = await semaphore.take(1);
		const watch: string[] = [];
		const waiting = semaphore.take(1, () => {
			watch.push('started');
			return () => watch.push('stopped');
		});
		await settle();
		expect(watch).toEqual(['started']);
		holder?.();
		const release = await waiting;
		expect(release).toBeDefined();
		expect(watch).toEqual(['started', 'stopped']);
		release?.();
	});

	it('starts the watch only when it has to wait, and refuses at once when it stops at once', async () => {
		const semaphore = new Semaphore();
		const asked: number[] = [];
		const stoppingAtOnce =
			(asker: number): StopWatch =>
			(stop) => {
				asked.push(asker);
				stop();
				return () => {};
			};
		const first = await semaphore.take(1, stoppingAtOnce(1));
		expect(first).toBeDefined();
		expect(await semaphore.take(1, stoppingAtOnce(2))).toBeUndefined();
		expect(asked).toEqual([2]);
		expect(semaphore.inFlight).toBe(1);
	});
});
