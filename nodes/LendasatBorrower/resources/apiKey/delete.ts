import {
	NodeOperationError,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IExecuteSingleFunctions,
	type IHttpRequestOptions,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { requireValid } from '../../validation/parameters';
import { apiRoute, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { describeValue, toNumber, type ValidationProblem } from '../../validation/checks';

const showOnlyForApiKeyDelete = { show: { resource: ['apiKey'], operation: ['delete'] } };

/** Key IDs are PostgreSQL int4 values in the live backend. */
const MAX_KEY_ID = 2_147_483_647;
const KEY_ID_EXAMPLE = '42';

export const apiKeyDeleteOperation: INodePropertyOptions = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete an API key',
	description: "Revoke one of this account's API keys; it stops working at once",
	routing: apiRoute(
		{
			label: 'API Key → Delete',
			toolDescription:
				'Delete an API key: revokes it at once (irreversible); needs the numeric key ID',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			notFound: { parameter: 'apiKeyId', label: 'API key' },
		},
		{ method: 'DELETE', url: '/api/keys' },
		{ prepare: [setKeyUrl], send: deleteWhenKeyExists },
	),
};

export const apiKeyDeleteFields: INodeProperties[] = [
	{
		displayName: 'API Key ID',
		name: 'apiKeyId',
		type: 'number',
		required: true,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 0,
		placeholder: 'e.g. 42',
		description:
			'The numeric ID of the key, as listed by API Key → Get Many. Careful: deleting the key this credential itself uses succeeds, but locks the credential out: every request sent with it afterwards, including other items of this run, fails with 401 until you put another key into the credential.',
		displayOptions: showOnlyForApiKeyDelete,
	},
];

async function setKeyUrl(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const id = toNumber(
		requireValid(this, 'API Key ID', this.getNodeParameter('apiKeyId'), checkKeyId),
	);
	requestOptions.url = `/api/keys/${id}`;
	return requestOptions;
}

/**
 * The live backend answers 200 for a key ID that does not exist, so the keys are listed first. The
 * API answers the deletion with an empty 200; the item says which key is gone.
 */
async function deleteWhenKeyExists(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const id = toNumber(this.getNodeParameter('apiKeyId'));
	const keys = (await api.send({ method: 'GET', url: '/api/keys' }, 'list')) as IDataObject[];
	if (!keys.some((key) => toNumber(key.id) === id)) {
		const ids = keys.map((key) => String(key.id)).join(', ');
		throw new NodeOperationError(this.getNode(), `No API key with ID ${id}`, {
			itemIndex: this.getItemIndex(),
			description: `API Key → Delete: nothing was deleted. This account's key IDs are ${ids || 'none'} (API Key → Get Many lists them).`,
		});
	}
	await api.send(request, 'empty');
	return [{ json: { id, deleted: true } }];
}

function checkKeyId(value: unknown): ValidationProblem {
	const id = toNumber(value);
	if (typeof value === 'string' && value.trim() === '')
		return `Must not be empty. Enter a key ID like ${KEY_ID_EXAMPLE}.`;
	if (Number.isNaN(id)) {
		return `Expected a whole-number key ID like ${KEY_ID_EXAMPLE} (API Key → Get Many lists them), got ${describeValue(value)}.`;
	}
	if (!Number.isInteger(id))
		return `Must be a whole number like ${KEY_ID_EXAMPLE}, got ${describeValue(value)}.`;
	if (id < 1 || id > MAX_KEY_ID) {
		return `Must be between 1 and ${MAX_KEY_ID}, got ${describeValue(value)}.`;
	}
	return null;
}
