import type { INodeProperties } from 'n8n-workflow';

import { cardCreateFields, cardCreateOperation } from './create';
import { cardGetAllFields, cardGetAllOperation } from './getAll';
import { cardGetTransactionsFields, cardGetTransactionsOperation } from './getTransactions';
import { cardTopUpFields, cardTopUpOperation } from './topUp';

export const cardDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['card'] } },
		options: [
			cardCreateOperation,
			cardGetAllOperation,
			cardGetTransactionsOperation,
			cardTopUpOperation,
		],
		default: 'getAll',
	},
	...cardCreateFields,
	...cardGetAllFields,
	...cardGetTransactionsFields,
	...cardTopUpFields,
];
