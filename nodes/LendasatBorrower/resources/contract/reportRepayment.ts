import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { requireText } from '../../shared/parameters';
import { apiRoute } from '../../shared/transport';
import { checkUuid, describeValue } from '../../shared/validation';
import { contractIdOf, sendToContract } from './shared';

const showOnlyForReportRepayment = { show: { resource: ['contract'], operation: ['reportRepayment'] } };

const PAYMENT_ID_MAX_LENGTH = 256;

export const contractReportRepaymentOperation: INodePropertyOptions = {
	name: 'Report Repayment',
	value: 'reportRepayment',
	action: 'Report a repayment',
	description:
		'Tell the lender that an installment was paid, with the payment transaction ID. The output repeats the contract, installment and payment IDs with reported: true.',
	routing: apiRoute(
		{
			resource: 'contract',
			operation: 'reportRepayment',
			label: 'Contract → Report Repayment',
			keyType: 'borrower',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				{
					statusCodes: [400],
					codes: ['INVALID_STATE'],
					text: /cannot mark an installment as paid/i,
					message: 'Repayments can only be reported for a running loan',
					hint: 'the contract must be in status PrincipalGiven (the loan was paid out and is not yet repaid). Contract → Get shows the current status.',
				},
				{
					statusCodes: [400, 404],
					codes: ['INSTALLMENT_NOT_FOUND'],
					text: /installment .*not found/i,
					message: 'The installment is not part of this contract',
					hint: "use the id of one of the contract's installments (Contract → Get with Simplify off lists them under installments).",
				},
			],
		},
		// The preSend puts the checked contract ID into the path.
		{ method: 'PUT', url: '/api/contracts/{id}/installment-paid' },
		{ preSend: [sendToContract('/installment-paid'), addRepaymentBody], postReceive: [confirmReport] },
	),
};

export const contractReportRepaymentFields: INodeProperties[] = [
	{
		displayName: 'Installment ID',
		name: 'installmentId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		description: "The paid installment: the ID of one entry of the contract's installments",
		displayOptions: showOnlyForReportRepayment,
	},
	{
		displayName: 'Payment Transaction ID',
		name: 'paymentId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
		description: 'Transaction ID (hash) of the stablecoin transfer that repaid the installment',
		displayOptions: showOnlyForReportRepayment,
	},
];

async function addRepaymentBody(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	requestOptions.body = {
		installment_id: requireText(this, 'Installment ID', this.getNodeParameter('installmentId'), checkUuid),
		payment_id: requireText(this, 'Payment Transaction ID', this.getNodeParameter('paymentId'), checkPaymentId),
	};
	return requestOptions;
}

function checkPaymentId(value: unknown): string | null {
	if (typeof value !== 'string' && typeof value !== 'number') {
		return `Expected a transaction ID as text, got ${describeValue(value)}.`;
	}
	const id = String(value).trim();
	if (id === '') return 'Must not be empty. Enter the transaction ID of the repayment, e.g. 0x5c504ed4….';
	if (id.length > PAYMENT_ID_MAX_LENGTH) {
		return `Too long: ${id.length} characters, at most ${PAYMENT_ID_MAX_LENGTH} are allowed.`;
	}
	return null;
}

/** The API answers an empty 200; the output says what was reported. */
async function confirmReport(
	this: IExecuteSingleFunctions,
): Promise<INodeExecutionData[]> {
	return [
		{
			json: {
				id: contractIdOf(this),
				installment_id: String(this.getNodeParameter('installmentId')).trim(),
				payment_id: String(this.getNodeParameter('paymentId')).trim(),
				reported: true,
			},
		},
	];
}
