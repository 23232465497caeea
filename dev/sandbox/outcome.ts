/** A fully serialised HTTP answer, ready to write (or to store for an idempotent replay). */
import { renderError, type ApiError } from './errors';
import type { Reply } from './router';
import type { Dialect } from './types';

export interface Outcome {
	status: number;
	headers: Record<string, string>;
	body: string;
}

const JSON_TYPE = 'application/json';
const PLAIN_TYPE = 'text/plain; charset=utf-8';

export function jsonOutcome(
	status: number,
	value: unknown,
	headers: Record<string, string> = {},
): Outcome {
	return {
		status,
		headers: { 'content-type': JSON_TYPE, ...headers },
		body: JSON.stringify(value),
	};
}

export function errorOutcome(
	dialect: Dialect,
	error: ApiError,
	headers: Record<string, string> = {},
): Outcome {
	const rendered = renderError(dialect, error);
	if (typeof rendered.body === 'string') {
		return {
			status: rendered.status,
			headers: { 'content-type': PLAIN_TYPE, ...headers },
			body: rendered.body,
		};
	}
	return jsonOutcome(rendered.status, rendered.body, headers);
}

export function replyOutcome(reply: Reply): Outcome {
	if (reply.kind === 'empty')
		return { status: reply.status, headers: { ...reply.headers }, body: '' };
	return jsonOutcome(reply.status, reply.value, reply.headers);
}
