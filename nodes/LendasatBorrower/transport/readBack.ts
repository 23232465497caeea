import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Clock } from './clock';
import {
	failureOf,
	mayHaveBeenProcessed,
	settle,
	withNote,
	type TransportSettings,
} from './exchange';
import { shouldRetry, summarizeAttempts, type Failure } from './retry';

/**
 * A write whose effect a read can see (the repeat rule 'afterLookup'). It is sent once. After a
 * failure that may have reached the server (a 5xx, a reset or timed-out connection, a success answer
 * the node could not use) it waits for the write to land and reads: when the read shows the write
 * done, that is the answer; when it shows it was not, the write is sent again, as far as the retry
 * settings allow; when the read fails, the error says so and nothing is sent again.
 */
export async function writeWithReadBack<T>(
	write: () => Promise<T>,
	readBack: () => Promise<T | undefined>,
	{ settings, clock }: { settings: TransportSettings; clock: Clock },
): Promise<T> {
	const failures: Failure[] = [];
	for (;;) {
		const sent = await settle(write());
		if ('value' in sent) return sent.value;
		if (!mayHaveBeenProcessed(sent.error)) throw sent.error;
		const failure = failureOf(sent.error);
		if (failure) failures.push(failure);
		await clock.sleep(settings.lookupSettleMs);
		const read = await settle(readBack());
		if ('error' in read) {
			throw note(
				sent.error,
				failures,
				`It may have been carried out: reading it back failed too (${messageOf(read.error)}), so the node did not send it again. Check before running this item again.`,
			);
		}
		if (read.value !== undefined) return read.value;
		if (!failure || !shouldRetry(failure, settings.retry, failures.length - 1, true)) {
			throw note(
				sent.error,
				failures,
				'Reading it back showed it was not carried out; running this item again is safe.',
			);
		}
	}
}

function note(error: unknown, failures: Failure[], text: string): unknown {
	const attempts = failures.length > 1 ? `Gave up after ${summarizeAttempts(failures)}. ` : '';
	return withNote(error, `${attempts}${text}`);
}

function messageOf(error: unknown): string {
	return error instanceof NodeApiError || error instanceof NodeOperationError
		? error.message
		: 'an unexpected error';
}
