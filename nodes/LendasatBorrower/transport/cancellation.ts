/**
 * A run's cancellation as its waits and attempts hear it: one listener on n8n's signal, however many
 * listen at once. Each registers a callback and takes it back when it ends. (An AbortSignal.any over
 * the run's signal for each would cost a new signal and weak references for the garbage collector
 * to clear, several per request.)
 */
export class Cancellation {
	private readonly hearers = new Set<() => void>();

	/** `signal`: n8n's cancel signal of the execution; none, a run that is never cancelled. */
	constructor(private readonly signal?: AbortSignal) {
		signal?.addEventListener('abort', () => this.tellEveryone(), { once: true });
	}

	/** Whether the run can be cancelled at all: n8n gave a signal. */
	get canBeCancelled(): boolean {
		return this.signal !== undefined;
	}

	/** Whether the run has been cancelled. */
	get aborted(): boolean {
		return this.signal?.aborted === true;
	}

	/**
	 * Calls `hear` once when the run is cancelled (at once if it already is), unless the function it
	 * returns is called first.
	 */
	onCancel(hear: () => void): () => void {
		if (this.aborted) {
			hear();
			return () => {};
		}
		if (!this.signal) return () => {};
		// A wrapper of its own: two waits may bring the same function.
		const hearer = () => hear();
		this.hearers.add(hearer);
		return () => this.hearers.delete(hearer);
	}

	private tellEveryone(): void {
		const hearers = [...this.hearers];
		this.hearers.clear();
		for (const hear of hearers) hear();
	}
}
