import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { requireText, requireValid } from '../../validation/parameters';
import { apiRoute } from '../../transport/apiRoute';
import { checkOneOf, checkUuid } from '../../validation/checks';

const showOnlyForMarkAsRead = { resource: ['notification'], operation: ['markAsRead'] };

export const notificationMarkAsReadOperation: INodePropertyOptions = {
	name: 'Mark as Read',
	value: 'markAsRead',
	action: 'Mark notifications as read',
	description: 'Mark one notification, or all of them, as read',
	routing: apiRoute(
		{
			label: 'Notification → Mark as Read',
			toolDescription:
				'Mark notifications as read: one by its ID, or all; changes only the read flag',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			notFound: { parameter: 'notificationId', label: 'notification' },
		},
		{ method: 'PUT', url: '/api/notifications' },
		{ prepare: [targetScope], finish: [reportMarked] },
	),
};

export const notificationMarkAsReadFields: INodeProperties[] = [
	{
		displayName: 'Scope',
		name: 'scope',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'One', value: 'one', description: 'Mark a single notification as read' },
			{ name: 'All', value: 'all', description: 'Mark every notification of this account as read' },
		],
		default: 'one',
		displayOptions: { show: showOnlyForMarkAsRead },
	},
	{
		displayName: 'Notification ID',
		name: 'notificationId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		description:
			'The UUID of the notification, found in the data of each item from Notification → Get Many',
		displayOptions: { show: { ...showOnlyForMarkAsRead, scope: ['one'] } },
	},
];

/** One notification is PUT /api/notifications/{id}; all of them is PUT /api/notifications. */
async function targetScope(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const scope = requireValid(
		this,
		'Scope',
		this.getNodeParameter('scope'),
		checkOneOf(['one', 'all']),
	);
	if (scope === 'all') return requestOptions;
	const id = requireText(
		this,
		'Notification ID',
		this.getNodeParameter('notificationId'),
		checkUuid,
	);
	requestOptions.url = `/api/notifications/${encodeURIComponent(id)}`;
	return requestOptions;
}

/** The API answers `null`; the item says what was marked. */
async function reportMarked(this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
	const markedAsRead =
		this.getNodeParameter('scope') === 'all'
			? 'all'
			: String(this.getNodeParameter('notificationId')).trim();
	return [{ json: { markedAsRead } }];
}
