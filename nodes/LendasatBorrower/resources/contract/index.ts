import type { INodeProperties } from 'n8n-workflow';

import { contractCancelOperation } from './cancel';
import { contractCreateFields, contractCreateOperation } from './create';
import { contractExtendFields, contractExtendOperation } from './extend';
import { contractGetOperation } from './get';
import { contractGetAllFields, contractGetAllOperation } from './getAll';
import { contractReportRepaymentFields, contractReportRepaymentOperation } from './reportRepayment';
import { contractIdField, contractSimplifyField } from './shared';

export const contractDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contract'] } },
		options: [
			contractCancelOperation,
			contractCreateOperation,
			contractExtendOperation,
			contractGetOperation,
			contractGetAllOperation,
			contractReportRepaymentOperation,
		],
		default: 'create',
	},
	...contractCreateFields,
	contractIdField,
	...contractExtendFields,
	...contractReportRepaymentFields,
	...contractGetAllFields,
	contractSimplifyField,
];
