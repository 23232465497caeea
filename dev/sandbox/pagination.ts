/**
 * Page/limit parsing and the `{data, page, limit, total, total_pages}` envelope, shared by the
 * contract and notification listings.
 */
import { badRequest } from './errors';
import { numberParam } from './query';
import type { Dialect, PagingMode } from './types';

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

function parseNumber(
	dialect: Dialect,
	query: Record<string, string>,
	field: string,
	fallback: number,
): number {
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
export function parsePageRequest(
	query: Record<string, string>,
	rules: PaginationRules,
	dialect: Dialect = 'spec',
): PageRequest {
	const page = parseNumber(dialect, query, 'page', 1);
	const limit = parseNumber(dialect, query, 'limit', rules.defaultLimit);
	if (page < 1) {
		throw badRequest('INVALID_PAGINATION', 'Page must be greater than 0', {
			message: rules.liveMessage,
		});
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

/** `total_pages` of an 'endless' listing. */
export const ENDLESS_TOTAL_PAGES = 1_000_000;

/** How a listing's records are made up ('endless') or stripped of their id ('no-ids'). */
export interface LyingRecords<T> {
	/** Record `index` of page `page`, with an id no other page has. */
	invent(page: number, index: number): T;
	withoutId(record: T): T;
}

/**
 * The page to answer under the configured paging lie (SandboxConfig.paging); `build` is the honest
 * listing of a page request.
 */
export function lyingPage<T>(
	mode: PagingMode | null,
	request: PageRequest,
	build: (request: PageRequest) => Page<T>,
	records: LyingRecords<T>,
): Page<T> {
	switch (mode) {
		case 'ignore-page':
			return build({ ...request, page: 1 });
		case 'endless':
			return {
				data: Array.from({ length: request.limit }, (_, index) =>
					records.invent(request.page, index),
				),
				page: request.page,
				limit: request.limit,
				total: ENDLESS_TOTAL_PAGES * request.limit,
				total_pages: ENDLESS_TOTAL_PAGES,
			};
		case 'lying-total-pages':
			return { ...build(request), total_pages: 1 };
		case 'no-ids': {
			const page = build(request);
			return { ...page, data: page.data.map((record) => records.withoutId(record)) };
		}
		// A server (or proxy) with a smaller maximum page: legal, the client reads on by page number.
		case 'small-pages':
			return build({ ...request, limit: Math.ceil(request.limit / 2) });
		case 'inflated-total': {
			const page = build(request);
			const total = page.total + request.limit;
			return { ...page, total, total_pages: Math.ceil(total / request.limit) };
		}
		default:
			return build(request);
	}
}
