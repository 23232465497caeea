/**
 * Idempotency-Key support for POST /api/contracts: successful answers are stored per (API key,
 * idempotency key) with a fingerprint of the body; a repeat replays, a different body conflicts.
 */
import type { Outcome } from './outcome';

export type IdempotencyLookup =
	| { kind: 'miss' }
	| { kind: 'replay'; outcome: Outcome }
	| { kind: 'conflict' };

interface Stored {
	fingerprint: string;
	outcome: Outcome;
}

/** JSON with object keys sorted, so that key order and whitespace do not change the fingerprint. */
export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, item]) => item !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

export class IdempotencyStore {
	private readonly stored = new Map<string, Stored>();

	private static slot(apiKey: string, idempotencyKey: string): string {
		return `${apiKey}\u0000${idempotencyKey}`;
	}

	lookup(apiKey: string, idempotencyKey: string, fingerprint: string): IdempotencyLookup {
		const hit = this.stored.get(IdempotencyStore.slot(apiKey, idempotencyKey));
		if (!hit) return { kind: 'miss' };
		return hit.fingerprint === fingerprint
			? { kind: 'replay', outcome: hit.outcome }
			: { kind: 'conflict' };
	}

	save(apiKey: string, idempotencyKey: string, fingerprint: string, outcome: Outcome): void {
		this.stored.set(IdempotencyStore.slot(apiKey, idempotencyKey), { fingerprint, outcome });
	}

	clear(): void {
		this.stored.clear();
	}
}
