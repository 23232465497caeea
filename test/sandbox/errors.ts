/**
 * The one error type of the sandbox and its rendering in both dialects:
 * spec = {error, code, details}; live = {message} (possibly with another status, as the live backend does).
 */
import type { Dialect } from './types';

export interface LiveError {
	status: number;
	message: string;
}

const TITLES: Record<string, string> = {
	UNAUTHORIZED: 'Unauthorized',
	MISSING_FIELD: 'Missing required field',
	INVALID_BODY: 'Invalid request body',
	INVALID_FIELD: 'Invalid field',
	INVALID_NAME: 'Invalid name',
	INVALID_EMAIL: 'Invalid email',
	INVALID_TIMEZONE: 'Invalid timezone',
	INVALID_LOAN_ID: 'Invalid loan id',
	INVALID_AMOUNT: 'Invalid loan amount',
	INVALID_DURATION: 'Invalid loan duration',
	INVALID_CONTENT_TYPE: 'Unsupported content type',
	INVALID_JSON: 'Invalid JSON',
	INVALID_QUERY: 'Invalid query parameter',
	INVALID_PAGINATION: 'Invalid pagination',
	INVALID_STATE: 'Invalid contract state',
	INVALID_KEY_ID: 'Invalid key id',
	INVALID_IDEMPOTENCY_KEY: 'Invalid idempotency key',
	INSTALLMENT_NOT_FOUND: 'Installment not found',
	EXTENSION_NOT_ALLOWED: 'Extension not allowed',
	OFFER_NOT_FOUND: 'Loan offer not found',
	CONTRACT_NOT_FOUND: 'Contract not found',
	KEY_NOT_FOUND: 'API key not found',
	NOT_FOUND: 'Not found',
	METHOD_NOT_ALLOWED: 'Method not allowed',
	PAYLOAD_TOO_LARGE: 'Payload too large',
	IDEMPOTENCY_KEY_REUSED: 'Idempotency key reused',
	RATE_LIMITED: 'Too many requests',
	INTERNAL_ERROR: 'Internal server error',
	SERVICE_UNAVAILABLE: 'Service unavailable',
};

export const SOMETHING_WENT_WRONG: LiveError = { status: 500, message: 'Something went wrong' };

export class ApiError extends Error {
	readonly live: LiveError;

	constructor(
		readonly status: number,
		readonly code: string,
		readonly details: string,
		live?: Partial<LiveError>,
	) {
		super(details);
		this.live = { status: live?.status ?? status, message: live?.message ?? details };
	}

	get title(): string {
		return TITLES[this.code] ?? this.code;
	}
}

export interface ErrorResponse {
	status: number;
	body: { error: string; code: string; details: string } | { message: string };
}

export function renderError(dialect: Dialect, error: ApiError): ErrorResponse {
	if (dialect === 'live') {
		return { status: error.live.status, body: { message: error.live.message } };
	}
	return { status: error.status, body: { error: error.title, code: error.code, details: error.details } };
}

export function badRequest(code: string, details: string, live?: Partial<LiveError>): ApiError {
	return new ApiError(400, code, details, live);
}

export function unauthorized(details: string, liveMessage: string): ApiError {
	return new ApiError(401, 'UNAUTHORIZED', details, { message: liveMessage });
}

/** axum's answer to a JSON body that does not fit the target type. */
export function liveJsonRejection(reason: string): Partial<LiveError> {
	return { status: 422, message: `Failed to deserialize the JSON body into the target type: ${reason}` };
}

/** axum's answer to a query string that does not fit the target type. */
export function liveQueryRejection(reason: string): Partial<LiveError> {
	return { status: 400, message: `Failed to deserialize query string: ${reason}` };
}

export function contractNotFound(id: string): ApiError {
	return new ApiError(404, 'CONTRACT_NOT_FOUND', `Contract ${shorten(id)} not found`, SOMETHING_WENT_WRONG);
}

/** Renders a client-supplied value for an error message, cut short so that bodies stay small. */
export function shorten(value: unknown): string {
	const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
	return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
