import type { INodeProperties } from 'n8n-workflow';

import { offerGetFields, offerGetOperation } from './get';
import { offerGetAllFields, offerGetAllOperation } from './getAll';

export const offerDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['offer'] } },
		options: [offerGetOperation, offerGetAllOperation],
		default: 'getAll',
	},
	...offerGetFields,
	...offerGetAllFields,
];
