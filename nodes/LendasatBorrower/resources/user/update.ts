import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { timezoneOptions } from '../../descriptions/timezones';
import { apiRoute, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { withNote } from '../../transport/exchange';
import { checkLocale, checkTimezone, isRecord } from '../../validation/checks';
import { invalidParameter, requireText } from '../../validation/parameters';

const LABEL = 'User → Update';
const PROFILE_PATH = '/api/users';
const LOCALE_PATH = '/api/users/locale';
/** The Locale option that clears the preference, sent as null: the account follows the browser's language. */
const SYSTEM_DEFAULT = 'systemDefault';

export const userUpdateOperation: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	action: 'Update the current user',
	description:
		"Change the account's time zone and/or preferred language. The output is what was set, with updated: true.",
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Update the current user: sets the account's time zone (used for its e-mails and reminders) and/or its language",
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			errors: [
				{
					statusCodes: [400],
					codes: ['INVALID_TIMEZONE'],
					text: /invalid timezone/i,
					message: 'Lendasat does not know this time zone',
					hint: 'use an IANA time zone of the form Area/City, e.g. Europe/Berlin (pick one from the Timezone list).',
				},
			],
		},
		// The sender makes one request per field given: PUT /api/users for the time zone, PUT /api/users/locale for the language.
		{ method: 'PUT', url: PROFILE_PATH },
		{ prepare: [planUpdates], send: sendUpdates },
	),
};

export const userUpdateFields: INodeProperties[] = [
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'What to change; at least one',
		displayOptions: { show: { resource: ['user'], operation: ['update'] } },
		options: [
			{
				displayName: 'Locale',
				name: 'locale',
				type: 'options',
				options: [
					{ name: 'English (US)', value: 'en-US', description: 'Sent as en-US' },
					{ name: 'German', value: 'de-DE', description: 'Sent as de-DE' },
					{
						name: 'System Default',
						value: SYSTEM_DEFAULT,
						description: "No preference (sent as null): Lendasat's app follows the browser",
					},
				],
				default: 'en-US',
				description:
					"The account's preferred language, as Lendasat's app offers it. An expression may give another language tag, e.g. es or pt-BR, which Lendasat stores as given.",
			},
			{
				displayName: 'Timezone',
				name: 'timezone',
				type: 'options',
				options: timezoneOptions(),
				default: 'Europe/Berlin',
				description:
					"The account's IANA time zone of the form Area/City. Type to search, or use an expression.",
			},
		],
	},
];

interface Updates {
	timezone?: string;
	/** null clears the preference. */
	locale?: string | null;
}

/** Checks the fields and keeps what to send in the request body; nothing is sent when a field is wrong or none is given. */
async function planUpdates(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	const fields = this.getNodeParameter('updateFields', {}) as IDataObject;
	const updates: Updates = {};
	if (fields.timezone !== undefined)
		updates.timezone = requireText(this, 'Timezone', fields.timezone, checkTimezone);
	if (fields.locale !== undefined)
		updates.locale =
			fields.locale === SYSTEM_DEFAULT || fields.locale === null
				? null
				: requireText(this, 'Locale', fields.locale, checkLocale);
	if (!('timezone' in updates) && !('locale' in updates)) {
		throw invalidParameter(
			this,
			'Update Fields',
			'Add Timezone or Locale (or both): there is nothing to update.',
		);
	}
	return { ...request, body: updates as IDataObject };
}

/**
 * One PUT per field given, the time zone first (Lendasat checks it; the language it stores as sent).
 * When the language fails after the time zone was set, the error says so.
 */
async function sendUpdates(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const updates = (isRecord(request.body) ? request.body : {}) as Updates;
	const put = async (url: string, body: IDataObject) =>
		await api.send({ method: 'PUT', url, body }, 'empty');

	if (updates.timezone !== undefined) await put(PROFILE_PATH, { timezone: updates.timezone });
	if (updates.locale !== undefined) {
		try {
			await put(LOCALE_PATH, { locale: updates.locale });
		} catch (error) {
			throw updates.timezone === undefined
				? error
				: withNote(error, `The time zone was already set to ${updates.timezone}.`);
		}
	}
	return [{ json: { ...updates, updated: true } }];
}
