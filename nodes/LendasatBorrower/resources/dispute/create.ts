import type { IExecuteSingleFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { apiRoute, type OperationRequest } from '../../transport/apiRoute';
import { contractIdOf } from '../contract/shared';
import {
	DISPUTE_IN_PROGRESS,
	DISPUTES_PATH,
	RESOURCE,
	disputeAnswer,
	messageField,
	messageOf,
	reasonOf,
} from './shared';

const showOnlyForCreate = { show: { resource: [RESOURCE], operation: ['create'] } };

export const disputeCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a dispute',
	description:
		"Open a dispute about one of your contracts, for Lendasat's support to settle with the lender: when the lender does not pay out, or the collateral does not come back. The output is the dispute.",
	routing: apiRoute(
		{
			label: 'Dispute → Create',
			toolDescription:
				"Create a dispute: asks Lendasat's support to step in on a contract (e.g. the lender did not pay out); the contract's status becomes DisputeBorrowerStarted until the dispute is resolved; returns the dispute with its ID",
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: disputeAnswer,
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [DISPUTE_IN_PROGRESS],
		},
		{ method: 'POST', url: DISPUTES_PATH },
		{ prepare: [addDisputeBody] },
	),
};

export const disputeCreateFields: INodeProperties[] = [
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Payment issue: Did not receive loan amount',
		description:
			'What the dispute is about, in one line. Lendasat\'s app offers "Payment issue: Did not receive loan amount", "Repayment issue: Did not receive back collateral" and "Other"; any text of up to 200 characters is taken.',
		displayOptions: showOnlyForCreate,
	},
	messageField('create', {
		placeholder: 'e.g. The collateral confirmed on 2 May; the loan has not been paid out since.',
		description:
			"The details: what happened, when, and any transaction IDs (up to 5,000 characters). Lendasat keeps them in the dispute's reason, after the Reason and a full stop.",
	}),
];

/** POST /api/disputes `{contract_id, reason, comment}`: every field checked before anything is sent. */
async function addDisputeBody(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	return {
		...request,
		body: { contract_id: contractIdOf(this), reason: reasonOf(this), comment: messageOf(this) },
	};
}
