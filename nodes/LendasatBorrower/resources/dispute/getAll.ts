import type { IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { applyLimitToList, checkLimitFirst, returnAllAndLimit } from '../../descriptions/fields';
import { apiRoute, type OperationRequest } from '../../transport/apiRoute';
import { contractIdOf } from '../contract/shared';
import { DISPUTES_PATH, RESOURCE, disputeListAnswer } from './shared';

export const disputeGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many disputes',
	description:
		"List a contract's disputes, newest first, each with its status, reason and messages",
	routing: apiRoute(
		{
			label: 'Dispute → Get Many',
			toolDescription:
				"Get many disputes of a contract: each with its ID, status, reason and messages from the borrower, the lender and Lendasat's support; changes nothing",
			keyType: 'borrower',
			expects: 'list',
			answer: disputeListAnswer,
			notFound: { parameter: 'contractId', label: 'contract' },
		},
		// The prepare step puts the checked contract ID into the query.
		{ method: 'GET', url: DISPUTES_PATH },
		{ prepare: [checkLimitFirst, askForContract], finish: [applyLimitToList] },
	),
};

export const disputeGetAllFields: INodeProperties[] = returnAllAndLimit({
	resource: [RESOURCE],
	operation: ['getAll'],
});

/** Lendasat lists the disputes of one contract, named in the query; the whole list comes at once. */
async function askForContract(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	return { ...request, qs: { contract_id: contractIdOf(this) } };
}
