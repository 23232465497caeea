import type {
	IExecutePaginationFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { readBorrowerEvents } from './borrowerEvents';
import { INPUT_BORROWERS } from './borrowerSource';
import { CONTRACTS_PATH } from './shared';

const LABEL = 'Contract → Get Events';

export const contractGetEventsOperation: INodePropertyOptions = {
	name: 'Get Events',
	value: 'getEvents',
	action: 'Get contract events',
	description:
		"A borrower's contract events as they stand now (status, margin call, installment due), each with a key for Remove Duplicates",
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Get contract events: the borrower's contracts as events as they stand now (each contract's status, a margin call, installments due within Days Ahead), each with an event_key that stays the same until something changes. Changes nothing.",
			keyType: 'borrower',
			expects: 'page',
			inputBorrowers: INPUT_BORROWERS,
		},
		{ method: 'GET', url: CONTRACTS_PATH },
		{ send: readEvents },
	),
};

export const contractGetEventsFields: INodeProperties[] = [
	{
		displayName:
			'Gives every event as it stands now, with an event_key. Follow it with Remove Duplicates (Remove Items Processed in Previous Executions, Value to Dedupe On: {{ $json.event_key }}) so that each event reaches your alert once; the first run reports the current state of every contract.',
		name: 'getEventsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['contract'], operation: ['getEvents'] } },
	},
];

/** The borrower's contracts, every page, as the events they stand at now. */
async function readEvents(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const { events } = await readBorrowerEvents(this, api, request, LABEL);
	return events.map(({ item }) => ({ json: item }));
}
