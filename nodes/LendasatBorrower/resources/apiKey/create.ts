import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { requireText } from '../../validation/parameters';
import { apiRoute } from '../../transport/apiRoute';
import { describeValue, type ValidationProblem } from '../../validation/checks';

const showOnlyForApiKeyCreate = { show: { resource: ['apiKey'], operation: ['create'] } };

const DESCRIPTION_MAX_LENGTH = 200;
const DESCRIPTION_EXAMPLE = '"n8n reporting workflow"';

export const apiKeyCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create an API key',
	description:
		'Create a new borrower API key for this account. The key is returned only this once (as api_key): store it right away, it cannot be read again.',
	routing: apiRoute(
		{
			label: 'API Key → Create',
			toolDescription:
				'Create an API key: returns a new secret borrower key once, to be stored right away',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
		},
		{ method: 'POST', url: '/api/keys' },
		{ prepare: [validateApiKeyRequest] },
	),
};

export const apiKeyCreateFields: INodeProperties[] = [
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. n8n reporting workflow',
		description: `What the key is for, at most ${DESCRIPTION_MAX_LENGTH} characters; API Key → Get Many lists keys by it`,
		displayOptions: showOnlyForApiKeyCreate,
		routing: { send: { type: 'body', property: 'description' } },
	},
];

async function validateApiKeyRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const body = requestOptions.body as IDataObject;
	body.description = requireText(
		this,
		'Description',
		this.getNodeParameter('description'),
		checkKeyDescription,
	);
	return requestOptions;
}

function checkKeyDescription(value: unknown): ValidationProblem {
	if (typeof value !== 'string') {
		return `Expected a description as text, like ${DESCRIPTION_EXAMPLE}, got ${describeValue(value)}.`;
	}
	const description = value.trim();
	if (description === '')
		return `Must not be empty. Say what the key is for, like ${DESCRIPTION_EXAMPLE}.`;
	const length = [...description].length;
	if (length > DESCRIPTION_MAX_LENGTH) {
		return `Too long: ${length} characters, at most ${DESCRIPTION_MAX_LENGTH} are allowed.`;
	}
	return null;
}
