import type { IDataObject } from 'n8n-workflow';

import { CLOCK_ALLOWANCE_MS } from '../../nodes/LendasatBorrower/transport/exchange';
import { VirtualClock } from '../helpers/rateSimulation';
import {
	ContractIndex,
	LOOKUP_PAGE_SIZE,
	MAX_LOOKUP_PAGES,
	type ContractListPage,
	type ReadContractPage,
} from '../../nodes/LendasatBorrower/resources/contract/contractIndex';
import {
	afterLookup,
	clientContractIdFor,
} from '../../nodes/LendasatBorrower/resources/contract/createOnce';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-23T12:00:00Z');

/** A clock that reads `now` and never waits: walks read at once. */
const stoppedAt = (now: () => number) => ({ now, sleep: async () => undefined });

/** A server's contract list, newest first: `ages` in minutes before NOW, each with client id `c<index>`. */
function listOf(ages: number[]): IDataObject[] {
	return ages.map((age, index) => ({
		id: `contract-${index}`,
		client_contract_id: `c${index}`,
		created_at: new Date(NOW - age * MINUTE).toISOString(),
	}));
}

/** Serves `records` page by page and counts the pages read. */
function server(records: () => IDataObject[]) {
	const reads: number[] = [];
	const readPage: ReadContractPage = async (page) => {
		reads.push(page);
		const all = records();
		const data = all.slice((page - 1) * LOOKUP_PAGE_SIZE, page * LOOKUP_PAGE_SIZE);
		return {
			records: data,
			totalPages: Math.max(1, Math.ceil(all.length / LOOKUP_PAGE_SIZE)),
		} satisfies ContractListPage;
	};
	return { readPage, reads };
}

describe('ContractIndex: finding a contract by its client_contract_id', () => {
	it('finds a contract on the first page and reads only that page', async () => {
		const { readPage, reads } = server(() => listOf(Array.from({ length: 250 }, (_, i) => i)));
		const index = new ContractIndex(
			stoppedAt(() => NOW),
			0,
		);
		await expect(
			index.find('c3', { freshAfter: NOW, coverFrom: NOW - 60 * MINUTE }, readPage),
		).resolves.toEqual({
			kind: 'found',
			contracts: [expect.objectContaining({ id: 'contract-3' })],
		});
		expect(reads).toEqual([1]);
	});

	it('finds every contract carrying the client id, each as the latest walk read it', async () => {
		let clock = NOW;
		const at = (minutes: number) => new Date(NOW - minutes * MINUTE).toISOString();
		let records: IDataObject[] = [
			{ id: 'b', client_contract_id: 'order', status: 'Requested', created_at: at(1) },
			{ id: 'a', client_contract_id: 'ORDER', status: 'Requested', created_at: at(2) },
			{ id: 'x', client_contract_id: 'other', status: 'Requested', created_at: at(3) },
		];
		const { readPage } = server(() => records);
		const index = new ContractIndex(
			stoppedAt(() => clock),
			0,
		);
		const first = await index.find('order', { freshAfter: clock, coverFrom: 0 }, readPage);
		expect(first).toEqual({
			kind: 'found',
			contracts: [expect.objectContaining({ id: 'b' }), expect.objectContaining({ id: 'a' })],
		});

		// Another execution cancelled b meanwhile: the next walk reads it again.
		records = records.map((record) =>
			record.id === 'b' ? { ...record, status: 'Cancelled' } : record,
		);
		clock += 1;
		const again = await index.find('order', { freshAfter: clock, coverFrom: 0 }, readPage);
		expect(again.kind === 'found' && again.contracts.map(({ id, status }) => [id, status])).toEqual(
			[
				['b', 'Cancelled'],
				['a', 'Requested'],
			],
		);
	});

	it('matches client ids without regard to case', async () => {
		const { readPage } = server(() => [
			{ id: 'x', client_contract_id: 'ABC-def', created_at: new Date(NOW).toISOString() },
		]);
		const outcome = await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('abc-DEF', { freshAfter: NOW, coverFrom: NOW }, readPage);
		expect(outcome.kind).toBe('found');
	});

	it('says absent once it has read back to the time it must cover, and no further', async () => {
		// 100 per page, one a minute: page 2 holds minutes 100–199.
		const { readPage, reads } = server(() => listOf(Array.from({ length: 1000 }, (_, i) => i)));
		const outcome = await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('missing', { freshAfter: NOW, coverFrom: NOW - 150 * MINUTE }, readPage);
		expect(outcome).toEqual({ kind: 'absent' });
		expect(reads).toEqual([1, 2]);
	});

	it('stops at the last page the server names, and at a short page', async () => {
		const short = server(() => listOf([1, 2, 3]));
		await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('x', { freshAfter: NOW, coverFrom: 0 }, short.readPage);
		expect(short.reads).toEqual([1]);

		const reads: number[] = [];
		const lyingLength: ReadContractPage = async (page) => {
			reads.push(page);
			return { records: listOf(Array.from({ length: LOOKUP_PAGE_SIZE }, () => 1)), totalPages: 2 };
		};
		await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('x', { freshAfter: NOW, coverFrom: 0 }, lyingLength);
		expect(reads).toEqual([1, 2]);
	});

	it('gives up as inconclusive after reading as many pages as it may, when none is old enough', async () => {
		const reads: number[] = [];
		// A server that keeps answering full pages of contracts created just now.
		const endless: ReadContractPage = async (page) => {
			reads.push(page);
			const records = listOf(Array.from({ length: LOOKUP_PAGE_SIZE }, () => 0));
			return { records: records.map((record) => ({ ...record, id: `${page}-${record.id}` })) };
		};
		const outcome = await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('x', { freshAfter: NOW, coverFrom: NOW - MINUTE }, endless);
		expect(outcome).toEqual({
			kind: 'inconclusive',
			reason: expect.stringContaining('2000 contracts'),
		});
		expect(reads).toHaveLength(MAX_LOOKUP_PAGES);
	});

	it('is inconclusive when the server answers the same page again (it ignores `page`)', async () => {
		const reads: number[] = [];
		const samePage: ReadContractPage = async (page) => {
			reads.push(page);
			return { records: listOf(Array.from({ length: LOOKUP_PAGE_SIZE }, () => 0)) };
		};
		const outcome = await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('x', { freshAfter: NOW, coverFrom: NOW - MINUTE }, samePage);
		expect(outcome).toEqual({
			kind: 'inconclusive',
			reason: 'the server sent the same contracts again for pages 2 and 3',
		});
		expect(reads).toEqual([1, 2, 3]);
	});

	/**
	 * 250 contracts, one a second from `age` seconds ago, newest first; `created` more are created
	 * right after page 1 is read (another worker sending while this walk waits for its next turn),
	 * and `createdLater[n]` right after page n + 2.
	 */
	function listGrowingAfterPage1(age: number, created: number, createdLater: number[] = []) {
		const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
		const contract = (id: string, secondsAgo: number) => ({
			id,
			client_contract_id: id,
			created_at: at(secondsAgo),
		});
		let records: IDataObject[] = Array.from({ length: 250 }, (_, index) =>
			contract(`old-${index}`, age + index),
		);
		const reads: number[] = [];
		const readPage: ReadContractPage = async (page) => {
			reads.push(page);
			const data = records.slice((page - 1) * LOOKUP_PAGE_SIZE, page * LOOKUP_PAGE_SIZE);
			const count = page === 1 ? created : (createdLater[page - 2] ?? 0);
			const fresh = Array.from({ length: count }, (_, index) =>
				contract(`new-${page}-${index}`, index),
			);
			records = [...fresh, ...records];
			return { records: data, totalPages: Math.ceil(records.length / LOOKUP_PAGE_SIZE) };
		};
		return { readPage, reads };
	}

	it.each<[string, number, number, number[], number[]]>([
		// Page 2 starts with the last 30 of page 1, seconds newer than its end.
		['pushes the end of page 1 onto page 2', 60, 30, [], [1, 2, 3]],
		// Page 2 holds 100 of the new ones, newer than all of page 1; page 3 50 more and 50 of page 1.
		[
			'comes on a later page itself (more than a page, after a long wait for a turn)',
			300,
			150,
			[],
			[1, 2, 3, 4],
		],
		// 50 after page 1, 150 after page 2, 100 after page 3: pages 3 and 4 both hold only old-0 to
		// old-99, read on page 1, and are read past (seen in the queue-mode e2e, two workers under
		// one rate limit).
		[
			'is more than a page between reads, twice: pages with nothing new',
			600,
			50,
			[150, 100],
			[1, 2, 3, 4, 5, 6],
		],
	])(
		'reads on when what other processes create meanwhile %s: not disorder',
		async (_case, age, created, createdLater, pages) => {
			const { readPage, reads } = listGrowingAfterPage1(age, created, createdLater);
			const outcome = await new ContractIndex(
				stoppedAt(() => NOW),
				0,
			).find('old-249', { freshAfter: NOW, coverFrom: 0 }, readPage);
			expect(outcome).toEqual({
				kind: 'found',
				contracts: [expect.objectContaining({ id: 'old-249' })],
			});
			expect(reads).toEqual(pages);
		},
	);

	it('is inconclusive when a page cannot be read, and says why', async () => {
		const failing: ReadContractPage = async () => {
			throw new Error('HTTP 500');
		};
		await expect(
			new ContractIndex(
				stoppedAt(() => NOW),
				0,
			).find('x', { freshAfter: NOW, coverFrom: 0 }, failing),
		).resolves.toEqual({
			kind: 'inconclusive',
			reason: 'HTTP 500',
		});
	});

	it('reports a server without a contract list as unsupported, and does not ask it again', async () => {
		let clock = NOW;
		const reads: number[] = [];
		const none: ReadContractPage = async (page) => {
			reads.push(page);
			return 'unsupported';
		};
		const index = new ContractIndex(
			stoppedAt(() => clock),
			0,
		);
		await expect(index.find('x', { freshAfter: clock, coverFrom: 0 }, none)).resolves.toEqual({
			kind: 'unsupported',
		});
		clock += 1;
		await expect(index.find('y', { freshAfter: clock, coverFrom: 0 }, none)).resolves.toEqual({
			kind: 'unsupported',
		});
		expect(reads).toEqual([1]);
	});

	it('does not take a list that is not newest first as proof that a contract is absent', async () => {
		const { readPage } = server(() => listOf(Array.from({ length: 150 }, (_, i) => 150 - i)));
		const outcome = await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('missing', { freshAfter: NOW, coverFrom: NOW - 60 * MINUTE }, readPage);
		expect(outcome).toEqual({
			kind: 'inconclusive',
			reason: 'the server does not list contracts newest first',
		});
	});

	it('treats contracts without a client_contract_id field as a list it cannot search', async () => {
		const { readPage } = server(() => [
			{ id: 'a', status: 'pending', created_at: new Date(NOW).toISOString() },
		]);
		const outcome = await new ContractIndex(
			stoppedAt(() => NOW),
			0,
		).find('x', { freshAfter: NOW, coverFrom: 0 }, readPage);
		expect(outcome).toEqual({ kind: 'unsupported' });
	});

	it('gathers the lookups asked for while a new walk waits to read, into that walk', async () => {
		const { readPage, reads } = server(() => listOf([0, 1, 2]));
		const clock = new VirtualClock();
		clock.now = NOW;
		const index = new ContractIndex(clock.asClock(), 500);
		const found: string[] = [];
		const find = (id: string) =>
			void index
				.find(id, { freshAfter: clock.now, coverFrom: NOW - MINUTE }, readPage)
				.then(({ kind }) => found.push(`${id} ${kind}`));
		find('c0');
		await clock.run(() => false, NOW + 50);
		expect(reads).toEqual([]);
		find('c2');
		await clock.run(() => found.length === 2);
		expect(found).toEqual(['c0 found', 'c2 found']);
		expect(reads).toEqual([1]);
		expect(clock.now).toBe(NOW + 500);
	});

	it('lets lookups asked for at the same time share one walk', async () => {
		const { readPage, reads } = server(() => listOf([0, 1, 2]));
		const clock = new VirtualClock();
		clock.now = NOW;
		const index = new ContractIndex(clock.asClock(), 300);
		const need = { freshAfter: NOW, coverFrom: NOW - 10 * MINUTE };
		const outcomes = await clock.settle(
			Promise.all(['c0', 'c1', 'c2', 'c9'].map((id) => index.find(id, need, readPage))),
		);
		expect(outcomes.map(({ kind }) => kind)).toEqual(['found', 'found', 'found', 'absent']);
		expect(reads).toEqual([1]);
	});

	it('does not take a walk that began reading in the same millisecond as fresh', async () => {
		const { readPage, reads } = server(() => listOf([0, 1, 2]));
		const index = new ContractIndex(
			stoppedAt(() => NOW),
			0,
		);
		const need = { freshAfter: NOW, coverFrom: NOW - 10 * MINUTE };
		await index.find('c0', need, readPage);
		// e.g. the check after a create whose request was answered within the millisecond the last walk read in
		await index.find('c0', need, readPage);
		expect(reads).toEqual([1, 1]);
	});

	it('walks again for a lookup asked for after the last walk began, reading only what is new since', async () => {
		let clock = NOW;
		let records = listOf(Array.from({ length: 300 }, (_, i) => i));
		const { readPage, reads } = server(() => records);
		const index = new ContractIndex(
			stoppedAt(() => clock),
			0,
		);
		await index.find('c250', { freshAfter: clock, coverFrom: NOW - 400 * MINUTE }, readPage);
		expect(reads).toEqual([1, 2, 3]);

		// Five minutes later 150 contracts were created in one minute; the new one is among them.
		clock = NOW + 5 * MINUTE;
		const fresh = Array.from({ length: 150 }, (_, i) => ({
			id: `new-${i}`,
			client_contract_id: `n${i}`,
			created_at: new Date(NOW + 4 * MINUTE).toISOString(),
		}));
		records = [...fresh, ...records];
		reads.length = 0;
		const outcome = await index.find(
			'n120',
			{ freshAfter: clock, coverFrom: NOW - 400 * MINUTE },
			readPage,
		);
		expect(outcome.kind).toBe('found');
		// It stops once a page reaches back before the last walk began, minus the clock allowance.
		const pagesToAllowance = Math.ceil((150 + CLOCK_ALLOWANCE_MS / MINUTE + 1) / LOOKUP_PAGE_SIZE);
		expect(reads).toEqual(Array.from({ length: pagesToAllowance }, (_, i) => i + 1));
		expect(reads.length).toBeLessThan(4);
	});

	it('does not reuse a walk for a lookup asked for after it began', async () => {
		let clock = NOW;
		const { readPage, reads } = server(() => listOf([0]));
		const index = new ContractIndex(
			stoppedAt(() => clock),
			0,
		);
		await index.find('x', { freshAfter: clock, coverFrom: NOW - MINUTE }, readPage);
		clock += 1;
		await index.find('x', { freshAfter: clock, coverFrom: NOW - MINUTE }, readPage);
		expect(reads).toEqual([1, 1]);
	});
});

describe('clientContractIdFor: the client_contract_id derived from a key', () => {
	it('is a version 5 UUID, the same for the same key and different for another', () => {
		const id = clientContractIdFor('n8n-17-node-0-3');
		expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(clientContractIdFor('n8n-17-node-0-3')).toBe(id);
		expect(clientContractIdFor('n8n-17-node-0-4')).not.toBe(id);
		expect(clientContractIdFor('1042')).not.toBe(clientContractIdFor('1043'));
	});
});

describe('afterLookup: sending a contract request again after a failure that may have created it', () => {
	const id = '6b0c0d58-0f0e-5b0f-9a3e-3b2e0f1f1a11';

	it('sends again when the lookup proves there is no such contract', () => {
		expect(afterLookup({ kind: 'absent' }, id, undefined)).toEqual({
			sendAgain: true,
			note: `No contract with client_contract_id ${id} exists: it was not created.`,
		});
	});

	it('on a server without a contract list, sends again only with an Idempotency-Key', () => {
		expect(afterLookup({ kind: 'unsupported' }, id, 'order-1042').sendAgain).toBe(true);
		const without = afterLookup({ kind: 'unsupported' }, id, undefined);
		expect(without.sendAgain).toBe(false);
		expect(without.note).toContain('may have been created');
	});

	it('never sends again when the lookup could not finish', () => {
		const next = afterLookup({ kind: 'inconclusive', reason: 'HTTP 500' }, id, 'order-1042');
		expect(next.sendAgain).toBe(false);
		expect(next.note).toContain('looking for it failed (HTTP 500)');
		expect(next.note).toContain(id);
	});
});
