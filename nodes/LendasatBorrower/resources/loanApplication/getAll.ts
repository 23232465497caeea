import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { applyLimitToList, checkLimitFirst, returnAllAndLimit } from '../../descriptions/fields';
import { apiRoute, type OperationRequest } from '../../transport/apiRoute';
import { readBoolean } from '../../validation/parameters';
import {
	DELETED,
	LOAN_APPLICATIONS_PATH,
	RESOURCE,
	simplifyLoanApplications,
	statusOf,
	applicationListAnswer,
} from './shared';

const showOnlyForGetAll = { resource: [RESOURCE], operation: ['getAll'] };

export const loanApplicationGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many loan applications',
	description:
		'List your loan applications, newest first. Lendasat lists every application the account ever posted, including deleted ones and the ones an Update replaced; they are left out unless Include Deleted is on.',
	routing: apiRoute(
		{
			label: 'Loan Application → Get Many',
			toolDescription:
				'Get many loan applications: your posted loan terms with their status, newest first; deleted and replaced ones only when asked',
			keyType: 'borrower',
			expects: 'list',
			answer: applicationListAnswer,
		},
		{ method: 'GET', url: LOAN_APPLICATIONS_PATH },
		{
			prepare: [checkLimitFirst, checkIncludeDeleted],
			finish: [newestFirst, applyLimitToList, simplifyLoanApplications],
		},
	),
};

export const loanApplicationGetAllFields: INodeProperties[] = [
	{
		displayName: 'Include Deleted',
		name: 'includeDeleted',
		type: 'boolean',
		default: false,
		description:
			'Whether to include applications with status Deleted. Lendasat keeps them all: the ones you deleted and the old versions an Update replaced (an Update gives the application a new ID and marks the old one Deleted).',
		displayOptions: { show: showOnlyForGetAll },
	},
	...returnAllAndLimit(showOnlyForGetAll),
];

async function checkIncludeDeleted(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	readBoolean(this, 'includeDeleted', 'Include Deleted', false);
	return request;
}

/** Lendasat's list has no order and no filter: Deleted ones go unless asked for, the newest come first. */
async function newestFirst(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const includeDeleted = readBoolean(this, 'includeDeleted', 'Include Deleted', false);
	return items
		.filter((item) => includeDeleted || statusOf(item.json) !== DELETED)
		.map((item, index) => ({ item, index, time: timeOf(item.json) }))
		.sort((a, b) => b.time - a.time || a.index - b.index)
		.map(({ item }) => item);
}

/** Milliseconds of created_at; a record without a readable one goes last. */
function timeOf(application: IDataObject): number {
	const time =
		typeof application.created_at === 'string' ? Date.parse(application.created_at) : Number.NaN;
	return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}
