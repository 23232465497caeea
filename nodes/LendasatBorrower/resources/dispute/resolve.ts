import type {
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute, type OperationRequest } from '../../transport/apiRoute';
import {
	NOT_RESOLVABLE_BY_YOU,
	RESOLVE_FAILED,
	confirmationAnswer,
	disputeIdOf,
	disputePath,
} from './shared';

export const disputeResolveOperation: INodePropertyOptions = {
	name: 'Resolve',
	value: 'resolve',
	action: 'Resolve a dispute',
	description:
		'Close a dispute you opened, once the matter is settled: the contract goes back to the status it had before. The output is the dispute ID with resolved: true.',
	routing: apiRoute(
		{
			label: 'Dispute → Resolve',
			toolDescription:
				'Resolve a dispute you opened: closes it for good and puts the contract back in the status it had before the dispute (irreversible); returns the dispute ID with resolved: true',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			answer: confirmationAnswer,
			notFound: { parameter: 'disputeId', label: 'dispute' },
			errors: [
				NOT_RESOLVABLE_BY_YOU,
				{
					statusCodes: [400],
					codes: ['INVALID_STATE'],
					message: 'The contract is no longer in dispute',
					hint: 'a dispute can be resolved while its contract is in status DisputeBorrowerStarted. Contract → Get shows the current status.',
				},
				RESOLVE_FAILED,
			],
		},
		// The prepare step puts the checked dispute ID into the path; the request has no body.
		{ method: 'PUT', url: '/api/disputes/{dispute_id}/resolve' },
		{ prepare: [toResolution], finish: [confirmResolution] },
	),
};

async function toResolution(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	return { ...request, url: disputePath(disputeIdOf(this), '/resolve'), body: undefined };
}

/** Lendasat answers an empty 200; the output names the dispute. */
async function confirmResolution(this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
	return [{ json: { id: disputeIdOf(this), resolved: true } }];
}
