import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { invalidParameter, itemError } from '../../validation/parameters';
import { describeValue } from '../../validation/checks';
import {
	apiRoute,
	takingTurnsPerRun,
	toItems,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { writeWithReadBack } from '../../transport/readBack';
import { NOTIFICATION_SETTINGS, SETTINGS_PATH, settingsAnswer } from './settings';

const LABEL = 'Notification → Update Settings';

const showOnlyForUpdateSettings = {
	show: { resource: ['notification'], operation: ['updateSettings'] },
};

/**
 * Lendasat's PUT needs all eight switches, so the node reads the current settings, changes the ones
 * the user set and writes all of them back: a switch left out keeps its value.
 */
export const notificationUpdateSettingsOperation: INodePropertyOptions = {
	name: 'Update Settings',
	value: 'updateSettings',
	action: 'Update notification settings',
	description:
		'Turn e-mail and Telegram alerts on or off. Only the switches added under Update Fields change; the node reads the current settings and writes them back with those changes. The output is the stored settings, all eight switches.',
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				'Update notification settings: turns the chosen e-mail and Telegram alerts on or off, keeps the others, returns all eight switches',
			repeat: 'afterLookup',
			keyType: 'borrower',
			expects: 'object',
		},
		{ method: 'PUT', url: SETTINGS_PATH },
		{ prepare: [readChanges], send: mergeAndWrite },
	),
};

export const notificationUpdateSettingsFields: INodeProperties[] = [
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		description: 'The alerts to turn on or off. Settings not added here keep their current value.',
		displayOptions: showOnlyForUpdateSettings,
		options: [...NOTIFICATION_SETTINGS]
			.sort((a, b) => a.displayName.localeCompare(b.displayName))
			.map(({ displayName, parameter, description }) => ({
				displayName,
				name: parameter,
				type: 'boolean' as const,
				default: false,
				description,
			})),
	},
];

/** The switches the user set, checked, as the API names them; at least one. Carried to the send as the body. */
async function readChanges(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	const fields = this.getNodeParameter('updateFields', {}) as IDataObject;
	const changes: IDataObject = {};
	for (const { parameter, field, displayName } of NOTIFICATION_SETTINGS) {
		const value = fields[parameter];
		if (value === undefined) continue;
		if (typeof value !== 'boolean') {
			throw invalidParameter(
				this,
				displayName,
				`Expected true or false, got ${describeValue(value)}.`,
			);
		}
		changes[field] = value;
	}
	if (Object.keys(changes).length === 0) {
		throw itemError(
			this,
			'No notification setting to update',
			`${LABEL}: add at least one setting under Update Fields (e.g. New Chat Message (Email)) and switch it on or off. Nothing was sent; the settings are unchanged.`,
		);
	}
	return { ...request, body: changes };
}

/** Per key, the read-change-write of the item before: items of one run must not overwrite each other's changes. */
const inTurn = takingTurnsPerRun();

/**
 * GET the current settings, apply the changes, PUT all of them. Items of one run that act with the
 * same key take turns, so each reads what the one before wrote.
 */
async function mergeAndWrite(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const written = await inTurn(this, api, api.keyIdentity, async () => {
		const current = await api.send({ method: 'GET', url: SETTINGS_PATH }, 'object');
		const body = mergedSettings(this, current as IDataObject, request.body as IDataObject);
		// After a failure that may have reached Lendasat, the stored settings tell whether it was written.
		return await writeWithReadBack(
			async () => await api.send({ ...request, body }, 'object', { check: settingsAnswer }),
			async () => {
				const stored = (await api.send({ method: 'GET', url: SETTINGS_PATH }, 'object', {
					check: settingsAnswer,
				})) as IDataObject;
				return Object.keys(body).every((field) => stored[field] === body[field])
					? stored
					: undefined;
			},
			api,
		);
	});
	return toItems(written);
}

/**
 * The current settings with the changes applied: all eight switches, plus any further true/false
 * setting a newer server reports (written back unchanged). A switch the server did not report and
 * the user did not set cannot be written without guessing, so it is an error.
 */
function mergedSettings(
	context: IExecutePaginationFunctions,
	current: IDataObject,
	changes: IDataObject,
): IDataObject {
	const merged: IDataObject = {};
	const unknown: string[] = [];
	for (const { field } of NOTIFICATION_SETTINGS) {
		if (typeof changes[field] === 'boolean') merged[field] = changes[field];
		else if (typeof current[field] === 'boolean') merged[field] = current[field];
		else unknown.push(field);
	}
	if (unknown.length) {
		throw itemError(
			context,
			`Lendasat did not report the current value of ${unknown.join(', ')}`,
			`${LABEL}: Lendasat needs all eight settings in an update, and its current settings have no true/false ${unknown.join(', ')}. Add ${unknown.length === 1 ? 'that setting' : 'those settings'} under Update Fields so that nothing is guessed. Nothing was changed.`,
		);
	}
	for (const [field, value] of Object.entries(current)) {
		if (!(field in merged) && typeof value === 'boolean') merged[field] = value;
	}
	return merged;
}
