/** Traffic counters, including the duplicate-contract detector used by the benchmarks. */
import type { SandboxStats } from './types';

/**
 * What makes two created contracts "the same request". A client that sends `client_contract_id`
 * names its request itself (the live backend stores it without a unique constraint, so a retry
 * creates a second contract with the same id: a duplicate). Without one, the canonical body plus
 * the Idempotency-Key header (none = '') identify it: a benchmark that sends identical bodies with
 * distinct keys creates no duplicates, a retry that re-sends the same key and body does.
 */
export interface ContractIdentity {
	clientContractId?: string | null;
	canonicalRequest: string;
	idempotencyKey?: string | null;
}

export function identitySlot(identity: ContractIdentity): string {
	if (identity.clientContractId) return `client:${identity.clientContractId.toLowerCase()}`;
	return `request:${identity.canonicalRequest}\u0000${identity.idempotencyKey ?? ''}`;
}

export function emptyStats(): SandboxStats {
	return {
		requests: 0,
		byStatus: {},
		byRoute: {},
		contractsCreated: 0,
		duplicateContracts: 0,
		rateLimited: 0,
		faultsInjected: 0,
		openConnections: 0,
		peakConnections: 0,
		connections: 0,
		requestsInFlight: 0,
		peakRequestsInFlight: 0,
		peakRequestsPerKeySecond: 0,
	};
}

export class Counters {
	private current = emptyStats();
	/** API key → identity slots (see identitySlot) of the contracts it created. */
	private readonly created = new Map<string, Set<string>>();
	/** API key → when its requests of the last second came (ms). */
	private readonly lastSecond = new Map<string, number[]>();

	/** A TCP connection accepted. */
	connectionOpened(): void {
		this.current.openConnections += 1;
		this.current.connections += 1;
		this.current.peakConnections = Math.max(
			this.current.peakConnections,
			this.current.openConnections,
		);
	}

	connectionClosed(): void {
		this.current.openConnections = Math.max(0, this.current.openConnections - 1);
	}

	/** An API request of this key at this time (ms): counts toward its busiest second. */
	keyRequest(apiKey: string, at: number): void {
		const times = (this.lastSecond.get(apiKey) ?? []).filter((time) => time > at - 1000);
		times.push(at);
		this.lastSecond.set(apiKey, times);
		this.current.peakRequestsPerKeySecond = Math.max(
			this.current.peakRequestsPerKeySecond,
			times.length,
		);
	}

	/** An API request received; it is in flight until requestEnded. */
	requestStarted(): void {
		this.current.requestsInFlight += 1;
		this.current.peakRequestsInFlight = Math.max(
			this.current.peakRequestsInFlight,
			this.current.requestsInFlight,
		);
	}

	/** An API request answered, or its client gone. */
	requestEnded(): void {
		this.current.requestsInFlight = Math.max(0, this.current.requestsInFlight - 1);
	}

	/** An API request recorded; `route` is its method and route pattern (see SandboxStats.byRoute). */
	request(route: string): void {
		this.current.requests += 1;
		this.current.byRoute[route] = (this.current.byRoute[route] ?? 0) + 1;
	}

	/** An answer sent: its status code, 'reset' for a dropped connection, 'hang' for none at all. */
	answered(status: number | 'reset' | 'hang'): void {
		const key = String(status);
		this.current.byStatus[key] = (this.current.byStatus[key] ?? 0) + 1;
	}

	rateLimited(): void {
		this.current.rateLimited += 1;
	}

	faultInjected(): void {
		this.current.faultsInjected += 1;
	}

	contractCreated(apiKey: string, identity: ContractIdentity): void {
		const slot = identitySlot(identity);
		this.current.contractsCreated += 1;
		let seen = this.created.get(apiKey);
		if (!seen) {
			seen = new Set();
			this.created.set(apiKey, seen);
		}
		if (seen.has(slot)) this.current.duplicateContracts += 1;
		else seen.add(slot);
	}

	snapshot(): SandboxStats {
		return {
			...this.current,
			byStatus: { ...this.current.byStatus },
			byRoute: { ...this.current.byRoute },
		};
	}

	/** Starts counting again; connections and requests open now stay counted (the peaks start at them). */
	clear(): void {
		const { openConnections: open, requestsInFlight: inFlight } = this.current;
		this.current = {
			...emptyStats(),
			openConnections: open,
			peakConnections: open,
			requestsInFlight: inFlight,
			peakRequestsInFlight: inFlight,
		};
		this.created.clear();
		this.lastSecond.clear();
	}
}
