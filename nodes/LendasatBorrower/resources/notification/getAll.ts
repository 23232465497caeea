import type {
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { returnAllAndLimit } from '../../descriptions/fields';
import { MAX_PAGE_SIZE, requireComplete, walkPages } from '../../transport/pagination';
import { readBoolean } from '../../validation/parameters';
import { apiRoute, type ApiClient, type OperationRequest } from '../../transport/apiRoute';

const LABEL = 'Notification → Get Many';

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
		{
			label: LABEL,
			toolDescription:
				'Get many notifications: contract, installment and chat updates, newest first, unread only by default',
			keyType: 'borrower',
			expects: 'page',
		},
		{ method: 'GET', url: '/api/notifications' },
		{ prepare: [addUnreadOnly], send: walkAllNotifications },
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
	},
	...returnAllAndLimit(showOnlyForNotificationGetAll),
];

/**
 * Lendasat's backend pages its three kinds of notification with one offset and cuts the merged
 * page to the limit, so past the first page a walk can miss some for good. The first page of up
 * to 100 is exact; when a walk ends with fewer than the server's total, it fails and says so.
 */
async function walkAllNotifications(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const walked = await walkPages(this, api, request, LABEL);
	return requireComplete(
		this,
		{ label: LABEL, records: 'notifications' },
		walked,
		`Lendasat pages contract, installment and chat notifications together and leaves some out past the first page. The newest ${MAX_PAGE_SIZE} are always exact: set Return All off and Limit to at most ${MAX_PAGE_SIZE}, or mark notifications as read to shorten the unread list.`,
	);
}

async function addUnreadOnly(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	return {
		...request,
		qs: { ...request.qs, unread_only: readBoolean(this, 'unreadOnly', 'Unread Only', true) },
	};
}
