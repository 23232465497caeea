import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { returnAllAndLimit } from '../../shared/fields';
import { paginatePages } from '../../shared/pagination';
import { apiRoute } from '../../shared/transport';

const showOnlyForNotificationGetAll = { resource: ['notification'], operation: ['getAll'] };

/**
 * Items keep the API's `{type, data}` shape (the same objects the notification WebSocket sends):
 * lossless for types the node does not know yet, and `data` can never clash with `type`.
 */
export const notificationGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many notifications',
	description:
		'List notifications, newest first. Each item is {type, data}: type is ContractUpdate, InstallmentUpdate, ChatMessage or a newer kind; data holds its ID, contract_id, timestamp, read flag and the fields of that kind.',
	routing: apiRoute(
		{ resource: 'notification', operation: 'getAll', label: 'Notification → Get Many', keyType: 'borrower' },
		{ method: 'GET', url: '/api/notifications' },
		{
			pagination: paginatePages,
			postReceive: [{ type: 'rootProperty', properties: { property: 'data' } }],
		},
	),
};

export const notificationGetAllFields: INodeProperties[] = [
	{
		displayName: 'Unread Only',
		name: 'unreadOnly',
		type: 'boolean',
		default: true,
		description: 'Whether to return only notifications not yet marked as read',
		displayOptions: { show: showOnlyForNotificationGetAll },
		routing: { send: { type: 'query', property: 'unread_only' } },
	},
	...returnAllAndLimit(showOnlyForNotificationGetAll),
];
