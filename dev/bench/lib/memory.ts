import type { MemoryFigures } from './types';

const SAMPLE_EVERY_MS = 5;
/**
 * How long the forced collection before a run is given to finish its concurrent sweeping on V8's
 * helper threads, which process.cpuUsage() counts: without it, a partner poll of 10 borrowers
 * measured 53 to 67 ms of CPU, most of them the collection's; after the pause, 13 to 19 ms.
 */
const SETTLE_AFTER_GC_MS = 300;

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
	await new Promise((resolve) => setTimeout(resolve, SETTLE_AFTER_GC_MS));
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
