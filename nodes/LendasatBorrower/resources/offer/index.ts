import type { INodeProperties } from 'n8n-workflow';

import { offerGetFields, offerGetOperation } from './get';
import { offerGetAllOperation, offerListFields } from './getAll';
import { offerGetByLenderFields, offerGetByLenderOperation } from './getByLender';

export const offerDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['offer'] } },
		options: [offerGetOperation, offerGetByLenderOperation, offerGetAllOperation],
		default: 'getAll',
	},
	...offerGetFields,
	...offerGetByLenderFields,
	...offerListFields,
];
