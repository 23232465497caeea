import {
	NodeApiError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type IN8nHttpFullResponse,
	type INode,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './credentials';
import { mapApiError } from './errors';

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

/** The error for an error status answering a request that needs a borrower key; `note` ends its description. */
export function borrowerRequestError(
	node: INode,
	label: string,
	response: IN8nHttpFullResponse,
	apiKey: string,
	note = '',
): NodeApiError {
	const mapped = mapApiError({
		operation: label,
		statusCode: response.statusCode,
		headers: response.headers,
		body: response.body,
		requiredKeyType: 'borrower',
		secrets: [apiKey],
	});
	return new NodeApiError(node, { httpCode: mapped.httpCode, code: mapped.code ?? null } as JsonObject, {
		message: mapped.message,
		description: `${mapped.description}${note}`,
		httpCode: mapped.httpCode,
	});
}
