import type { INodeProperties } from 'n8n-workflow';

import { priceGetHistoryFields, priceGetHistoryOperation } from './getHistory';

export const priceDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['price'] } },
		options: [priceGetHistoryOperation],
		default: 'getHistory',
	},
	...priceGetHistoryFields,
];
