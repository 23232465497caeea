import type { INodeProperties } from 'n8n-workflow';

import { apiKeyCreateFields, apiKeyCreateOperation } from './create';
import { apiKeyDeleteFields, apiKeyDeleteOperation } from './delete';
import { apiKeyGetAllFields, apiKeyGetAllOperation } from './getAll';

export const apiKeyDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['apiKey'] } },
		options: [apiKeyCreateOperation, apiKeyDeleteOperation, apiKeyGetAllOperation],
		default: 'getAll',
	},
	...apiKeyCreateFields,
	...apiKeyDeleteFields,
	...apiKeyGetAllFields,
];
