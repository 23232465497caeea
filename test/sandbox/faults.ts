/**
 * Fault injection: which request a rule hits (count-limited or probabilistic with a seeded PRNG) and
 * the answer each kind of fault gives.
 */
import { ApiError, SOMETHING_WENT_WRONG } from './errors';
import { createPrng } from './ids';
import { errorOutcome, type Outcome } from './outcome';
import type { Dialect, FaultKind, FaultRule } from './types';

export const FAULT_KINDS: FaultKind[] = ['500', '502-html', '503', 'reset', 'slow', 'truncated-json', 'empty-body'];
export const DEFAULT_SLOW_MS = 5000;

interface ArmedRule {
	rule: FaultRule;
	/** Hits left; null for probabilistic rules (never used up). */
	remaining: number | null;
}

export function validateFaultRule(rule: FaultRule): string | null {
	if (!FAULT_KINDS.includes(rule.kind)) return `unknown fault kind ${String(rule.kind)}`;
	if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
		return 'probability must be between 0 and 1';
	}
	if (rule.times !== undefined && !(Number.isSafeInteger(rule.times) && rule.times >= 1)) {
		return 'times must be a positive integer';
	}
	if (rule.delayMs !== undefined && !(Number.isFinite(rule.delayMs) && rule.delayMs >= 0)) {
		return 'delayMs must be a non-negative number';
	}
	return null;
}

function pathMatches(rulePath: string | undefined, path: string): boolean {
	if (rulePath === undefined || rulePath === '' || rulePath === path) return true;
	const prefix = rulePath.endsWith('/') ? rulePath : `${rulePath}/`;
	return path.startsWith(prefix);
}

export class FaultInjector {
	private armed: ArmedRule[] = [];
	private random: () => number;

	constructor(private readonly seed: string) {
		this.random = createPrng(`${seed}:faults`);
	}

	/** Replaces the rules (used-up counters start again) and restarts the PRNG. */
	load(rules: FaultRule[]): void {
		this.armed = rules.map((rule) => ({ rule, remaining: rule.probability === undefined ? (rule.times ?? 1) : null }));
		this.random = createPrng(`${this.seed}:faults`);
	}

	/** The first live rule matching the request, consumed; null when none hits. */
	pick(method: string, path: string): FaultRule | null {
		for (const armed of this.armed) {
			const { rule } = armed;
			if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
			if (!pathMatches(rule.path, path)) continue;
			if (armed.remaining === null) {
				if (this.random() < (rule.probability ?? 0)) return rule;
				continue;
			}
			if (armed.remaining <= 0) continue;
			armed.remaining -= 1;
			return rule;
		}
		return null;
	}
}

const BAD_GATEWAY_PAGE =
	'<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n' +
	'<hr><center>sandbox-proxy</center>\r\n</body>\r\n</html>\r\n';

function internalError(dialect: Dialect): Outcome {
	return errorOutcome(
		dialect,
		new ApiError(500, 'INTERNAL_ERROR', 'The server failed to process the request (injected fault)', SOMETHING_WENT_WRONG),
	);
}

/**
 * The answer of a fault other than 'reset' and 'slow'. `real` is the answer the request really got
 * (for `after` rules): 'truncated-json' then cuts that body in half.
 */
export function faultOutcome(kind: FaultKind, dialect: Dialect, real: Outcome | null): Outcome {
	switch (kind) {
		case '502-html':
			return { status: 502, headers: { 'content-type': 'text/html; charset=utf-8' }, body: BAD_GATEWAY_PAGE };
		case '503':
			return errorOutcome(
				dialect,
				new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable, retry later', {
					message: 'Service Unavailable',
				}),
				{ 'retry-after': '1' },
			);
		case 'truncated-json': {
			const whole = real && real.body !== '' ? real.body : internalError(dialect).body;
			return { status: 500, headers: { 'content-type': 'application/json' }, body: whole.slice(0, Math.floor(whole.length / 2)) };
		}
		case 'empty-body':
			return { status: 500, headers: {}, body: '' };
		default:
			return internalError(dialect);
	}
}
