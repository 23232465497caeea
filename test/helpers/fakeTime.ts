/**
 * Fake time for tests that run the node inside n8n-core against a sandbox on 127.0.0.1. n8n builds
 * the node's context, so the node runs on its system clock (transport/clock.ts), which reads the
 * process's timers whenever it is called: faking those (Date, setTimeout, AbortSignal.timeout) fakes
 * every wait of the transport, the rate gate and the lookups, and the sandbox's delays with them.
 *
 * Fake time moves only when nothing else can: once the event loop has gone a few turns without an
 * HTTP request or answer starting or ending (loopback traffic and the code around it make progress
 * in every turn), it jumps to the next timer and runs it. A retry backoff, a 2-second settle before
 * a lookup, a slow answer or an attempt's deadline then cost microseconds, in the order they are due.
 */
import diagnostics from 'node:diagnostics_channel';

/** Turns of the event loop without HTTP activity before time may jump. */
const QUIET_TURNS = 8;

const HTTP_CHANNELS = [
	'http.client.request.start',
	'http.client.response.finish',
	'http.client.request.error',
	'http.server.request.start',
	'http.server.response.finish',
	'net.client.socket',
	'net.server.socket',
];

const realTimeout = AbortSignal.timeout.bind(AbortSignal);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

let activity = 0;
const noteActivity = () => {
	activity++;
};

/** AbortSignal.timeout on the fake clock (jest's fake timers leave it on the real one). */
function fakeTimeout(ms: number): AbortSignal {
	const controller = new AbortController();
	setTimeout(
		() =>
			controller.abort(
				new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
			),
		ms,
	);
	return controller.signal;
}

/**
 * Runs the file that calls it on fake time: installed before its first hook, moved on until after its
 * last (hooks run workflows too). Time keeps its place between tests, so what a test's sandbox
 * stored earlier is never in the future.
 */
export function useFakeTime(): void {
	let running = false;
	let driving: Promise<void> | undefined;

	beforeAll(() => {
		jest.useFakeTimers({
			now: Date.now(),
			doNotFake: [
				'nextTick',
				'setImmediate',
				'clearImmediate',
				'queueMicrotask',
				'hrtime',
				'performance',
			],
		});
		jest.spyOn(AbortSignal, 'timeout').mockImplementation(fakeTimeout);
		const fakeSetTimeout = globalThis.setTimeout;
		// As Node's own: a delay under 1 ms is 1 ms (the fake one would run it at once, and a wait for
		// a fraction of a millisecond would never end).
		globalThis.setTimeout = Object.assign(
			(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
				fakeSetTimeout(callback, ms !== undefined && ms >= 1 ? ms : 1, ...args),
			fakeSetTimeout,
		) as typeof setTimeout;
		for (const name of HTTP_CHANNELS) diagnostics.subscribe(name, noteActivity);
		running = true;
		driving = drive(() => running);
	});

	afterAll(async () => {
		running = false;
		await driving;
		for (const name of HTTP_CHANNELS) diagnostics.unsubscribe(name, noteActivity);
		jest.mocked(AbortSignal.timeout).mockRestore();
		jest.useRealTimers();
	});
}

/** Moves fake time to the next timer whenever the loop has been quiet for `QUIET_TURNS` turns. */
async function drive(running: () => boolean): Promise<void> {
	while (running()) {
		let seen = activity;
		let quiet = 0;
		while (quiet < QUIET_TURNS && running()) {
			await nextTurn();
			if (activity === seen) quiet++;
			else [seen, quiet] = [activity, 0];
		}
		if (!running()) return;
		if (jest.getTimerCount() > 0) jest.advanceTimersToNextTimer();
		else
			await new Promise<void>((resolve) =>
				realTimeout(1).addEventListener('abort', () => resolve()),
			);
	}
}
