import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { requireText } from '../../validation/parameters';
import { timezoneOptions } from '../../descriptions/timezones';
import { apiRoute } from '../../transport/apiRoute';
import { checkEmail, checkName, checkTimezone } from '../../validation/checks';
import { checkSealingSecretFirst, sealedWhenAsked } from './sealing';

const LABEL = 'Account → Create';

const showOnlyForAccountCreate = { show: { resource: ['account'], operation: ['create'] } };
/** Name and Email are asked the same way by both ways to create an account. */
const showForBothCreates = {
	show: { resource: ['account'], operation: ['create', 'createWithOwnKey'] },
};

export const accountCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a borrower account',
	description: 'Create a borrower account for one of your users; needs a partner master key',
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Create a borrower account: a partner creates a user's account and gets its borrower API key back",
			repeat: 'once',
			keyType: 'master',
			expects: 'object',
		},
		{ method: 'POST', url: '/api/create-api-account' },
		{
			prepare: [checkSealingSecretFirst(LABEL), validateAccountRequest],
			finish: [sealedWhenAsked(LABEL)],
		},
	),
};

export const accountCreateFields: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Satoshi Nakamoto',
		description: 'Name of the borrower, at most 100 characters',
		displayOptions: showForBothCreates,
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'name@email.com',
		description: "The borrower's e-mail address",
		displayOptions: showForBothCreates,
	},
	{
		displayName: 'Timezone',
		name: 'timezone',
		type: 'options',
		required: true,
		options: timezoneOptions(),
		default: '',
		description:
			"The borrower's IANA time zone of the form Area/City. Type to search, or use an expression.",
		displayOptions: showOnlyForAccountCreate,
	},
];

/** Builds the whole body from the checked values (the fields carry no `routing.send` of their own). */
async function validateAccountRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const body = requestOptions.body as Record<string, unknown>;
	body.name = requireText(this, 'Name', this.getNodeParameter('name'), checkName);
	body.email = requireText(this, 'Email', this.getNodeParameter('email'), checkEmail);
	body.timezone = requireText(this, 'Timezone', this.getNodeParameter('timezone'), checkTimezone);
	return requestOptions;
}
