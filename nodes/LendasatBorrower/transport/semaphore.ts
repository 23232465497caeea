interface Waiter {
	limit: number;
	start: () => void;
}

/**
 * Work under way at once, first come first served, up to the limit each caller brings (the limit
 * is an option of the item, so two items may bring different ones). Waiting is on promises only:
 * nothing here reads a clock. The rate gate caps one key's connections; this caps a run's across
 * keys, which the gate cannot see (each key has a gate of its own).
 */
export class Semaphore {
	private running = 0;
	private readonly waiting: Waiter[] = [];

	/** Runs `work` once fewer than `limit` are running and everyone who came earlier has started. */
	async run<T>(limit: number, work: () => Promise<T>): Promise<T> {
		await this.turn(limit);
		try {
			return await work();
		} finally {
			this.running--;
			this.startWaiting();
		}
	}

	/** How many are running now. */
	get inFlight(): number {
		return this.running;
	}

	private turn(limit: number): Promise<void> {
		if (this.waiting.length === 0 && this.running < limit) {
			this.running++;
			return Promise.resolve();
		}
		return new Promise((start) => {
			this.waiting.push({ limit, start });
		});
	}

	private startWaiting(): void {
		while (this.waiting.length > 0 && this.running < this.waiting[0].limit) {
			const next = this.waiting.shift() as Waiter;
			this.running++;
			next.start();
		}
	}
}
