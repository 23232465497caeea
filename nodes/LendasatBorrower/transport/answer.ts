import { NodeApiError, type INode, type JsonObject } from 'n8n-workflow';

import { containsSecret, excerptOf, redactSecrets } from './errors';
import { describeValue, isRecord } from '../validation/checks';

/**
 * The shape an operation expects of a successful answer:
 * - `object`: one JSON object (a contract, an offer, a new key);
 * - `list`: a JSON array of objects (offers, keys);
 * - `page`: the page envelope `{data: [...], page, limit, total, total_pages}`;
 * - `empty`: nothing, `null` or an object (what Cancel, Delete and Mark as Read get back).
 */
export type Expectation = 'object' | 'list' | 'page' | 'empty';

/** One HTTP answer as received: the body is still text. */
export interface Answer {
	statusCode: number;
	headers: Record<string, unknown>;
	text: string;
}

export interface Reader {
	node: INode;
	/** The operation as a user reads it, e.g. "Contract → Get". */
	label: string;
	itemIndex?: number;
	secrets: string[];
	/** What else a usable answer must hold (e.g. an invoice with an address), or undefined when it does. */
	check?: AnswerCheck;
}

/** Why a well-formed answer is still of no use to the operation, or undefined when it is usable. */
export type AnswerCheck = (body: unknown) => string | undefined;

const EXPECTED: Record<Expectation, string> = {
	object: 'a JSON object',
	list: 'a JSON array of objects',
	page: 'a page of records ({"data": [...]})',
	empty: 'an empty answer or a JSON object',
};

/**
 * The parsed body of a successful answer when it is what the operation expects. Anything else is an
 * error that shows the status, the content type and a redacted excerpt; never an output item. An
 * answer that contains the API key, in any form a text may carry it (JSON escapes, percent-encoding,
 * base64), is refused whole, so the key can never reach an output item.
 */
export function readAnswer(answer: Answer, expect: Expectation, reader: Reader): unknown {
	if (containsSecret(answer.text, reader.secrets)) {
		throw unusable(answer, reader, 'it contains the API key, so the node does not pass it on');
	}
	const trimmed = answer.text.trim();
	if (trimmed === '') {
		if (expect === 'empty') return null;
		throw unusable(answer, reader, `it is empty where ${EXPECTED[expect]} belongs`);
	}
	let body: unknown;
	try {
		body = JSON.parse(trimmed);
	} catch {
		throw unusable(answer, reader, `it is not JSON where ${EXPECTED[expect]} belongs`);
	}
	const problem = shapeProblem(body, expect) ?? reader.check?.(body);
	if (problem) throw unusable(answer, reader, problem);
	return body;
}

function shapeProblem(body: unknown, expect: Expectation): string | undefined {
	if (isErrorBody(body)) return ERROR_WITH_SUCCESS_STATUS;
	const expected = EXPECTED[expect];
	switch (expect) {
		case 'empty':
			return body === null || isRecord(body)
				? undefined
				: `it is ${describeShape(body)} where ${expected} belongs`;
		case 'object':
			return isRecord(body) ? undefined : `it is ${describeShape(body)} where ${expected} belongs`;
		case 'list':
			if (!Array.isArray(body)) return `it is ${describeShape(body)} where ${expected} belongs`;
			return body.every(isRecord)
				? undefined
				: `it is an array holding something other than objects where ${expected} belongs`;
		case 'page':
			if (!isRecord(body) || !Array.isArray(body.data))
				return `it is ${describeShape(body)} where ${expected} belongs`;
			return body.data.every(isRecord) ? undefined : `its data holds something other than objects`;
	}
}

const ERROR_WITH_SUCCESS_STATUS = 'it is an error message, although the status says success';

/**
 * For an operation's answer check: the live backend's error body, `{"message": …}`, sent with a
 * success status, recognised by the absence of `field`, which the operation's real answer carries.
 */
export function liveErrorBodyWithout(body: unknown, field: string): string | undefined {
	return isRecord(body) && typeof body.message === 'string' && body[field] === undefined
		? ERROR_WITH_SUCCESS_STATUS
		: undefined;
}

/**
 * An error body sent with a success status: the specification's `{error, code, details}` without
 * anything a record would have, or the live backend's `{"message": …}` with nothing beside it but
 * other error fields. No answer an operation uses is only a message.
 */
function isErrorBody(body: unknown): boolean {
	if (!isRecord(body)) return false;
	if (typeof body.error === 'string' && typeof body.code === 'string' && body.id === undefined) {
		return true;
	}
	return (
		typeof body.message === 'string' && Object.keys(body).every((key) => ERROR_BODY_KEYS.has(key))
	);
}

const ERROR_BODY_KEYS = new Set(['message', 'error', 'code', 'details', 'status', 'statusCode']);

function describeShape(body: unknown): string {
	if (body === null) return 'null';
	if (Array.isArray(body)) return `an array of ${body.length}`;
	if (isRecord(body)) return 'an object';
	return `the ${typeof body} ${describeValue(body)}`;
}

function unusable(answer: Answer, reader: Reader, problem: string): NodeApiError {
	const contentType = headerText(answer.headers, 'content-type') || 'none';
	const excerpt = excerptOf(redactSecrets(answer.text, reader.secrets));
	return new NodeApiError(reader.node, { httpCode: String(answer.statusCode) } as JsonObject, {
		message: `Lendasat sent an answer the node cannot use (HTTP ${answer.statusCode})`,
		description: [
			`${reader.label}: the answer was not used because ${problem}.`,
			`Status ${answer.statusCode}, content type ${contentType}.`,
			excerpt ? `Server answered: "${excerpt}".` : '',
			"Check the credential's environment or base URL: it may point at something other than the Lendasat borrower API.",
		]
			.filter(Boolean)
			.join(' '),
		httpCode: String(answer.statusCode),
		itemIndex: reader.itemIndex,
	});
}

export function headerText(headers: Record<string, unknown> | undefined, name: string): string {
	const key = Object.keys(headers ?? {}).find((header) => header.toLowerCase() === name);
	const value = key ? headers?.[key] : undefined;
	return Array.isArray(value) ? String(value[0] ?? '') : value === undefined ? '' : String(value);
}
