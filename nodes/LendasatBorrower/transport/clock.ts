import { sleep } from 'n8n-workflow';

import type { Cancellation } from './cancellation';

/**
 * Where the transport, the rate gate and the lookups read the time, wait, draw their jitter and
 * get an attempt's deadline. Each part takes it from the transport it is given, so a test can run
 * every wait on a fake clock.
 */
export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
	random(): number;
	/** A signal that aborts after `ms`, whose timer does not keep the process alive. */
	timeout(ms: number): AbortSignal;
}

/**
 * n8n's own clock. Each call reads the global one when it is made, so a test that fakes the
 * process's timers (as the integration tests do, since n8n builds the node's context) fakes this too.
 */
export const systemClock: Clock = {
	now: () => Date.now(),
	sleep: async (ms) => await sleep(ms),
	random: () => Math.random(),
	timeout: (ms) => AbortSignal.timeout(ms),
};

/**
 * Calls `stop` once when a wait must end, unless the function it returns is called first: how a
 * waiter hears its deadline and the run's cancellation.
 */
export type StopWatch = (stop: () => void) => () => void;

/**
 * A wait that ends at `at` on `clock` (never, when `at` is Infinity) or when the run is `cancelled`,
 * whichever comes first. Its timer, when it has a deadline, starts when the watch does.
 */
export function stopAt(clock: Clock, at: number, cancelled?: Cancellation): StopWatch {
	return (stop) => {
		if (cancelled?.aborted) {
			stop();
			return () => {};
		}
		const timer = at === Infinity ? undefined : clock.timeout(Math.max(0, at - clock.now()));
		let unhear = () => {};
		const unwatch = () => {
			timer?.removeEventListener('abort', ended);
			unhear();
		};
		const ended = () => {
			unwatch();
			stop();
		};
		timer?.addEventListener('abort', ended, { once: true });
		if (cancelled) unhear = cancelled.onCancel(ended);
		return unwatch;
	};
}

/**
 * A place at the end of `line` until the waiter's turn comes, or `stop` ends the wait first.
 * `enter` makes the waiter from the function its turn calls with the wait's value; the line's owner
 * takes the waiter out of the line before calling it. A waiter stopped first leaves the line and
 * the wait ends with `none`; then `left` runs, for the waiter may have held back those behind it.
 */
export async function waitInLine<W, T>(
	line: W[],
	enter: (turn: (value: T) => void) => W,
	none: T,
	stop: StopWatch | undefined,
	left: () => void,
): Promise<T> {
	return await new Promise<T>((resolve) => {
		let unwatch = () => {};
		const waiter = enter((value) => {
			unwatch();
			resolve(value);
		});
		line.push(waiter);
		if (!stop) return;
		unwatch = stop(() => {
			const index = line.indexOf(waiter);
			if (index < 0) return; // its turn came meanwhile
			line.splice(index, 1);
			resolve(none);
			left();
		});
	});
}

/**
 * `clock`, with every sleep ending when the run is `cancelled`: for an operation's own waits (the
 * settle before a lookup), each followed by a request the transport then does not send.
 */
export function cancellable(clock: Clock, cancelled?: Cancellation): Clock {
	return cancelled
		? { ...clock, sleep: async (ms) => await sleepUnlessCancelled(clock, ms, cancelled) }
		: clock;
}

/**
 * Waits `ms` on `clock`, or until `cancelled` aborts, whichever comes first. On cancellation the
 * sleep's timer is left to run out; nothing waits for it any more.
 */
export async function sleepUnlessCancelled(
	clock: Clock,
	ms: number,
	cancelled?: Cancellation,
): Promise<void> {
	if (!cancelled) return await clock.sleep(ms);
	if (cancelled.aborted) return;
	await new Promise<void>((resolve) => {
		const unhear = cancelled.onCancel(resolve);
		void clock.sleep(ms).then(() => {
			unhear();
			resolve();
		});
	});
}
