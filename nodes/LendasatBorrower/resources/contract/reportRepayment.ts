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

import { FIAT_LOAN_ASSETS } from '../../descriptions/loanTerms';
import { invalidParameter, requireText } from '../../validation/parameters';
import { apiRoute, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { liveErrorBodyWithout } from '../../transport/answer';
import {
	checkPositiveAmount,
	checkUuid,
	describeValue,
	isRecord,
	toNumber,
} from '../../validation/checks';
import {
	CONTRACTS_PATH,
	contractIdOf,
	contractPath,
	installmentAmount,
	sendToContract,
} from './shared';

const showOnlyForReportRepayment = {
	show: { resource: ['contract'], operation: ['reportRepayment'] },
};

const PAYMENT_ID_MAX_LENGTH = 256;
const PAYMENT_ID_LABEL = 'Payment Transaction ID';

export const contractReportRepaymentOperation: INodePropertyOptions = {
	name: 'Report Repayment',
	value: 'reportRepayment',
	action: 'Report a repayment',
	description:
		'Tell the lender that an installment was paid, with the payment transaction ID and the amount paid. The output repeats the contract, installment and payment IDs and the amount with reported: true.',
	routing: apiRoute(
		{
			label: 'Contract → Report Repayment',
			toolDescription:
				"Report a repayment: tells the lender an installment was paid, with the payment's transaction ID and the amount (by default the installment's principal plus interest); returns what was reported",
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
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'PUT', url: `${CONTRACTS_PATH}/{id}/installment-paid` },
		{
			prepare: [sendToContract, addRepaymentBody],
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
		// Not marked required: n8n refuses to run a node whose required text is empty, and a fiat loan may leave it so.
		default: '',
		placeholder: 'e.g. 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
		description:
			'Transaction ID (hash) of the stablecoin transfer that repaid the installment. A fiat loan (USD, EUR, CHF, MXN) may give a bank reference or leave it empty.',
		displayOptions: showOnlyForReportRepayment,
	},
	{
		displayName: 'Amount Paid',
		name: 'amount',
		type: 'string',
		default: '',
		placeholder: "e.g. 250.5 (empty: the installment's principal + interest)",
		description:
			"What was paid, in the loan asset (e.g. USD for USDC). Leave empty to report the installment's principal plus interest, as the contract lists it.",
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
		// Empty is checked against the contract's loan asset once it is read (refuseEmptyPaymentIdUnlessFiat).
		payment_id: requireText(
			this,
			PAYMENT_ID_LABEL,
			this.getNodeParameter('paymentId', ''),
			checkPaymentId,
		),
		// Filled in from the contract when left empty (see reportWhenInstallmentExists).
		amount: amountGiven(this),
	};
	return requestOptions;
}

/** Amount Paid as given, checked like every money field; null when left empty. */
function amountGiven(context: IExecuteSingleFunctions): number | null {
	const value = context.getNodeParameter('amount', '');
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
		return null;
	const problem = checkPositiveAmount(value);
	if (problem) throw invalidParameter(context, 'Amount Paid', problem);
	return toNumber(value);
}

function checkPaymentId(value: unknown): string | null {
	if (typeof value !== 'string' && typeof value !== 'number') {
		return `Expected a transaction ID as text, got ${describeValue(value)}.`;
	}
	const id = String(value).trim();
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
 * so the contract is read first; it also gives the amount to report when none was given, and the
 * loan asset that decides whether the Payment Transaction ID may be empty. The API
 * answers the report with an empty 200; the output says what was reported.
 */
async function reportWhenInstallmentExists(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const contractId = contractIdOf(this);
	const body = request.body as IDataObject;
	const contract = await api.send({ method: 'GET', url: contractPath(contractId) }, 'object', {
		check: (answer) => liveErrorBodyWithout(answer, 'id'),
	});
	if (body.payment_id === '') refuseEmptyPaymentIdUnlessFiat(this, contractId, contract);
	const installments = isRecord(contract) ? contract.installments : undefined;
	// A server that does not list installments cannot be checked; its own answer has to do.
	const installment = Array.isArray(installments)
		? installmentOf(this, contractId, installments, body.installment_id)
		: undefined;
	// Without an amount given or listed, null: what Lendasat's mobile app sends ("server requires
	// field to be present, can be null"; Lendasat then reads the amount from the payment itself).
	const amount = body.amount ?? (installment ? (installmentAmount(installment) ?? null) : null);
	await api.send({ ...request, body: { ...body, amount } }, 'empty', {
		check: (answer) => liveErrorBodyWithout(answer, 'id'),
	});
	return [
		{
			json: {
				id: contractId,
				installment_id: body.installment_id,
				payment_id: body.payment_id,
				amount,
				reported: true,
			},
		},
	];
}

/**
 * Lendasat's InstallmentPaidRequest: "For stablecoin loans, this should be a TXID. For fiat loans,
 * there is no predefined format so this may be left empty" (hub 49781f87 model.rs:1106-1111). The
 * backend itself takes an empty one for any loan; the node refuses it unless the contract says its
 * loan is paid out in a fiat currency, so that a stablecoin repayment is never reported without a
 * transaction the lender can check.
 */
function refuseEmptyPaymentIdUnlessFiat(
	context: IExecutePaginationFunctions,
	contractId: string,
	contract: unknown,
): void {
	const asset = isRecord(contract) ? contract.loan_asset : undefined;
	if (typeof asset === 'string' && FIAT_LOAN_ASSETS.includes(asset)) return;
	const loan =
		typeof asset === 'string' && asset !== ''
			? `its loan is paid out in ${asset}, not in a fiat currency`
			: 'it does not say its loan asset (loan_asset), so it cannot be taken for a fiat loan';
	throw invalidParameter(
		context,
		PAYMENT_ID_LABEL,
		`Must not be empty for contract ${contractId}: ${loan}. Enter the transaction ID of the repayment, e.g. 0x5c504ed4…; only a fiat loan (USD, EUR, CHF, MXN) may leave it empty. Nothing was reported.`,
	);
}

/** The installment the report is for, from the contract's list; an error listing them if it is not there. */
function installmentOf(
	context: IExecutePaginationFunctions,
	contractId: string,
	installments: unknown[],
	installmentId: unknown,
): IDataObject {
	const installment = installments.find((candidate) => sameId(candidate, installmentId));
	if (isRecord(installment)) return installment;
	throw new NodeOperationError(
		context.getNode(),
		`Installment ${String(installmentId)} is not part of contract ${contractId}`,
		{
			itemIndex: context.getItemIndex(),
			description: `Contract → Report Repayment: nothing was reported. The contract's installments are ${
				installments.filter(isRecord).map(describeInstallment).join(', ') || 'none'
			}; Contract → Get shows them under installments (Simplify off) or next_installment.`,
		},
	);
}

function sameId(installment: unknown, id: unknown): boolean {
	return isRecord(installment) && String(installment.id).toLowerCase() === String(id).toLowerCase();
}

function describeInstallment(installment: IDataObject): string {
	return `${String(installment.id)} (${String(installment.status ?? 'unknown status')}, due ${String(installment.due_date ?? '?')})`;
}
