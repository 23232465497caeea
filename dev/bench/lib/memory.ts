import type { MemoryFigures } from './types';

const SAMPLE_EVERY_MS = 5;

function held(): number {
	const { heapUsed, external } = process.memoryUsage();
	return heapUsed + external;
}

/** Full collections (the contender runs with --expose-gc), so the baseline holds live data only. */
function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run the contender with --expose-gc');
	gc();
	gc();
}

/**
 * Measures memory while `work` runs, as growth over the same measure after a full collection before it:
 * - peak: heapUsed + external, sampled every few milliseconds and once more after the run while its
 *   result is still referenced. It includes garbage V8 had not collected yet, so it depends on when
 *   V8 chose to collect; a busy event loop delays samples, so a short spike can be missed.
 * - kept: after the run and a forced full collection, with the result still referenced: what the
 *   output holds.
 */
export async function measureMemory<T>(
	work: () => Promise<T>,
): Promise<{ value: T; memory: MemoryFigures }> {
	collectGarbage();
	const baseline = held();
	let peakHeld = baseline;
	let peakRss = process.memoryUsage.rss();
	const sample = () => {
		peakHeld = Math.max(peakHeld, held());
		peakRss = Math.max(peakRss, process.memoryUsage.rss());
	};
	const timer = setInterval(sample, SAMPLE_EVERY_MS);
	try {
		const value = await work();
		sample();
		clearInterval(timer);
		collectGarbage();
		return {
			value,
			memory: { peakGrowth: peakHeld - baseline, retained: held() - baseline, peakRss },
		};
	} finally {
		clearInterval(timer);
	}
}
