import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { CONTRACT_STATUS_OPTIONS, refusedPendingStatus } from '../../descriptions/contractStatuses';
import { returnAllAndLimit } from '../../descriptions/fields';
import { requireComplete, walkPages } from '../../transport/pagination';
import { readStatuses, requireValid } from '../../validation/parameters';
import { apiRoute, settle, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { checkOneOf } from '../../validation/checks';
import { CONTRACTS_PATH, simplifyContracts } from './shared';

const LABEL = 'Contract → Get Many';
const SORT_FIELDS = [
	'collateral_sats',
	'created_at',
	'expiry_date',
	'interest_rate',
	'loan_amount',
	'status',
	'updated_at',
];
const LISTED = { label: LABEL, records: 'contracts' };
const INCOMPLETE_ADVICE =
	"Check the credential's base URL: it may point at something other than the Lendasat borrower API.";

const showOnlyForContractGetAll = { resource: ['contract'], operation: ['getAll'] };

export const contractGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many contracts',
	description: 'List your contracts, newest first unless sorted otherwise',
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Get many contracts: the borrower's loans, newest first, optionally by status",
			keyType: 'borrower',
			expects: 'page',
		},
		{ method: 'GET', url: CONTRACTS_PATH },
		{ prepare: [addListQuery], send: walkContractPages, finish: [simplifyContracts] },
	),
};

export const contractGetAllFields: INodeProperties[] = [
	...returnAllAndLimit(showOnlyForContractGetAll),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: showOnlyForContractGetAll },
		options: [
			{
				displayName: 'Sort By',
				name: 'sortBy',
				type: 'options',
				default: 'created_at',
				description: 'Field to sort the contracts by',
				options: [
					{ name: 'Collateral (Sats)', value: 'collateral_sats' },
					{ name: 'Created At', value: 'created_at' },
					{ name: 'Expiry Date', value: 'expiry_date' },
					{ name: 'Interest Rate', value: 'interest_rate' },
					{ name: 'Loan Amount', value: 'loan_amount' },
					{ name: 'Status', value: 'status' },
					{ name: 'Updated At', value: 'updated_at' },
				],
			},
			{
				displayName: 'Sort Order',
				name: 'sortOrder',
				type: 'options',
				default: 'desc',
				options: [
					{ name: 'Ascending', value: 'asc' },
					{ name: 'Descending', value: 'desc' },
				],
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				default: [],
				description: 'Only contracts in one of these statuses',
				options: CONTRACT_STATUS_OPTIONS,
			},
		],
	},
];

/** The filters as the API's query parameters; `page` and `limit` are added per page by the pagination. */
async function addListQuery(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	const qs: IDataObject = { ...requestOptions.qs };
	const statuses = readStatuses(this, 'Status', filters.status);
	if (statuses.length) qs.status = statuses.join(',');
	if (filters.sortBy !== undefined)
		qs.sort_by = requireValid(this, 'Sort By', filters.sortBy, checkOneOf(SORT_FIELDS));
	if (filters.sortOrder !== undefined)
		qs.sort_order = requireValid(
			this,
			'Sort Order',
			filters.sortOrder,
			checkOneOf(['asc', 'desc']),
		);
	requestOptions.qs = qs;
	return requestOptions;
}

/**
 * The pages of the chosen contracts. A filter naming both dialects' new-contract status
 * (Requested and the specification's pending) works on both: a server that refuses `pending`
 * has no contract in it, so the walk is repeated without it.
 */
async function walkContractPages(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const statuses = typeof request.qs?.status === 'string' ? request.qs.status.split(',') : [];
	const walked = await settle(walkPages(this, api, request, LABEL));
	if ('value' in walked) return requireComplete(this, LISTED, walked.value, INCOMPLETE_ADVICE);
	if (!statuses.includes('pending') || !refusedPendingStatus(walked.error)) throw walked.error;
	const known = statuses.filter((status) => status !== 'pending');
	if (!known.length) return [];
	const retried = await walkPages(
		this,
		api,
		{ ...request, qs: { ...request.qs, status: known.join(',') } },
		LABEL,
	);
	return requireComplete(this, LISTED, retried, INCOMPLETE_ADVICE);
}
