import type { INodeProperties } from 'n8n-workflow';

import { loanApplicationCreateFields, loanApplicationCreateOperation } from './create';
import { loanApplicationDeleteOperation } from './delete';
import { loanApplicationGetOperation } from './get';
import { loanApplicationGetAllFields, loanApplicationGetAllOperation } from './getAll';
import { loanApplicationUpdateFields, loanApplicationUpdateOperation } from './update';
import { RESOURCE, loanApplicationIdField, loanApplicationSimplifyField } from './shared';

export const loanApplicationDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [RESOURCE] } },
		options: [
			loanApplicationCreateOperation,
			loanApplicationDeleteOperation,
			loanApplicationGetOperation,
			loanApplicationGetAllOperation,
			loanApplicationUpdateOperation,
		],
		default: 'getAll',
	},
	...loanApplicationCreateFields,
	loanApplicationIdField,
	...loanApplicationUpdateFields,
	...loanApplicationGetAllFields,
	loanApplicationSimplifyField,
];
