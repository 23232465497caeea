import type { INodeProperties } from 'n8n-workflow';

import { contractLocatorField } from '../contract/shared';
import { disputeAddMessageFields, disputeAddMessageOperation } from './addMessage';
import { disputeCreateFields, disputeCreateOperation } from './create';
import { disputeGetAllFields, disputeGetAllOperation } from './getAll';
import { disputeResolveOperation } from './resolve';
import { RESOURCE, disputeIdField } from './shared';

export const disputeDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [RESOURCE] } },
		options: [
			disputeAddMessageOperation,
			disputeCreateOperation,
			disputeGetAllOperation,
			disputeResolveOperation,
		],
		default: 'getAll',
	},
	contractLocatorField(
		{ resource: [RESOURCE], operation: ['create', 'getAll'] },
		'The contract the dispute is about: pick one of your recent contracts, or enter its ID',
	),
	disputeIdField,
	...disputeCreateFields,
	...disputeAddMessageFields,
	...disputeGetAllFields,
];
