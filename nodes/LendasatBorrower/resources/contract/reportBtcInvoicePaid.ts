import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { liveErrorBodyWithout } from '../../transport/answer';
import { apiRoute } from '../../transport/apiRoute';
import { checkTxid } from '../../validation/checks';
import { requireIssuedId, requireText } from '../../validation/parameters';
import { CONTRACTS_PATH, contractIdOf, sendToContract } from './shared';

const showOnlyForReportBtcInvoicePaid = {
	show: { resource: ['contract'], operation: ['reportBtcInvoicePaid'] },
};

export const contractReportBtcInvoicePaidOperation: INodePropertyOptions = {
	name: 'Report Bitcoin Invoice Paid',
	value: 'reportBtcInvoicePaid',
	action: 'Report a Bitcoin invoice as paid',
	description:
		'Tell Lendasat that you paid a Bitcoin repayment invoice, with the transaction ID of your payment. The installment becomes paid; when all are paid, the contract becomes RepaymentProvided until the lender confirms. The invoice must still be pending and unexpired. Output: the contract and invoice IDs, the txid and reported: true.',
	routing: apiRoute(
		{
			label: 'Contract → Report Bitcoin Invoice Paid',
			toolDescription:
				'Report a Bitcoin repayment invoice as paid, with the txid of the payment you sent: marks the installment paid for the lender to confirm; returns a confirmation',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				{
					statusCodes: [404],
					codes: ['INVOICE_NOT_FOUND'],
					text: /invoice not found/i,
					message: 'No such Bitcoin repayment invoice',
					hint: 'use the invoice ID that Contract → Create Bitcoin Repayment Invoice returned, in the environment the credential points at.',
				},
				{
					statusCodes: [400],
					codes: ['INVOICE_EXPIRED'],
					text: /invoice has expired/i,
					message: 'The Bitcoin repayment invoice has expired',
					hint: 'an invoice is valid for 15 minutes. Create a new one with Contract → Create Bitcoin Repayment Invoice; if you already sent bitcoin for the expired one, contact the lender or Lendasat support with the txid.',
				},
				{
					statusCodes: [400],
					codes: ['INVOICE_NOT_PENDING'],
					text: /cannot accept payment in its current state/i,
					message: 'The invoice was already reported as paid',
					hint: 'only a pending invoice takes a payment; this one is paid or confirmed. Contract → Get shows the installment (Simplify off).',
				},
				{
					statusCodes: [400],
					codes: ['INVALID_STATE'],
					text: /cannot mark an installment as paid/i,
					message: 'Repayments can only be reported for a running loan',
					hint: 'the contract must be in status PrincipalGiven (the loan was paid out and is not yet repaid). Contract → Get shows the current status.',
				},
				{
					statusCodes: [400],
					codes: ['INVOICE_MISMATCH'],
					text: /doesn't match contract/i,
					message: 'The invoice belongs to another contract',
					hint: 'report it with the contract the invoice was created for (the contract_id of Create Bitcoin Repayment Invoice).',
				},
				{
					// This route never loads the contract of the path; it loads the invoice's contract for the key.
					statusCodes: [500],
					text: /^something went wrong\.?$/i,
					message:
						"Lendasat had an internal error — the invoice's contract may belong to another account",
					hint: 'Lendasat answers this when the invoice was created for a contract of another borrower, or on a database error. Check that the invoice ID came from Create Bitcoin Repayment Invoice with this key; if it did, try again later.',
				},
			],
			// Lendasat answers nothing; an error message sent with a 200 is not a confirmation.
			answer: (body) => liveErrorBodyWithout(body, 'invoice_id'),
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'PUT', url: `${CONTRACTS_PATH}/{id}/btc-invoice-paid` },
		{ prepare: [sendToContract, addPaymentBody], finish: [confirmReport] },
	),
};

export const contractReportBtcInvoicePaidFields: INodeProperties[] = [
	{
		displayName: 'Invoice ID',
		name: 'invoiceId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		description:
			'The ID of the invoice you paid, as Contract → Create Bitcoin Repayment Invoice returned it',
		displayOptions: showOnlyForReportBtcInvoicePaid,
	},
	{
		displayName: 'Transaction ID',
		name: 'txid',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
		description:
			"The Bitcoin transaction ID (64 hexadecimal characters) of the payment you sent to the invoice's address",
		displayOptions: showOnlyForReportBtcInvoicePaid,
	},
];

async function addPaymentBody(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	request.body = {
		txid: requireText(
			this,
			'Transaction ID',
			this.getNodeParameter('txid'),
			checkTxid,
		).toLowerCase(),
		invoice_id: requireIssuedId(this, 'Invoice ID', this.getNodeParameter('invoiceId')),
	};
	return request;
}

/** The API answers an empty 200; the item says what was reported (the values as sent). */
async function confirmReport(this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
	const invoiceId = String(this.getNodeParameter('invoiceId')).trim().toLowerCase();
	const txid = String(this.getNodeParameter('txid')).trim().toLowerCase();
	return [{ json: { id: contractIdOf(this), invoice_id: invoiceId, txid, reported: true } }];
}
