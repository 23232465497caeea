import type { INodeProperties } from 'n8n-workflow';

import { accountCreateFields, accountCreateOperation } from './create';

export const accountDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [accountCreateOperation],
		default: 'create',
	},
	...accountCreateFields,
];
