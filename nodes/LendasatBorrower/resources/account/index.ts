import type { INodeProperties } from 'n8n-workflow';

import { accountCreateFields, accountCreateOperation } from './create';
import {
	accountCreateWithOwnKeyFields,
	accountCreateWithOwnKeyOperation,
} from './createWithOwnKey';

export const accountDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [accountCreateOperation, accountCreateWithOwnKeyOperation],
		default: 'create',
	},
	...accountCreateFields,
	...accountCreateWithOwnKeyFields,
];
