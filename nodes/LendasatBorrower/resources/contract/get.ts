import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { CONTRACTS_PATH, sendToContract, simplifyContracts } from './shared';

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
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'GET', url: `${CONTRACTS_PATH}/{id}` },
		{ prepare: [sendToContract], finish: [simplifyContracts] },
	),
};
