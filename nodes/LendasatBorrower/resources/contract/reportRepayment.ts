import {
	NodeOperationError,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IExecuteSingleFunctions,
	type IHttpRequestOptions,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
} from 'n8n-workflow';

import { requireText } from '../../validation/parameters';
import { apiRoute, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { checkUuid, describeValue, isRecord } from '../../validation/checks';
import { contractIdOf, sendToContract } from './shared';

const showOnlyForReportRepayment = {
	show: { resource: ['contract'], operation: ['reportRepayment'] },
};

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
			toolDescription:
				"Report a repayment: tells the lender an installment was paid, with the payment's transaction ID",
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
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
		{
			prepare: [sendToContract('/installment-paid'), addRepaymentBody],
			send: reportWhenInstallmentExists,
		},
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
		installment_id: requireText(
			this,
			'Installment ID',
			this.getNodeParameter('installmentId'),
			checkUuid,
		),
		payment_id: requireText(
			this,
			'Payment Transaction ID',
			this.getNodeParameter('paymentId'),
			checkPaymentId,
		),
	};
	return requestOptions;
}

function checkPaymentId(value: unknown): string | null {
	if (typeof value !== 'string' && typeof value !== 'number') {
		return `Expected a transaction ID as text, got ${describeValue(value)}.`;
	}
	const id = String(value).trim();
	if (id === '')
		return 'Must not be empty. Enter the transaction ID of the repayment, e.g. 0x5c504ed4….';
	if (/[\s\p{Cc}]/u.test(id)) {
		return `${describeValue(id)} contains a space, line break or control character: a transaction ID is one word, e.g. 0x5c504ed4….`;
	}
	if (id.length > PAYMENT_ID_MAX_LENGTH) {
		return `Too long: ${id.length} characters, at most ${PAYMENT_ID_MAX_LENGTH} are allowed.`;
	}
	return null;
}

/**
 * The live backend answers 200 for an installment that is not on the contract and records nothing,
 * so the contract is read first. The API answers the report with an empty 200; the output says what
 * was reported.
 */
async function reportWhenInstallmentExists(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const contractId = contractIdOf(this);
	const { installment_id: installmentId, payment_id: paymentId } = request.body as IDataObject;
	const contract = await api.send(
		{ method: 'GET', url: `/api/contracts/${encodeURIComponent(contractId)}` },
		'object',
	);
	const installments = isRecord(contract) ? contract.installments : undefined;
	// A server that does not list installments cannot be checked; its own answer has to do.
	if (
		Array.isArray(installments) &&
		!installments.some((installment) => sameId(installment, installmentId))
	) {
		throw new NodeOperationError(
			this.getNode(),
			`Installment ${String(installmentId)} is not part of contract ${contractId}`,
			{
				itemIndex: this.getItemIndex(),
				description: `Contract → Report Repayment: nothing was reported. The contract's installments are ${
					installments.filter(isRecord).map(describeInstallment).join(', ') || 'none'
				}; Contract → Get shows them under installments (Simplify off) or next_installment.`,
			},
		);
	}
	await api.send(request, 'empty');
	return [
		{
			json: {
				id: contractId,
				installment_id: installmentId,
				payment_id: paymentId,
				reported: true,
			},
		},
	];
}

function sameId(installment: unknown, id: unknown): boolean {
	return isRecord(installment) && String(installment.id).toLowerCase() === String(id).toLowerCase();
}

function describeInstallment(installment: IDataObject): string {
	return `${String(installment.id)} (${String(installment.status ?? 'unknown status')}, due ${String(installment.due_date ?? '?')})`;
}
