import { randomBytes } from 'crypto';
import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { timezoneOptions } from '../../descriptions/timezones';
import { liveErrorBodyWithout } from '../../transport/answer';
import {
	apiRoute,
	credentialsOf,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { checkOwnApiKey, generateApiKey } from '../../validation/apiKeys';
import {
	checkEmail,
	checkName,
	checkReferralCode,
	checkTimezone,
	isRecord,
} from '../../validation/checks';
import { invalidParameter, requireText } from '../../validation/parameters';
import { checkSealingSecretFirst, sealedWhenAsked } from './sealing';

const OPERATION = 'createWithOwnKey';
const LABEL = 'Account → Create With Own Key';
/** The new account always has an id; Lendasat's error body sent with a 200 has none. */
const accountAnswer = (body: unknown) => liveErrorBodyWithout(body, 'id');
const showOnlyForOwnKey = { show: { resource: ['account'], operation: [OPERATION] } };

export const accountCreateWithOwnKeyOperation: INodePropertyOptions = {
	name: 'Create With Own Key',
	value: OPERATION,
	action: 'Create an account with its own key',
	description:
		'Create a borrower account with a referral code instead of a partner master key, and with an API key made here: yours, or one the node generates. The output shows the key once.',
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				'Create a borrower account with a referral code: registers a new user and returns its borrower API key (shown once)',
			repeat: 'once',
			// Lendasat's router registers this route outside any key check (routes/borrower/api_accounts.rs):
			// the credential's key, sent as always, is not read, so either key type does.
			keyType: 'any',
			expects: 'object',
			answer: accountAnswer,
			errors: [
				{
					statusCodes: [400],
					codes: ['INVALID_REFERRAL_CODE'],
					text: /invalid referral code/i,
					message: 'Lendasat does not accept this referral code',
					hint: 'check the code: Lendasat compares it exactly (letter case included), and it must be active and not expired. Nothing was created.',
				},
				{
					statusCodes: [400],
					codes: ['INVALID_API_KEY_FORMAT'],
					text: /invalid api key format/i,
					message: "Lendasat refused the format of the account's API key",
					hint: 'give a key of the form lndst_sk_ + 12 hexadecimal characters + _ + a secret of letters and digits, or leave Account API Key empty and the node makes one. Nothing was created.',
				},
				{
					statusCodes: [400, 409],
					codes: ['EMAIL_IN_USE'],
					text: /email already in use/i,
					message: 'This e-mail address already has a Lendasat account',
					hint: "use another address. If an earlier run of this workflow created the account, its key is in that run's output.",
				},
				{
					statusCodes: [409, 500],
					codes: ['API_KEY_IN_USE'],
					text: /^something went wrong\.?$|api key .*in use/i,
					message: 'Lendasat could not create the account',
					hint: 'Lendasat answers this way when the API key is already in use by another account: leave Account API Key empty for a new one, or give another key. If it keeps happening, contact Lendasat support.',
				},
			],
		},
		{ method: 'POST', url: '/api/create-api-account/byok' },
		{
			prepare: [checkSealingSecretFirst(LABEL), buildOwnKeyRequest],
			send: createAndShowKeyOnce,
			finish: [sealedWhenAsked(LABEL)],
		},
	),
};

export const accountCreateWithOwnKeyFields: INodeProperties[] = [
	{
		displayName: 'Referral Code',
		name: 'referralCode',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. LAS-7KQ2M',
		description:
			'An active Lendasat referral code; it takes the place of a partner master key. Compared exactly, letter case included.',
		displayOptions: showOnlyForOwnKey,
	},
	{
		displayName: 'Account API Key',
		name: 'accountApiKey',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			"The new account's borrower key in Lendasat's format (lndst_sk_, 12 hexadecimal characters, _, a secret of 32 to 128 letters and digits). Leave empty and the node generates one as Lendasat does. Either way it is shown once, in the output's api_key (or sealed, in api_key_sealed, with Options → Seal API Key).",
		displayOptions: showOnlyForOwnKey,
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showOnlyForOwnKey,
		options: [
			{
				displayName: 'Timezone',
				name: 'timezone',
				type: 'options',
				options: timezoneOptions(),
				default: 'Europe/Berlin',
				description:
					"The borrower's IANA time zone of the form Area/City. Type to search, or use an expression.",
			},
		],
	},
];

/**
 * Builds the whole body from the checked values. The key is made here, once per item and run, so
 * that the transport's own retries send the same key; it is never shown in an error.
 */
async function buildOwnKeyRequest(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	const body: IDataObject = {
		name: requireText(this, 'Name', this.getNodeParameter('name'), checkName),
		email: requireText(this, 'Email', this.getNodeParameter('email'), checkEmail),
	};
	const fields = this.getNodeParameter('additionalFields', {}) as IDataObject;
	if (fields.timezone !== undefined)
		body.timezone = requireText(this, 'Timezone', fields.timezone, checkTimezone);
	body.api_key = await accountKeyOf(this);
	body.referral_code = requireText(
		this,
		'Referral Code',
		this.getNodeParameter('referralCode'),
		checkReferralCode,
	);
	return { ...request, body };
}

async function accountKeyOf(context: IExecuteSingleFunctions): Promise<string> {
	const given = context.getNodeParameter('accountApiKey', '');
	if (typeof given === 'string' && given.trim() === '') return generateApiKey(randomBytes);
	const key = requireText(context, 'Account API Key', given, checkOwnApiKey);
	const credentials = await credentialsOf(context);
	if (typeof credentials.apiKey === 'string' && credentials.apiKey.trim() === key) {
		throw invalidParameter(
			context,
			'Account API Key',
			"This is the key of the node's own credential, which belongs to another account. Give a new key, or leave the field empty and the node makes one.",
		);
	}
	return key;
}

/**
 * Lendasat echoes the key it was given; the output shows the one the node sent, which is the one
 * Lendasat stored, so that a generated key is never lost.
 */
async function createAndShowKeyOnce(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const sent = request.body as IDataObject;
	const answer = await api.send(request, 'object', { check: accountAnswer });
	const account = isRecord(answer) ? answer : {};
	return [
		{
			json: {
				id: account.id,
				name: account.name ?? sent.name,
				email: account.email ?? sent.email,
				timezone: account.timezone ?? sent.timezone ?? null,
				api_key: sent.api_key,
			},
		},
	];
}
