/**
 * Page/limit parsing and the `{data, page, limit, total, total_pages}` envelope, shared by the
 * contract and notification listings.
 */
import { badRequest } from './errors';

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
	/** Message of the live backend for any violation; per-rule messages when absent. */
	liveMessage?: string;
}

function parseNumber(raw: string | undefined, fallback: number, field: string, rules: PaginationRules): number {
	if (raw === undefined || raw === '') return fallback;
	if (/^-?\d+$/.test(raw)) return Number(raw);
	throw badRequest('INVALID_PAGINATION', `Parameter ${field} must be an integer`, {
		message: rules.liveMessage ?? `Failed to deserialize query string: ${field}: invalid digit found in string`,
	});
}

export function parsePageRequest(query: Record<string, string>, rules: PaginationRules): PageRequest {
	const page = parseNumber(query.page, 1, 'page', rules);
	const limit = parseNumber(query.limit, rules.defaultLimit, 'limit', rules);
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
