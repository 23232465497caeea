import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { applyLimitToList, checkLimitFirst, returnAllAndLimit } from '../../descriptions/fields';
import { apiRoute } from '../../transport/apiRoute';

export const apiKeyGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many API keys',
	description:
		"List this account's API keys: ID, description and creation time (never the key itself)",
	routing: apiRoute(
		{
			label: 'API Key → Get Many',
			toolDescription:
				'Get many API keys: their IDs, descriptions and creation times, never the keys',
			keyType: 'borrower',
			expects: 'list',
		},
		{ method: 'GET', url: '/api/keys' },
		{ prepare: [checkLimitFirst], finish: [applyLimitToList] },
	),
};

export const apiKeyGetAllFields: INodeProperties[] = returnAllAndLimit({
	resource: ['apiKey'],
	operation: ['getAll'],
});
