import { waitInLine, type StopWatch } from './clock';

/** Gives a slot back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
	limit: number;
	start: (release: Release) => void;
}

/**
 * Slots of the requests on the wire at once, first come first served, up to the limit each caller
 * brings (the limit is an option of the item, so two items may bring different ones). Nothing here
 * reads a clock: a caller that must not wait for ever brings a watch that ends its wait. The rate
 * gate caps one key's connections; this caps a run's across keys, which the gate cannot see (each
 * key has a gate of its own).
 */
export class Semaphore {
	private running = 0;
	private readonly waiting: Waiter[] = [];

	/**
	 * A slot, once fewer than `limit` hold one and everyone who came earlier has one; undefined when
	 * `stop` ends the wait first (no slot is taken then). `stop` is started only when the caller has
	 * to wait, so that a slot free at once costs no timer.
	 */
	async take(limit: number, stop?: StopWatch): Promise<Release | undefined> {
		if (this.waiting.length === 0 && this.running < limit) return this.slot();
		// One that gives up may have been the first in line, holding back others with a higher limit.
		return await waitInLine<Waiter, Release | undefined>(
			this.waiting,
			(start) => ({ limit, start }),
			undefined,
			stop,
			() => this.startWaiting(),
		);
	}

	/** How many hold a slot now. */
	get inFlight(): number {
		return this.running;
	}

	private slot(): Release {
		this.running++;
		let held = true;
		return () => {
			if (!held) return;
			held = false;
			this.running--;
			this.startWaiting();
		};
	}

	private startWaiting(): void {
		while (this.waiting.length > 0 && this.running < this.waiting[0].limit) {
			const next = this.waiting.shift() as Waiter;
			next.start(this.slot());
		}
	}
}
