import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import type { CurrentEvent } from './events';

/**
 * What a watch remembers of one borrower between polls (Contract → Get New Events): the events it
 * has delivered that still stand, as short hashes, and while one poll is sending that borrower's
 * alert, its claim. Stored as one line of text with the borrower (a Data table column), so that
 * the memory is n8n's own and travels with the borrower's row:
 *
 *   1:<hash><hash>…            delivered events that still stand, 11 characters each
 *   1:<hash>…!<claim>@<until>  the same while the poll <claim> sends; the claim lapses at <until> (ms)
 *
 * Only events that stand now are kept, so the memory holds what is open and nothing else: an ended
 * contract, a paid installment, a margin call that is over drop out at the next poll that writes.
 */
export const REPORTED_VERSION = '1';

/** 64 bits of SHA-256 in base64url: a collision between two events of one borrower is beyond reach. */
const HASH_BYTES = 8;
const HASH_LENGTH = 11;
const HASHES = new RegExp(`^(?:[A-Za-z0-9_-]{${HASH_LENGTH}})*$`);
const CLAIM = /^([A-Za-z0-9_-]{1,64})@(\d{1,16})$/;

export interface Reported {
	/** Hashes of the events delivered that still stood at the poll that wrote this. */
	delivered: Set<string>;
	/** The poll sending this borrower's alert now, and when its claim lapses. */
	claim: { by: string; until: number } | null;
}

/** What one poll found for one borrower. */
export type Finding =
	/** Another poll claimed the borrower and its claim has not lapsed: leave it to that poll. */
	| { kind: 'claimed' }
	/** Nothing new, and the memory already says so. */
	| { kind: 'unchanged' }
	| {
			kind: 'changed';
			/** The events not delivered yet, each keyed as the memory knows it: empty when only the memory shrank (something ended). */
			news: IDataObject[];
			/** The memory once `news` is delivered. */
			reported: string;
	  };

/**
 * The memory as stored, or null for a borrower never polled (empty). Throws a message for text that
 * is not what this node writes, which the caller turns into the item's error.
 */
export function readReported(value: unknown): Reported | null {
	if (value === undefined || value === null) return null;
	if (typeof value !== 'string') throw new Error(`Expected text, got ${typeof value}`);
	const text = value.trim();
	if (text === '') return null;
	const prefix = `${REPORTED_VERSION}:`;
	if (!text.startsWith(prefix)) throw new Error(`It does not start with ${prefix}`);
	const [hashes, claimText, ...rest] = text.slice(prefix.length).split('!');
	if (rest.length > 0) throw new Error('It holds more than one claim');
	if (!HASHES.test(hashes)) throw new Error('Its list of events is damaged');
	const delivered = new Set<string>();
	for (let start = 0; start < hashes.length; start += HASH_LENGTH)
		delivered.add(hashes.slice(start, start + HASH_LENGTH));
	if (claimText === undefined) return { delivered, claim: null };
	const claim = CLAIM.exec(claimText);
	if (!claim) throw new Error('Its claim is damaged');
	return { delivered, claim: { by: claim[1], until: Number(claim[2]) } };
}

/** The memory as stored: the hashes in a fixed order, so that the same memory is the same text. */
export function writeReported(
	delivered: Iterable<string>,
	claim: Reported['claim'] = null,
): string {
	const hashes = [...delivered].sort().join('');
	return `${REPORTED_VERSION}:${hashes}${claim ? `!${claim.by}@${claim.until}` : ''}`;
}

/** An event's hash in the memory. */
export function hashOfEvent(identity: string): string {
	return createHash('sha256')
		.update(identity)
		.digest()
		.subarray(0, HASH_BYTES)
		.toString('base64url');
}

/** A poll's name in a claim: the execution's ID, hashed when it holds other characters. */
export function claimantOf(executionId: string): string {
	return /^[A-Za-z0-9_-]{1,64}$/.test(executionId)
		? executionId
		: hashOfEvent(`execution:${executionId}`);
}

/**
 * What is new for one borrower since `reported`, at `now`, for the poll `claimant`:
 * - a live claim of another poll: that poll is sending this borrower's alert, leave it alone;
 * - a borrower never polled: every event is new, or with `recordFirstPoll` none is and all are
 *   recorded as delivered (a watch that starts without alerting what already stands);
 * - otherwise the events whose hashes the memory lacks; the memory to write keeps exactly the
 *   events that stand now, so it never holds more than what is open.
 * A lapsed claim (a poll that stopped before it recorded) counts as no claim: its events are sent again.
 */
export function findNews(
	current: CurrentEvent[],
	reported: Reported | null,
	poll: { now: number; claimant: string; recordFirstPoll: boolean },
): Finding {
	const claim = reported?.claim;
	if (claim && claim.until > poll.now && claim.by !== poll.claimant) return { kind: 'claimed' };
	const hashed = current.map((event) => ({ event, hash: hashOfEvent(event.identity) }));
	const standing = new Set(hashed.map(({ hash }) => hash));
	const fresh =
		reported === null
			? poll.recordFirstPoll
				? []
				: hashed
			: hashed.filter(({ hash }) => !reported.delivered.has(hash));
	// Keyed by what the memory holds of it: a margin call by its level, whatever else changes.
	const news = fresh.map(({ event }) => ({ ...event.item, event_key: event.identity }));
	const reportedNow = writeReported(standing);
	const unchanged =
		reported !== null && news.length === 0 && reportedNow === writeReported(reported.delivered);
	return unchanged ? { kind: 'unchanged' } : { kind: 'changed', news, reported: reportedNow };
}

/** The memory of `before` with the claim of `claimant` until `until`: what the claim writes. */
export function claimed(before: Reported | null, claimant: string, until: number): string {
	return writeReported(before?.delivered ?? [], { by: claimant, until });
}
