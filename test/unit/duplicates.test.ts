import type { IDataObject, INode } from 'n8n-workflow';

import {
	cancelledDuplicates,
	duplicatesError,
	resolveDuplicates,
} from '../../nodes/LendasatBorrower/resources/contract/duplicates';

const CLIENT_ID = '6b0c0d58-0f0e-5b0f-9a3e-3b2e0f1f1a11';

function contract(id: string, status: string, createdAt?: string): IDataObject {
	return {
		id,
		status,
		client_contract_id: CLIENT_ID,
		...(createdAt === undefined ? {} : { created_at: createdAt }),
	};
}

const ids = (contracts: IDataObject[]) => contracts.map(({ id }) => id);

describe('resolveDuplicates: which contract of one key every execution keeps', () => {
	it('keeps the earliest and cancels the later ones that are still Requested or Approved', () => {
		const later = contract('c2', 'Approved', '2026-11-23T12:00:01.000Z');
		const earliest = contract('c1', 'Requested', '2026-11-23T12:00:00.500Z');
		const latest = contract('c3', 'Requested', '2026-11-23T12:00:02.000Z');
		const resolution = resolveDuplicates([latest, earliest, later]);
		expect(resolution?.keep).toBe(earliest);
		expect(ids(resolution?.cancel ?? [])).toEqual(['c2', 'c3']);
		expect(resolution?.stuck).toEqual([]);
	});

	it('makes the same choice whatever order the contracts come in', () => {
		const contracts = [
			contract('c9', 'Requested', '2026-11-23T12:00:03Z'),
			contract('c4', 'Requested', '2026-11-23T12:00:01Z'),
			contract('c7', 'Requested', '2026-11-23T12:00:02Z'),
		];
		const kept = new Set(
			[contracts, [...contracts].reverse(), [contracts[1], contracts[2], contracts[0]]].map(
				(order) => resolveDuplicates(order)?.keep.id,
			),
		);
		expect([...kept]).toEqual(['c4']);
	});

	it('breaks a tie of created_at by id', () => {
		const at = '2026-11-23T12:00:00Z';
		const resolution = resolveDuplicates([
			contract('f00', 'Requested', at),
			contract('a00', 'Requested', at),
		]);
		expect(resolution?.keep.id).toBe('a00');
		expect(ids(resolution?.cancel ?? [])).toEqual(['f00']);
	});

	it('ignores contracts already Cancelled, Rejected or expired, so a later look agrees with an earlier one', () => {
		// Execution A kept c1 and cancelled c2; execution B, which created c2, looks afterwards.
		const afterA = [
			contract('c2', 'Cancelled', '2026-11-23T12:00:01Z'),
			contract('c1', 'Requested', '2026-11-23T12:00:00Z'),
		];
		expect(resolveDuplicates(afterA)).toEqual({ keep: afterA[1], cancel: [], stuck: [] });

		const ended = [
			contract('e1', 'Rejected', '2026-11-23T11:00:00Z'),
			contract('e2', 'RequestExpired', '2026-11-23T11:10:00Z'),
			contract('e3', 'approval_expired', '2026-11-23T11:20:00Z'),
			contract('c5', 'Requested', '2026-11-23T12:00:00Z'),
		];
		expect(resolveDuplicates(ended)).toEqual({ keep: ended[3], cancel: [], stuck: [] });
	});

	it('reads the specification server\'s "pending" as Requested', () => {
		const resolution = resolveDuplicates([
			contract('s1', 'pending', '2026-11-23T12:00:00Z'),
			contract('s2', 'pending', '2026-11-23T12:00:01Z'),
		]);
		expect(ids(resolution?.cancel ?? [])).toEqual(['s2']);
	});

	it('cannot cancel a later contract that is funded: it is stuck', () => {
		const resolution = resolveDuplicates([
			contract('c1', 'Requested', '2026-11-23T12:00:00Z'),
			contract('c2', 'PrincipalGiven', '2026-11-23T12:00:01Z'),
			contract('c3', 'Approved', '2026-11-23T12:00:02Z'),
		]);
		expect(resolution?.keep.id).toBe('c1');
		expect(ids(resolution?.cancel ?? [])).toEqual(['c3']);
		expect(ids(resolution?.stuck ?? [])).toEqual(['c2']);
	});

	it('keeps an earlier funded contract and cancels the new request', () => {
		const resolution = resolveDuplicates([
			contract('new', 'Requested', '2026-11-23T12:00:01Z'),
			contract('old', 'CollateralConfirmed', '2026-11-23T12:00:00Z'),
		]);
		expect(resolution?.keep.id).toBe('old');
		expect(ids(resolution?.cancel ?? [])).toEqual(['new']);
	});

	it('when every contract has ended, cancels nothing and keeps the newest, as a lookup always returned', () => {
		const resolution = resolveDuplicates([
			contract('c1', 'Cancelled', '2026-11-23T12:00:00Z'),
			contract('c2', 'Cancelled', '2026-11-23T12:00:01Z'),
		]);
		expect(resolution).toEqual({
			keep: expect.objectContaining({ id: 'c2' }),
			cancel: [],
			stuck: [],
		});
	});

	it('counts a contract without a readable created_at as the latest, and leaves out contracts without an id', () => {
		const resolution = resolveDuplicates([
			contract('undated', 'Requested'),
			contract('dated', 'Requested', '2026-11-23T12:00:00Z'),
			{ status: 'Requested', client_contract_id: CLIENT_ID, created_at: '2026-11-01T00:00:00Z' },
		]);
		expect(resolution?.keep.id).toBe('dated');
		expect(ids(resolution?.cancel ?? [])).toEqual(['undated']);
		expect(resolveDuplicates([{ status: 'Requested' }])).toBeUndefined();
		expect(resolveDuplicates([])).toBeUndefined();
	});
});

describe('cancelledDuplicates: what the output names', () => {
	it('names the contracts created after the kept one that are now Cancelled, earliest first', () => {
		const kept = contract('k', 'Requested', '2026-11-23T12:00:01Z');
		const contracts = [
			contract('z', 'Cancelled', '2026-11-23T12:00:03Z'),
			kept,
			contract('y', 'cancelled', '2026-11-23T12:00:02Z'),
			contract('older', 'Cancelled', '2026-11-22T12:00:00Z'),
			contract('open', 'Requested', '2026-11-23T12:00:04Z'),
			contract('gone', 'Rejected', '2026-11-23T12:00:05Z'),
		];
		expect(cancelledDuplicates(kept, contracts)).toEqual(['y', 'z']);
		expect(cancelledDuplicates(kept, [kept])).toEqual([]);
	});
});

describe('duplicatesError: when an extra contract cannot be cancelled', () => {
	const node = { id: 'n1', name: 'Lendasat Borrower' } as INode;
	const kept = contract('c1', 'Requested', '2026-11-23T12:00:00Z');
	const funded = contract('c2', 'PrincipalGiven', '2026-11-23T12:00:01Z');
	const cancelled = contract('c3', 'Cancelled', '2026-11-23T12:00:02Z');

	it('names every contract with the key, its status and the one kept, why the extra is open, and what to do', () => {
		const error = duplicatesError(node, 4, CLIENT_ID, [funded, cancelled, kept], kept, [
			{ contract: funded, reason: 'it is PrincipalGiven' },
		]);
		expect(error.message).toBe(
			'More than one contract was created for this key, and one cannot be cancelled [item 4]',
		);
		expect(error.description).toContain(`client_contract_id ${CLIENT_ID}`);
		expect(error.description).toContain(
			`Contracts with client_contract_id ${CLIENT_ID}: c1 (Requested, created 2026-11-23T12:00:00Z, the one the node keeps); c2 (PrincipalGiven, created 2026-11-23T12:00:01Z); c3 (Cancelled, created 2026-11-23T12:00:02Z).`,
		);
		expect(error.description).toContain('The node keeps the earliest (c1)');
		expect(error.description).toContain('c2: it is PrincipalGiven');
		expect(error.description).toContain('Contract → Cancel');
		expect(error.description).toContain(
			'running this item again fails the same way (c2 stays open)',
		);
		expect(error.context.itemIndex).toBe(4);
	});

	it('says when the cancel itself failed', () => {
		const open = contract('c2', 'Approved', '2026-11-23T12:00:01Z');
		const error = duplicatesError(node, 0, CLIENT_ID, [kept, open], kept, [
			{
				contract: open,
				reason: 'cancelling it failed (Lendasat is temporarily unavailable (HTTP 503))',
			},
		]);
		expect(error.description).toContain(
			'c2: cancelling it failed (Lendasat is temporarily unavailable (HTTP 503))',
		);
	});
});
