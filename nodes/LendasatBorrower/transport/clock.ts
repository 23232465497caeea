import { sleep } from 'n8n-workflow';

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
 * A signal of its own that aborts at `at` on `clock` (never, when `at` is Infinity) or when
 * `cancelled` (the run's) does. A wait listens on this one, so that the many waits of a run leave
 * no listener on the run's signal.
 */
export function stopAt(clock: Clock, at: number, cancelled?: AbortSignal): AbortSignal {
	const signals = cancelled ? [cancelled] : [];
	if (at !== Infinity) signals.push(clock.timeout(Math.max(0, at - clock.now())));
	return AbortSignal.any(signals);
}

/**
 * `clock`, with every sleep ending when the run is `cancelled`: for an operation's own waits (the
 * settle before a lookup), each followed by a request the transport then does not send.
 */
export function cancellable(clock: Clock, cancelled?: AbortSignal): Clock {
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
	cancelled?: AbortSignal,
): Promise<void> {
	if (!cancelled) return await clock.sleep(ms);
	if (cancelled.aborted) return;
	const stop = AbortSignal.any([cancelled]);
	await new Promise<void>((resolve) => {
		const wake = () => {
			stop.removeEventListener('abort', wake);
			resolve();
		};
		stop.addEventListener('abort', wake, { once: true });
		void clock.sleep(ms).then(wake);
	});
}
