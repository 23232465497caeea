import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { isRecord } from '../../validation/checks';

/**
 * Links a Telegram chat to this account's notifications when sent to Lendasat's bot, so it is a
 * secret of sorts and stays out of the execution data every workflow editor can read.
 */
const WITHHELD_USER_FIELDS = ['personal_telegram_token'];

export const userGetMeOperation: INodePropertyOptions = {
	name: 'Get Me',
	value: 'getMe',
	action: 'Get the current user',
	description:
		'Get the account the API key belongs to, as {user, enabled_features}. The personal Telegram token is left out.',
	routing: apiRoute(
		{
			label: 'User → Get Me',
			toolDescription:
				'Get the current user: the account the API key belongs to (name, email, time zone)',
			keyType: 'borrower',
			expects: 'object',
		},
		{ method: 'GET', url: '/api/users/me' },
		{ finish: [withholdSecrets] },
	),
};

async function withholdSecrets(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return items.map((item) => {
		const user = item.json.user;
		if (!isRecord(user)) return item;
		const kept: IDataObject = { ...user };
		for (const field of WITHHELD_USER_FIELDS) delete kept[field];
		return { ...item, json: { ...item.json, user: kept } };
	});
}
