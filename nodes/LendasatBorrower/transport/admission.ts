import type { Cancellation } from './cancellation';
import type { Clock } from './clock';

/** An item's place among the items of a run at work (see Admission). */
export interface Place {
	/**
	 * When the item began to wait for its place, if it had to: the wait counts against the time
	 * budget of its first request, as a wait for a request slot does.
	 */
	waitedSince?: number;
	/** Gives the place back while the item waits (its key's pace, a back-off, a settle). */
	stepAside(): void;
	/** Takes the place again after such a wait, without queueing: the item is under way already. */
	stepBack(): void;
	/** Gives the place back for good once the item is done; calling it again does nothing. */
	leave(): void;
}

interface Waiter {
	limit: number;
	queuedAt: number;
	admit: (place: Place | undefined) => void;
}

/**
 * The items of one run at work at once, first come first served, up to the limit each brings. n8n
 * starts every item of a run at once, and an item builds its connection, its parameters and its
 * requests before it waits for a request slot (Max Parallel Requests): over thousands of items, all
 * of that would wait at once. An item takes its place before it builds anything, so only the items
 * at work hold it. An item that waits for its key's pace or backs off steps aside, so that an item of
 * a key being held back (or of a borrower whose every request fails) holds no other item back; it
 * steps back without waiting. The run's cancellation lets every waiting item go, with no place:
 * one hearer of the cancellation, whatever the number waiting. No wait here has a deadline of its
 * own: the items at work end within their time budgets, and the wait counts against the budget of
 * the item's first request (`Place.waitedSince`).
 */
export class Admission {
	private atWork = 0;
	private readonly waiting: Waiter[] = [];
	/** Index of the first waiter still in line: the line is shifted in bulk, not one by one. */
	private head = 0;

	constructor(
		private readonly clock: Pick<Clock, 'now'>,
		private readonly cancelled?: Cancellation,
	) {
		cancelled?.onCancel(() => this.letEveryoneGo());
	}

	/**
	 * A place, once fewer than `limit` items are at work and every item that came earlier has one;
	 * undefined once the run is cancelled.
	 */
	async enter(limit: number): Promise<Place | undefined> {
		if (this.cancelled?.aborted) return undefined;
		if (this.queued === 0 && this.atWork < limit) return this.place();
		const queuedAt = this.clock.now();
		return await new Promise<Place | undefined>((admit) => {
			this.waiting.push({ limit, queuedAt, admit });
		});
	}

	/** Items at work now. */
	get inWork(): number {
		return this.atWork;
	}

	/** Items waiting for a place now. */
	get queued(): number {
		return this.waiting.length - this.head;
	}

	private place(waitedSince?: number): Place {
		this.atWork++;
		let state: 'atWork' | 'aside' | 'gone' = 'atWork';
		const giveBack = () => {
			this.atWork--;
			this.admitWaiting();
		};
		return {
			waitedSince,
			stepAside: () => {
				if (state !== 'atWork') return;
				state = 'aside';
				giveBack();
			},
			stepBack: () => {
				if (state !== 'aside') return;
				state = 'atWork';
				this.atWork++;
			},
			leave: () => {
				if (state === 'atWork') giveBack();
				state = 'gone';
			},
		};
	}

	private admitWaiting(): void {
		while (this.queued > 0 && this.atWork < this.waiting[this.head].limit) {
			const next = this.waiting[this.head++];
			next.admit(this.place(next.queuedAt));
		}
		this.compact();
	}

	private letEveryoneGo(): void {
		while (this.queued > 0) this.waiting[this.head++].admit(undefined);
		this.compact();
	}

	/** Drops the waiters already let in, once they are half the array. */
	private compact(): void {
		if (this.head > 0 && this.head * 2 >= this.waiting.length) {
			this.waiting.splice(0, this.head);
			this.head = 0;
		}
	}
}
