/**
 * What Contract → Get New Events remembers of a borrower between polls: the events delivered that
 * still stand, and the claim of a poll that is sending them (resources/contract/reported.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import type { CurrentEvent } from '../../nodes/LendasatBorrower/resources/contract/events';
import {
	claimantOf,
	claimed,
	findNews,
	hashOfEvent,
	readReported,
	writeReported,
	type Finding,
} from '../../nodes/LendasatBorrower/resources/contract/reported';

const NOW = Date.parse('2026-11-21T09:00:00Z');
const MINUTE = 60_000;

const event = (identity: string, fields: IDataObject = {}): CurrentEvent => ({
	identity,
	item: { event_key: identity, ...fields },
});

const status = event('c1:PrincipalGiven:1');
const marginCall = event('c1:marginCall:FirstMarginCall', {
	liquidation_status: 'FirstMarginCall',
});
const secondMarginCall = event('c1:marginCall:SecondMarginCall');
const due = event('c1:i1:2026-11-22T09:00:00.000Z');
const late = event('c1:i1:2026-11-22T09:00:00.000Z:late');

const poll = { now: NOW, claimant: '101', recordFirstPoll: false };

/** One poll that delivers what it found: the memory it would store. */
function deliver(
	current: CurrentEvent[],
	stored: string | null,
): { news: string[]; stored: string | null } {
	const finding = findNews(current, readReported(stored), poll);
	if (finding.kind !== 'changed') return { news: [], stored };
	return { news: finding.news.map((item) => String(item.event_key)), stored: finding.reported };
}

const newsOf = (finding: Finding) =>
	finding.kind === 'changed' ? finding.news.map((item) => item.event_key) : finding.kind;

describe('the memory as stored', () => {
	it('is the version, then one 11-character hash per event, in a fixed order', () => {
		const text = writeReported([hashOfEvent('b'), hashOfEvent('a')]);
		expect(text).toMatch(/^1:(?:[A-Za-z0-9_-]{11}){2}$/);
		expect(text).toBe(writeReported([hashOfEvent('a'), hashOfEvent('b')]));
		expect(readReported(text)).toEqual({
			delivered: new Set([hashOfEvent('a'), hashOfEvent('b')]),
			claim: null,
		});
		expect(writeReported([])).toBe('1:');
	});

	it('carries the claim of the poll sending the alert, and when it lapses', () => {
		const text = claimed(readReported(writeReported([hashOfEvent('a')])), '4711', NOW + MINUTE);
		expect(text).toBe(`${writeReported([hashOfEvent('a')])}!4711@${NOW + MINUTE}`);
		expect(readReported(text)?.claim).toEqual({ by: '4711', until: NOW + MINUTE });
	});

	it('is empty for a borrower never polled', () => {
		expect(readReported('')).toBeNull();
		expect(readReported('  ')).toBeNull();
		expect(readReported(null)).toBeNull();
		expect(readReported(undefined)).toBeNull();
	});

	it.each([
		['another version', '2:AAAAAAAAAAA', /does not start with 1:/],
		['a cut hash', '1:AAAAAAAAAA', /list of events is damaged/],
		['a character outside base64url', '1:AAAAAAAAAA+', /list of events is damaged/],
		['a damaged claim', '1:!x@soon', /claim is damaged/],
		['two claims', '1:!1@2!3@4', /more than one claim/],
		['something else', { hashes: [] }, /Expected text/],
	])('refuses %s', (_case, text, problem) => {
		expect(() => readReported(text)).toThrow(problem);
	});

	it('names a poll by its execution ID, or by a hash of it when it holds other characters', () => {
		expect(claimantOf('2048')).toBe('2048');
		expect(claimantOf('a b@c')).toMatch(/^[A-Za-z0-9_-]{11}$/);
	});
});

describe('what is new for one borrower', () => {
	it('at the first poll: every event that stands, or none with Record Without Reporting', () => {
		expect(newsOf(findNews([status, due], null, poll))).toEqual([status.identity, due.identity]);
		const recorded = findNews([status, due], null, { ...poll, recordFirstPoll: true });
		expect(recorded).toEqual({
			kind: 'changed',
			news: [],
			reported: writeReported([hashOfEvent(status.identity), hashOfEvent(due.identity)]),
		});
	});

	it('then only what was not delivered yet; nothing when nothing changed', () => {
		const first = deliver([status], null);
		expect(first.news).toEqual([status.identity]);
		const second = deliver([status, due], first.stored);
		expect(second.news).toEqual([due.identity]);
		expect(findNews([status, due], readReported(second.stored), poll)).toEqual({
			kind: 'unchanged',
		});
	});

	it('a margin call once per level while it lasts, again after the contract was healthy in between', () => {
		const episodes: string[][] = [];
		let stored: string | null = null;
		for (const current of [
			[status, marginCall],
			// the contract changed in another way while the margin call lasts: the same event
			[event('c1:PrincipalGiven:1', { collateral_sats: 2 }), marginCall],
			[status, secondMarginCall],
			[status],
			[status],
			[status, marginCall],
		]) {
			const polled = deliver(current, stored);
			episodes.push(polled.news);
			stored = polled.stored;
		}
		expect(episodes).toEqual([
			[status.identity, marginCall.identity],
			[],
			[secondMarginCall.identity],
			[],
			[],
			[marginCall.identity],
		]);
	});

	it('forgets what no longer stands, writing the smaller memory without news', () => {
		const stored = deliver([status, due], null).stored;
		const finding = findNews([status, late], readReported(stored), poll);
		expect(newsOf(finding)).toEqual([late.identity]);
		const paid = findNews([status], readReported(stored), poll);
		expect(paid).toEqual({
			kind: 'changed',
			news: [],
			reported: writeReported([hashOfEvent(status.identity)]),
		});
	});

	it("leaves a borrower alone while another poll's claim lasts, and sends again once it has lapsed", () => {
		const stored = claimed(null, '99', NOW + MINUTE);
		expect(findNews([status], readReported(stored), poll)).toEqual({ kind: 'claimed' });
		expect(
			newsOf(findNews([status], readReported(stored), { ...poll, now: NOW + MINUTE })),
		).toEqual([status.identity]);
		// A poll's own claim is no obstacle to it.
		expect(newsOf(findNews([status], readReported(stored), { ...poll, claimant: '99' }))).toEqual([
			status.identity,
		]);
	});

	it('holds at most one entry per event that stands, whatever came before', () => {
		let stored: string | null = null;
		for (let month = 0; month < 24; month++) {
			const installment = event(`c1:i${month}:2027-${month}:due`);
			stored = deliver([status, installment], stored).stored;
		}
		expect(readReported(stored)?.delivered.size).toBe(2);
		expect(String(stored).length).toBe('1:'.length + 2 * 11);
	});
});
