import type { IDataObject } from 'n8n-workflow';

import { systemClock, type Clock } from '../../transport/clock';
import { CLOCK_ALLOWANCE_MS } from '../../transport/exchange';

/** One page of GET /api/contracts, newest first. */
export interface ContractListPage {
	records: IDataObject[];
	totalPages?: number;
}

/** Reads a page (1-based), or says the server has no contract list to search. */
export type ReadContractPage = (page: number) => Promise<ContractListPage | 'unsupported'>;

export type LookupOutcome =
	/** Every contract carrying the client_contract_id (usually one), each as the latest walk read it. */
	| { kind: 'found'; contracts: IDataObject[] }
	| { kind: 'absent' }
	/** The server has no list of contracts (the specification shows none). */
	| { kind: 'unsupported' }
	/** The list could not be read far enough to be sure. */
	| { kind: 'inconclusive'; reason: string };

export const LOOKUP_PAGE_SIZE = 100;
/** The deepest a lookup reads: the newest 2,000 contracts. */
export const MAX_LOOKUP_PAGES = 20;
/** How long a new walk gathers lookups before it reads. */
const DEFAULT_GATHER_MS = 300;

type WalkResult =
	| { kind: 'complete' }
	| Extract<LookupOutcome, { kind: 'unsupported' | 'inconclusive' }>;

interface Walk {
	startedAt: number;
	/** Every contract created from this time until the walk started is indexed once it completes. */
	coversFrom: number;
	done: Promise<WalkResult>;
}

/**
 * The borrower's contracts by `client_contract_id`, read newest first from GET /api/contracts and
 * shared by every item of one run of the node, so that many lookups cost few list requests: a
 * lookup reuses a walk that started after it was asked for, and a new walk stops where the last
 * complete one began. Reading newest first is safe while contracts are being created: a new one
 * shifts older ones to later pages, so the walk sees some twice but skips none. A server found to
 * have no contract list is not asked again.
 */
export class ContractIndex {
	/** Lower-cased client_contract_id → contract id → the record as last read. */
	private readonly byClientId = new Map<string, Map<string, IDataObject>>();
	private lastWalk?: Walk;
	private complete?: { coversFrom: number; startedAt: number };
	private listsNoContracts = false;

	/**
	 * `gatherMs`: how long a new walk waits before reading, so that lookups asked for meanwhile (other
	 * items whose requests failed at about the same time) share it.
	 */
	constructor(
		private readonly clock: Pick<Clock, 'now' | 'sleep'> = systemClock,
		private readonly gatherMs = DEFAULT_GATHER_MS,
	) {}

	/**
	 * The contract carrying `clientId`, from a walk that started after `freshAfter` and covers
	 * contracts created since `coverFrom` (both in ms since the epoch, n8n's clock). A walk that began
	 * reading in the very millisecond of `freshAfter` may have read before what the caller waits for.
	 */
	async find(
		clientId: string,
		need: { freshAfter: number; coverFrom: number },
		readPage: ReadContractPage,
	): Promise<LookupOutcome> {
		if (this.listsNoContracts) return { kind: 'unsupported' };
		let walk = this.lastWalk;
		if (!walk || !serves(walk, need)) {
			if (walk) await walk.done;
			walk =
				this.lastWalk && serves(this.lastWalk, need)
					? this.lastWalk
					: this.startWalk(need.coverFrom, readPage);
		}
		const result = await walk.done;
		if (result.kind !== 'complete') return result;
		const contracts = this.byClientId.get(clientId.toLowerCase());
		return contracts ? { kind: 'found', contracts: [...contracts.values()] } : { kind: 'absent' };
	}

	private startWalk(coverFrom: number, readPage: ReadContractPage): Walk {
		// The walk counts as started when it reads: every lookup asked for until then is served by it.
		const startedAt = this.clock.now() + this.gatherMs;
		const previous = this.complete;
		// What the last complete walk saw need not be read again, if it reached back far enough.
		const continues = previous !== undefined && previous.coversFrom <= coverFrom;
		const stopBelow = continues
			? Math.max(coverFrom, previous.startedAt - CLOCK_ALLOWANCE_MS)
			: coverFrom;
		const coversFrom = continues ? previous.coversFrom : coverFrom;
		const read = async () => {
			if (this.gatherMs > 0) await this.clock.sleep(this.gatherMs);
			return await this.readUntil(stopBelow, readPage);
		};
		const walk: Walk = { startedAt, coversFrom, done: read() };
		walk.done = walk.done.then((result) => {
			if (result.kind === 'complete') this.complete = { coversFrom, startedAt };
			if (result.kind === 'unsupported') this.listsNoContracts = true;
			return result;
		});
		this.lastWalk = walk;
		return walk;
	}

	/**
	 * Reads pages until one reaches below `stopBelow` or the list ends; never throws. A list that is
	 * not newest first cannot be cut off by time, and records without a client_contract_id field
	 * cannot be searched by it: neither may prove that a contract does not exist. Contracts created
	 * while it reads (other executions, other workers) push older ones onto the next page, where
	 * they come again, newer than the last one read; after a long wait for a turn, the new ones
	 * themselves may come on a later page, newer than all of page 1. Neither counts as disorder, and
	 * a page holding nothing new (a page or more created between two reads) is read past. A server
	 * that ignores `page` answers the same records in the same order every time: two such repeats
	 * in a row end the walk (other processes would have had to create exactly a page twice over).
	 */
	private async readUntil(stopBelow: number, readPage: ReadContractPage): Promise<WalkResult> {
		let previous = Infinity;
		let newestOnFirstPage = -Infinity;
		let previousPage = '';
		let repeats = 0;
		const seen = new Set<string>();
		for (let page = 1; page <= MAX_LOOKUP_PAGES; page++) {
			let read: ContractListPage | 'unsupported';
			try {
				read = await readPage(page);
			} catch (error) {
				return { kind: 'inconclusive', reason: (error as Error)?.message ?? String(error) };
			}
			if (read === 'unsupported') return { kind: 'unsupported' };
			if (
				read.records.length &&
				read.records.every((record) => !('client_contract_id' in record))
			) {
				return { kind: 'unsupported' };
			}
			let fresh = 0;
			for (const record of read.records) {
				const id = typeof record.id === 'string' ? record.id : undefined;
				const again = id !== undefined && seen.has(id);
				if (id !== undefined) seen.add(id);
				this.add(record);
				if (again) continue;
				fresh++;
				const created = creationOf(record);
				if (page === 1 && created > newestOnFirstPage) newestOnFirstPage = created;
				// Newer than anything on page 1: created since the walk began.
				if (page > 1 && created > newestOnFirstPage) continue;
				if (created > previous + 1000) {
					return {
						kind: 'inconclusive',
						reason: 'the server does not list contracts newest first',
					};
				}
				if (!Number.isNaN(created)) previous = created;
			}
			const thisPage = read.records.map((record) => String(record.id)).join(' ');
			repeats = read.records.length && fresh === 0 && thisPage === previousPage ? repeats + 1 : 0;
			previousPage = thisPage;
			if (repeats === 2) {
				return {
					kind: 'inconclusive',
					reason: `the server sent the same contracts again for pages ${page - 1} and ${page}`,
				};
			}
			const lastPage =
				read.records.length < LOOKUP_PAGE_SIZE ||
				(read.totalPages !== undefined && page >= read.totalPages);
			if (lastPage || oldestCreation(read.records) < stopBelow) return { kind: 'complete' };
		}
		return {
			kind: 'inconclusive',
			reason: `more than ${MAX_LOOKUP_PAGES * LOOKUP_PAGE_SIZE} contracts are newer than the time it had to look back to`,
		};
	}

	/** A later read of the same contract replaces the earlier one: its status may have changed. */
	private add(record: IDataObject): void {
		const clientId = record.client_contract_id;
		if (typeof clientId !== 'string') return;
		const key = clientId.toLowerCase();
		const contracts = this.byClientId.get(key) ?? new Map<string, IDataObject>();
		contracts.set(typeof record.id === 'string' ? record.id : '', record);
		this.byClientId.set(key, contracts);
	}
}

function serves(walk: Walk, need: { freshAfter: number; coverFrom: number }): boolean {
	return walk.startedAt > need.freshAfter && walk.coversFrom <= need.coverFrom;
}

/** When the contract was created (epoch ms), NaN when its `created_at` cannot be read. */
export function creationOf(record: IDataObject): number {
	return typeof record.created_at === 'string' ? Date.parse(record.created_at) : Number.NaN;
}

/** The earliest `created_at` on a page; records without a readable one do not count as old. */
function oldestCreation(records: IDataObject[]): number {
	let oldest = Infinity;
	for (const record of records) {
		const time = creationOf(record);
		if (!Number.isNaN(time) && time < oldest) oldest = time;
	}
	return oldest;
}
