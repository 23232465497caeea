import type { INodeProperties } from 'n8n-workflow';

import { bringinConnectFields, bringinConnectOperation } from './connect';
import { bringinGetStatusOperation } from './getStatus';

export const bringinDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['bringin'] } },
		options: [bringinConnectOperation, bringinGetStatusOperation],
		default: 'getStatus',
	},
	...bringinConnectFields,
];
