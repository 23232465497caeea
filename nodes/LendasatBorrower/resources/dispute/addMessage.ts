import type {
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute, type OperationRequest } from '../../transport/apiRoute';
import { confirmationAnswer, disputeIdOf, disputePath, messageField, messageOf } from './shared';

export const disputeAddMessageOperation: INodePropertyOptions = {
	name: 'Add Message',
	value: 'addMessage',
	action: 'Add a message to a dispute',
	description:
		"Write to a dispute: the lender and Lendasat's support read it. The output is the dispute ID with message_added: true.",
	routing: apiRoute(
		{
			label: 'Dispute → Add Message',
			toolDescription:
				"Add a message to a dispute: posts text that the lender and Lendasat's support read (it cannot be taken back); returns the dispute ID with message_added: true",
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			answer: confirmationAnswer,
			notFound: { parameter: 'disputeId', label: 'dispute' },
		},
		// The prepare step puts the checked dispute ID into the path.
		{ method: 'PUT', url: '/api/disputes/{dispute_id}' },
		{ prepare: [addMessageBody], finish: [confirmMessage] },
	),
};

export const disputeAddMessageFields: INodeProperties[] = [
	messageField('addMessage', {
		placeholder: 'e.g. The lender paid out today, transaction 0x5c50…; the dispute can be closed.',
		description: 'What to write (up to 5,000 characters, line breaks allowed)',
	}),
];

async function addMessageBody(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	return { ...request, url: disputePath(disputeIdOf(this)), body: { message: messageOf(this) } };
}

/** Lendasat answers an empty 200; the output names the dispute so that the workflow can go on with it. */
async function confirmMessage(this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
	return [{ json: { id: disputeIdOf(this), message_added: true } }];
}
