import type {
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { CONTRACTS_PATH, contractIdOf, sendToContract } from './shared';

export const contractCancelOperation: INodePropertyOptions = {
	name: 'Cancel',
	value: 'cancel',
	action: 'Cancel a contract request',
	description:
		'Withdraw a contract request that is still Requested or Approved (before collateral is sent). The output is the contract ID with cancelled: true.',
	routing: apiRoute(
		{
			label: 'Contract → Cancel',
			toolDescription:
				'Cancel a contract request: withdraws it while it is Requested or Approved (irreversible)',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				{
					statusCodes: [400],
					codes: ['INVALID_STATE'],
					text: /cannot cancel/i,
					message: 'The contract can no longer be cancelled',
					hint: 'only contract requests in status Requested (pending) or Approved can be cancelled. Contract → Get shows the current status.',
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'DELETE', url: `${CONTRACTS_PATH}/{id}` },
		{ prepare: [sendToContract], finish: [confirmCancellation] },
	),
};

/** The API answers an empty 200; the output names the contract so that the workflow can go on with it. */
async function confirmCancellation(this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
	return [{ json: { id: contractIdOf(this), cancelled: true } }];
}
