import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { sendToContract, simplifyContracts } from './shared';

export const contractGetOperation: INodePropertyOptions = {
	name: 'Get',
	value: 'get',
	action: 'Get a contract',
	description: 'Get one of your contracts with its status, collateral and repayment details',
	routing: apiRoute(
		{
			label: 'Contract → Get',
			toolDescription:
				'Get a contract: its status, amounts, where to send collateral and the next installment due',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'contractId', label: 'contract' },
		},
		// The preSend puts the checked contract ID into the path.
		{ method: 'GET', url: '/api/contracts/{id}' },
		{ prepare: [sendToContract()], finish: [simplifyContracts] },
	),
};
