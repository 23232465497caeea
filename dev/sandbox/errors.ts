/**
 * The one error type of the sandbox and its rendering in both dialects:
 * spec = {error, code, details}; live = {message} (possibly with another status, as the live backend does).
 */
import type { Dialect } from './types';

export interface LiveError {
	status: number;
	message: string;
	/**
	 * Answer with the message as plain text instead of `{"message": …}`: axum's own rejections from
	 * extractors the backend does not wrap (Query, Path) are `text/plain; charset=utf-8`.
	 */
	plain?: boolean;
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
	LOAN_APPLICATION_NOT_FOUND: 'Loan application not found',
	LENDER_NOT_FOUND: 'Lender not found',
	CARD_NOT_FOUND: 'Card not found',
	INVALID_CARD_ID: 'Invalid card ID',
	CARD_LIMIT: 'Card limit exceeded',
	GEO_BLOCKED: 'Unavailable for legal reasons',
	INVOICE_FAILED: 'Invoice not generated',
	DISPUTE_NOT_FOUND: 'Dispute not found',
	DISPUTE_IN_PROGRESS: 'Dispute already in progress',
	DISPUTE_NOT_STARTED_BY_BORROWER: 'Dispute not started by you',
	INVALID_DISPUTE_ID: 'Invalid dispute id',
	INVALID_LTV: 'Invalid loan-to-value ratio',
	INVALID_INTEREST_RATE: 'Invalid interest rate',
	ACCOUNT_BLOCKED: 'Account blocked',
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
		this.live = {
			status: live?.status ?? status,
			message: live?.message ?? details,
			plain: live?.plain ?? false,
		};
	}

	get title(): string {
		return TITLES[this.code] ?? this.code;
	}
}

export interface ErrorResponse {
	status: number;
	body: { error: string; code: string; details: string } | { message: string } | string;
}

export function renderError(dialect: Dialect, error: ApiError): ErrorResponse {
	if (dialect === 'live') {
		const { status, message, plain } = error.live;
		return { status, body: plain ? message : { message } };
	}
	return {
		status: error.status,
		body: { error: error.title, code: error.code, details: error.details },
	};
}

export function badRequest(code: string, details: string, live?: Partial<LiveError>): ApiError {
	return new ApiError(400, code, details, live);
}

export function unauthorized(details: string, liveMessage: string): ApiError {
	return new ApiError(401, 'UNAUTHORIZED', details, { message: liveMessage });
}

/**
 * axum 0.7's answer to a JSON body that does not fit the target type (JsonDataError, 422). The
 * backend wraps `Json` in its own `AppJson`, so the text arrives as `{"message": …}`. `reason` is
 * serde_path_to_error's text, e.g. "missing field `id` at line 1 column 2".
 */
export function liveJsonRejection(reason: string): Partial<LiveError> {
	return {
		status: 422,
		message: `Failed to deserialize the JSON body into the target type: ${reason}`,
	};
}

/** axum 0.7's JsonSyntaxError (400), also wrapped in `{"message": …}` by the backend's AppJson. */
export function liveJsonSyntaxRejection(reason: string): Partial<LiveError> {
	return { status: 400, message: `Failed to parse the request body as JSON: ${reason}` };
}

/**
 * axum 0.7's `Query` rejection (FailedToDeserializeQueryString): status 400, plain text. The backend
 * uses axum's `Query` unwrapped, so this is not `{"message": …}`. `reason` is serde_urlencoded's text
 * (no field path), e.g. "unknown variant `x`, expected `asc` or `desc`".
 */
export function liveQueryRejection(reason: string): Partial<LiveError> {
	return { status: 400, message: `Failed to deserialize query string: ${reason}`, plain: true };
}

/** axum 0.7's `Path` rejection for a segment that does not parse (plain text, 400). */
export function livePathRejection(value: string, type: string): Partial<LiveError> {
	return {
		status: 400,
		message: `Invalid URL: Cannot parse \`${value}\` to a \`${type}\``,
		plain: true,
	};
}

/** The same error, answered by the live dialect as plain text (axum's own rejection, unwrapped). */
export function asPlainText(error: ApiError): ApiError {
	return new ApiError(error.status, error.code, error.details, { ...error.live, plain: true });
}

export function contractNotFound(id: string): ApiError {
	return new ApiError(
		404,
		'CONTRACT_NOT_FOUND',
		`Contract ${shorten(id)} not found`,
		SOMETHING_WENT_WRONG,
	);
}

/** Renders a client-supplied value for an error message, cut short so that bodies stay small. */
export function shorten(value: unknown): string {
	const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
	return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
