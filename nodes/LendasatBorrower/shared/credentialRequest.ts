import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type IN8nHttpFullResponse,
	type INode,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './credentials';
import { mapApiError, redactSecrets, type ApiErrorInput } from './errors';
import { describeFailure, networkFailureInWords, type Failure } from './retry';

/**
 * A GET with the credential's key, for code that sends its own requests instead of the node's
 * routing (the pickers, the trigger): the full response whatever its status, which the caller maps.
 */
export async function getWithCredential(
	context: ILoadOptionsFunctions | IPollFunctions,
	url: string,
	qs: IDataObject,
): Promise<IN8nHttpFullResponse> {
	return (await context.helpers.httpRequestWithAuthentication.call(context, CREDENTIAL_TYPE, {
		method: 'GET',
		url,
		qs,
		headers: { Accept: 'application/json' },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	})) as IN8nHttpFullResponse;
}

/** The n8n error for an error answer of the API: the mapped message and description, the status as httpCode. */
export function apiError(
	node: INode,
	input: ApiErrorInput,
	extra: { itemIndex?: number; note?: string } = {},
): NodeApiError {
	const mapped = mapApiError(input);
	return new NodeApiError(node, { httpCode: mapped.httpCode, code: mapped.code ?? null } as JsonObject, {
		message: mapped.message,
		description: `${mapped.description}${extra.note ?? ''}`,
		httpCode: mapped.httpCode,
		itemIndex: extra.itemIndex,
	});
}

/** The error for an error status answering a request that needs a borrower key; `note` ends its description. */
export function borrowerRequestError(
	node: INode,
	label: string,
	response: IN8nHttpFullResponse,
	apiKey: string,
	note = '',
): NodeApiError {
	return apiError(
		node,
		{
			operation: label,
			statusCode: response.statusCode,
			headers: response.headers,
			body: response.body,
			requiredKeyType: 'borrower',
			secrets: [apiKey],
		},
		{ note },
	);
}

/**
 * Anything else the HTTP helper threw, re-created from its message alone: an error from the HTTP
 * client can carry the request configuration, headers and API key included.
 */
export function rebuiltError(node: INode, error: unknown, apiKey: string, itemIndex?: number): NodeOperationError {
	if (error instanceof NodeOperationError) return error;
	const { message, description } = error as { message?: unknown; description?: unknown };
	return new NodeOperationError(node, redactSecrets(String(message ?? 'Unknown error'), [apiKey]), {
		itemIndex,
		description: typeof description === 'string' ? redactSecrets(description, [apiKey]) : undefined,
	});
}

/**
 * The error when no answer came back at all. The message names the failure in words only: n8n
 * replaces any message containing a network error code with a generic sentence of its own.
 */
export function unreachableError(
	node: INode,
	target: { label: string; baseUrl: string; apiKey: string; itemIndex?: number },
	failures: Failure[],
	notes: string[],
): NodeApiError {
	const last = failures[failures.length - 1];
	const scrub = (text: string) => redactSecrets(text, [target.apiKey]);
	return new NodeApiError(node, { networkError: last.kind === 'network' ? last.code : 'unknown' } as JsonObject, {
		message: scrub(
			`Could not get an answer from Lendasat: ${last.kind === 'network' ? networkFailureInWords(last.code) : describeFailure(last)}`,
		),
		description: scrub(
			[
				`${target.label}: the request to ${target.baseUrl} failed (${describeFailure(last)}).`,
				...notes,
				"Check the credential's environment or base URL, and that the host is reachable from n8n.",
			].join(' '),
		),
		itemIndex: target.itemIndex,
	});
}
