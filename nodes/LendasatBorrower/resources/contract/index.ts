import type { INodeProperties } from 'n8n-workflow';

import { contractCreateFields, contractCreateOperation } from './create';

export const contractDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contract'] } },
		options: [contractCreateOperation],
		default: 'create',
	},
	...contractCreateFields,
];
