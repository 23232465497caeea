import type { INodeProperties } from 'n8n-workflow';

import { accountCreateFields, accountCreateOperation } from './create';
import {
	accountCreateWithOwnKeyFields,
	accountCreateWithOwnKeyOperation,
} from './createWithOwnKey';
import { accountSealApiKeyFields, accountSealApiKeyOperation } from './sealApiKey';

export const accountDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [accountCreateOperation, accountCreateWithOwnKeyOperation, accountSealApiKeyOperation],
		default: 'create',
	},
	...accountCreateFields,
	...accountCreateWithOwnKeyFields,
	...accountSealApiKeyFields,
];
