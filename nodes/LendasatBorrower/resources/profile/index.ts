import type { INodeProperties } from 'n8n-workflow';

import { profileGetBorrowerFields, profileGetBorrowerOperation } from './getBorrower';
import { profileGetLenderFields, profileGetLenderOperation } from './getLender';

export const profileDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['profile'] } },
		options: [profileGetBorrowerOperation, profileGetLenderOperation],
		default: 'getLender',
	},
	...profileGetBorrowerFields,
	...profileGetLenderFields,
];
