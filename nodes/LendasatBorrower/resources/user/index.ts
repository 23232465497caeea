import type { INodeProperties } from 'n8n-workflow';

import { userGetMeOperation } from './getMe';
import { userUpdateFields, userUpdateOperation } from './update';

export const userDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['user'] } },
		options: [userGetMeOperation, userUpdateOperation],
		default: 'getMe',
	},
	...userUpdateFields,
];
