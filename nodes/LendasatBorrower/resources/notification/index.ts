import type { INodeProperties } from 'n8n-workflow';

import { notificationGetAllFields, notificationGetAllOperation } from './getAll';
import { notificationMarkAsReadFields, notificationMarkAsReadOperation } from './markAsRead';

export const notificationDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['notification'] } },
		options: [notificationGetAllOperation, notificationMarkAsReadOperation],
		default: 'getAll',
	},
	...notificationGetAllFields,
	...notificationMarkAsReadFields,
];
