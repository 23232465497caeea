/**
 * What one wait's abort signals cost, in CPU time and heap, for the forms the transport has used:
 * AbortSignal.any over a timeout (what a slot wait built before transport/cancellation.ts), a
 * timeout with a listener (what a wait with a deadline builds now), and a controller with a
 * listener and a set entry (what hearing the run's cancellation costs). 200,000 waits, 128 alive at
 * once, as the requests of a run at Max Parallel Requests 128; each form twice.
 *
 *   node --expose-gc --import tsx dev/bench/abortSignalCost.ts
 */
const WAITS = 200_000;
const ALIVE = 128;

/** A wait's signals, set up; the function it returns ends the wait (takes its listeners back). */
type Wait = () => () => void;

const forms: Array<[string, Wait]> = [
	[
		'AbortSignal.any over AbortSignal.timeout + listener',
		() => {
			const signal = AbortSignal.any([AbortSignal.timeout(30_000)]);
			const listener = () => {};
			signal.addEventListener('abort', listener);
			return () => signal.removeEventListener('abort', listener);
		},
	],
	[
		'AbortSignal.timeout + listener',
		() => {
			const signal = AbortSignal.timeout(30_000);
			const listener = () => {};
			signal.addEventListener('abort', listener);
			return () => signal.removeEventListener('abort', listener);
		},
	],
	[
		'AbortController + listener + set entry',
		() => {
			const controller = new AbortController();
			const hearers = new Set<() => void>();
			const listener = () => {};
			controller.signal.addEventListener('abort', listener);
			hearers.add(listener);
			return () => {
				controller.signal.removeEventListener('abort', listener);
				hearers.delete(listener);
			};
		},
	],
];

function measure(name: string, wait: Wait): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	gc();
	const heapBefore = process.memoryUsage().heapUsed;
	const cpuBefore = process.cpuUsage();
	const alive: Array<() => void> = [];
	for (let index = 0; index < WAITS; index++) {
		alive.push(wait());
		if (alive.length > ALIVE) (alive.shift() as () => void)();
	}
	for (const end of alive) end();
	const cpu = process.cpuUsage(cpuBefore);
	const heap = process.memoryUsage().heapUsed - heapBefore;
	console.log(
		`${name}: ${(((cpu.user + cpu.system) / WAITS) * 1000).toFixed(0)} ns and ${(heap / WAITS).toFixed(0)} B of heap not yet collected per wait`,
	);
}

for (let round = 0; round < 2; round++) for (const [name, wait] of forms) measure(name, wait);
