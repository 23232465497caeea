/**
 * Page/limit parsing and the `{data, page, limit, total, total_pages}` envelope, shared by the
 * contract and notification listings.
 */
import { badRequest } from './errors';
import { numberParam } from './query';
import type { Dialect } from './types';

export interface PageRequest {
	page: number;
	limit: number;
}

export interface Page<T> extends PageRequest {
	data: T[];
	total: number;
	total_pages: number;
}

export interface PaginationRules {
	defaultLimit: number;
	maxLimit: number;
	/** Message of the live backend for a page/limit out of range; per-rule messages when absent. */
	liveMessage?: string;
}

function parseNumber(dialect: Dialect, query: Record<string, string>, field: string, fallback: number): number {
	// Spec: any integer (range checked below). Live: a u32, else axum's plain-text Query rejection.
	if (dialect === 'spec') {
		const raw = query[field];
		if (raw === undefined || raw === '') return fallback;
		if (/^-?\d+$/.test(raw)) return Number(raw);
		throw badRequest('INVALID_PAGINATION', `Parameter ${field} must be an integer`);
	}
	const details = { code: 'INVALID_PAGINATION', details: `Parameter ${field} must be an integer` };
	return numberParam(dialect, query, field, 'u32', details) ?? fallback;
}

/** `page` (default 1) and `limit`; the live backend's `validate()` answers JSON `{message}` for ranges. */
export function parsePageRequest(query: Record<string, string>, rules: PaginationRules, dialect: Dialect = 'spec'): PageRequest {
	const page = parseNumber(dialect, query, 'page', 1);
	const limit = parseNumber(dialect, query, 'limit', rules.defaultLimit);
	if (page < 1) {
		throw badRequest('INVALID_PAGINATION', 'Page must be greater than 0', { message: rules.liveMessage });
	}
	if (limit < 1 || limit > rules.maxLimit) {
		throw badRequest('INVALID_PAGINATION', `Limit must be between 1 and ${rules.maxLimit}`, {
			message: rules.liveMessage,
		});
	}
	return { page, limit };
}

export function paginate<T>(items: T[], request: PageRequest): Page<T> {
	const start = (request.page - 1) * request.limit;
	return {
		data: items.slice(start, start + request.limit),
		page: request.page,
		limit: request.limit,
		total: items.length,
		total_pages: Math.ceil(items.length / request.limit),
	};
}
