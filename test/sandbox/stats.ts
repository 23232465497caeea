/** Traffic counters, including the duplicate-contract detector used by the benchmarks. */
import type { SandboxStats } from './types';

export function emptyStats(): SandboxStats {
	return { requests: 0, byStatus: {}, contractsCreated: 0, duplicateContracts: 0, rateLimited: 0, faultsInjected: 0 };
}

export class Counters {
	private current = emptyStats();
	/** API key → canonical bodies of the contracts it created. */
	private readonly created = new Map<string, Set<string>>();

	request(): void {
		this.current.requests += 1;
	}

	/** An answer sent: its status code, or 'reset' for a dropped connection. */
	answered(status: number | 'reset'): void {
		const key = String(status);
		this.current.byStatus[key] = (this.current.byStatus[key] ?? 0) + 1;
	}

	rateLimited(): void {
		this.current.rateLimited += 1;
	}

	faultInjected(): void {
		this.current.faultsInjected += 1;
	}

	contractCreated(apiKey: string, canonicalRequest: string): void {
		this.current.contractsCreated += 1;
		let seen = this.created.get(apiKey);
		if (!seen) {
			seen = new Set();
			this.created.set(apiKey, seen);
		}
		if (seen.has(canonicalRequest)) this.current.duplicateContracts += 1;
		else seen.add(canonicalRequest);
	}

	snapshot(): SandboxStats {
		return { ...this.current, byStatus: { ...this.current.byStatus } };
	}

	clear(): void {
		this.current = emptyStats();
		this.created.clear();
	}
}
