import type { INodeProperties } from 'n8n-workflow';

import { notificationGetAllFields, notificationGetAllOperation } from './getAll';
import { notificationGetSettingsOperation } from './getSettings';
import { notificationMarkAsReadFields, notificationMarkAsReadOperation } from './markAsRead';
import {
	notificationUpdateSettingsFields,
	notificationUpdateSettingsOperation,
} from './updateSettings';

export const notificationDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['notification'] } },
		options: [
			notificationGetAllOperation,
			notificationGetSettingsOperation,
			notificationMarkAsReadOperation,
			notificationUpdateSettingsOperation,
		],
		default: 'getAll',
	},
	...notificationGetAllFields,
	...notificationMarkAsReadFields,
	...notificationUpdateSettingsFields,
];
