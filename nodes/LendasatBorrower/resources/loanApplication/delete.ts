import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { writeWithReadBack } from '../../transport/readBack';
import { itemError } from '../../validation/parameters';
import {
	BLOCKED_ACCOUNT_GUIDANCE,
	DELETED,
	applicationAnswer,
	LOAN_APPLICATIONS_PATH,
	TAKEN,
	loanApplicationIdOf,
	loanApplicationPath,
	statusOf,
} from './shared';

const LABEL = 'Loan Application → Delete';

export const loanApplicationDeleteOperation: INodePropertyOptions = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete a loan application',
	description:
		'Withdraw one of your loan applications: it becomes Deleted and lenders can no longer take it. The output is the ID with deleted: true.',
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				'Delete a loan application: withdraws your posted terms so that no lender can take them (irreversible)',
			repeat: 'afterLookup',
			keyType: 'borrower',
			expects: 'empty',
			notFound: { parameter: 'loanApplicationId', label: 'loan application' },
			errors: [BLOCKED_ACCOUNT_GUIDANCE],
		},
		// Lendasat deletes with a PUT; the preSend puts the checked ID into the path.
		{ method: 'PUT', url: `${LOAN_APPLICATIONS_PATH}/delete` },
		{ prepare: [toDeletion], send: deleteWhenItExists },
	),
};

async function toDeletion(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	return { ...request, url: loanApplicationPath(loanApplicationIdOf(this), 'delete') };
}

/**
 * Lendasat answers 200 to the deletion of any ID, one that does not exist included, and relabels a
 * Taken application as Deleted although its contract goes on. So the application is read first: an
 * unknown ID fails like Get, a Taken one is refused.
 */
async function deleteWhenItExists(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const id = loanApplicationIdOf(this);
	const current = (await api.send(
		{ method: 'GET', url: loanApplicationPath(id) },
		'object',
	)) as IDataObject;
	if (statusOf(current) === TAKEN) {
		throw itemError(
			this,
			`Loan application ${id} was taken by a lender and cannot be deleted`,
			`${LABEL}: nothing was changed. A contract was opened from this application; deleting would only relabel the application. Contract → Get Many shows the contract.`,
		);
	}
	// After a failure that may have reached Lendasat, the application's status tells whether it was deleted.
	await writeWithReadBack(
		async () => await api.send(request, 'empty'),
		async () => {
			const after = (await api.send({ method: 'GET', url: loanApplicationPath(id) }, 'object', {
				check: applicationAnswer,
			})) as IDataObject;
			return statusOf(after) === DELETED ? after : undefined;
		},
		api,
	);
	return [{ json: { loan_deal_id: id, deleted: true } }];
}
