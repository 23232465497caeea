/**
 * Simulated time for the transport's parts (the rate gate, the exchange, the lookups), which take
 * their clock from what they are given: nothing waits in real time, and every run is the same.
 */
import type { Clock } from '../../nodes/LendasatBorrower/transport/clock';

/** A clock that only moves when every pending promise has settled: `sleep` resolves in time order. */
export class VirtualClock {
	now = 0;
	private sequence = 0;
	private readonly timers: Array<{ at: number; sequence: number; wake: () => void }> = [];

	readonly sleep = (ms: number): Promise<void> =>
		new Promise((wake) => {
			this.timers.push({ at: this.now + Math.max(0, ms), sequence: this.sequence++, wake });
		});

	/** A signal that aborts `ms` from now on this clock, as AbortSignal.timeout does on the real one. */
	readonly timeout = (ms: number): AbortSignal => {
		const controller = new AbortController();
		void this.sleep(ms).then(() =>
			controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
		);
		return controller.signal;
	};

	/** This clock as the transport and the gate take one, with `random` as the jitter. */
	asClock(random: () => number = Math.random): Clock {
		return { now: () => this.now, sleep: this.sleep, random, timeout: this.timeout };
	}

	/** Runs the timers in order until `done()` or until `untilMs`. */
	async run(done: () => boolean, untilMs = Infinity): Promise<void> {
		for (;;) {
			await letPromisesRun();
			if (done() || !this.timers.length) return;
			let next = 0;
			for (let index = 1; index < this.timers.length; index++) {
				const timer = this.timers[index];
				const best = this.timers[next];
				if (timer.at < best.at || (timer.at === best.at && timer.sequence < best.sequence))
					next = index;
			}
			if (this.timers[next].at > untilMs) {
				this.now = untilMs;
				return;
			}
			const [timer] = this.timers.splice(next, 1);
			this.now = Math.max(this.now, timer.at);
			timer.wake();
		}
	}

	/** The outcome of `work`, with the clock run until it settles (its error is thrown). */
	async settle<T>(work: Promise<T>): Promise<T> {
		let outcome: { value: T } | { error: unknown } | undefined;
		work.then(
			(value) => (outcome = { value }),
			(error: unknown) => (outcome = { error }),
		);
		await this.run(() => outcome !== undefined);
		if (!outcome) throw new Error(`still waiting at ${this.now} ms, with no timer left`);
		if ('error' in outcome) throw outcome.error;
		return outcome.value;
	}
}

/** Lets every pending promise callback run. */
async function letPromisesRun(): Promise<void> {
	for (let round = 0; round < 3; round++) await new Promise((resolve) => setImmediate(resolve));
}
