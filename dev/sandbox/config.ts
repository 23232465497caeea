/** Sandbox behaviour switches: defaults and validation of a patch. */
import { ApiError } from './errors';
import { validateFaultRule } from './faults';
import type { PagingMode, SandboxConfig } from './types';

export const PAGING_MODES: PagingMode[] = [
	'ignore-page',
	'endless',
	'lying-total-pages',
	'no-ids',
	'small-pages',
	'inflated-total',
];

export function defaultConfig(): SandboxConfig {
	return {
		dialect: 'spec',
		createStatus: 200,
		rateLimit: null,
		idempotency: false,
		faults: [],
		latencyMs: 0,
		paging: null,
	};
}

const CONFIG_KEYS: (keyof SandboxConfig)[] = [
	'dialect',
	'createStatus',
	'rateLimit',
	'idempotency',
	'faults',
	'latencyMs',
	'paging',
];

function invalid(details: string): ApiError {
	return new ApiError(400, 'INVALID_CONFIG', `Invalid sandbox configuration: ${details}`);
}

function checkRateLimit(rateLimit: SandboxConfig['rateLimit']): void {
	if (rateLimit === null) return;
	if (typeof rateLimit !== 'object' || !(rateLimit.requestsPerSecond > 0)) {
		throw invalid('rateLimit.requestsPerSecond must be a positive number');
	}
	if (
		rateLimit.retryAfter !== undefined &&
		!['seconds', 'http-date', 'none'].includes(rateLimit.retryAfter)
	) {
		throw invalid("rateLimit.retryAfter must be 'seconds', 'http-date' or 'none'");
	}
	if (
		rateLimit.stormUntilMs !== undefined &&
		!(typeof rateLimit.stormUntilMs === 'number' && Number.isFinite(rateLimit.stormUntilMs))
	) {
		throw invalid('rateLimit.stormUntilMs must be a time in epoch milliseconds');
	}
}

/** Throws a 400 ApiError (code INVALID_CONFIG) on an unknown key or a bad value. */
export function validateConfigPatch(patch: Partial<SandboxConfig>): Partial<SandboxConfig> {
	const unknown = Object.keys(patch).filter(
		(key) => !CONFIG_KEYS.includes(key as keyof SandboxConfig),
	);
	if (unknown.length > 0) throw invalid(`unknown setting ${unknown.join(', ')}`);
	if (patch.dialect !== undefined && patch.dialect !== 'spec' && patch.dialect !== 'live') {
		throw invalid("dialect must be 'spec' or 'live'");
	}
	if (
		patch.createStatus !== undefined &&
		patch.createStatus !== 200 &&
		patch.createStatus !== 201
	) {
		throw invalid('createStatus must be 200 or 201');
	}
	if (patch.rateLimit !== undefined) checkRateLimit(patch.rateLimit);
	if (patch.idempotency !== undefined && typeof patch.idempotency !== 'boolean') {
		throw invalid('idempotency must be a boolean');
	}
	if (
		patch.latencyMs !== undefined &&
		!(Number.isFinite(patch.latencyMs) && patch.latencyMs >= 0)
	) {
		throw invalid('latencyMs must be a non-negative number');
	}
	if (patch.paging !== undefined && patch.paging !== null && !PAGING_MODES.includes(patch.paging)) {
		throw invalid(`paging must be null or one of ${PAGING_MODES.join(', ')}`);
	}
	if (patch.faults !== undefined) {
		if (!Array.isArray(patch.faults)) throw invalid('faults must be an array');
		for (const rule of patch.faults) {
			const problem = validateFaultRule(rule);
			if (problem) throw invalid(problem);
		}
	}
	return patch;
}
