import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	BLOCKED_ACCOUNT_GUIDANCE,
	LOAN_APPLICATIONS_PATH,
	loanApplicationIdOf,
	loanApplicationPath,
	simplifyLoanApplications,
	applicationAnswer,
} from './shared';

export const loanApplicationGetOperation: INodePropertyOptions = {
	name: 'Get',
	value: 'get',
	action: 'Get a loan application',
	description: 'Get one of your loan applications by its ID, whatever its status',
	routing: apiRoute(
		{
			label: 'Loan Application → Get',
			toolDescription:
				'Get a loan application: its status (Available, Taken, Deleted…) and terms, by its loan_deal_id',
			keyType: 'borrower',
			expects: 'object',
			answer: applicationAnswer,
			notFound: { parameter: 'loanApplicationId', label: 'loan application' },
			errors: [BLOCKED_ACCOUNT_GUIDANCE],
		},
		// The preSend puts the checked ID into the path.
		{ method: 'GET', url: LOAN_APPLICATIONS_PATH },
		{ prepare: [toLoanApplication], finish: [simplifyLoanApplications] },
	),
};

async function toLoanApplication(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return { ...request, url: loanApplicationPath(loanApplicationIdOf(this)) };
}
