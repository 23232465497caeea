import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodePropertyOptions,
} from 'n8n-workflow';

import { readSimplify } from '../../descriptions/fields';
import { apiRoute, settle, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { mayHaveBeenProcessed, withNote } from '../../transport/exchange';
import { parseBitcoinAddress } from '../../validation/bitcoin';
import { checkUuid, describeValue, isRecord } from '../../validation/checks';
import { CONTRACTS_PATH, contractIdOf, sendToContract } from './shared';

const SATS_PER_BTC = 100_000_000;

export const contractCreateBtcInvoiceOperation: INodePropertyOptions = {
	name: 'Create Bitcoin Repayment Invoice',
	value: 'createBtcInvoice',
	action: 'Create a Bitcoin repayment invoice',
	description:
		"Get an invoice to pay the contract's next pending installment in bitcoin (any loan but one in euros, when its lender accepts Bitcoin). It says where to send how many sats, and expires after 15 minutes; while one is unexpired, the same invoice comes back. Pay it from your own wallet, then report the transaction with Report Bitcoin Invoice Paid, which needs the invoice ID (the first field of the output).",
	routing: apiRoute(
		{
			label: 'Contract → Create Bitcoin Repayment Invoice',
			toolDescription:
				"Create a Bitcoin repayment invoice for the next installment of a loan not in euros: Lendasat records it (asking again within 15 minutes returns the same one) and returns the lender's address, the amount in sats and USD and when it expires (15 minutes); sends no money",
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				{
					statusCodes: [400],
					codes: ['UNSUPPORTED_CURRENCY'],
					text: /bitcoin repayment is not supported for \w+ loans/i,
					// hub 49781f87 routes/borrower/contracts.rs:1580-1584 refuses every currency but Usd, and
					// LoanAsset::to_currency (model.rs:516-532) maps every asset to Usd except Eur: whatever
					// its words ("Only USD-based loans"), only a loan in euros is refused.
					message: 'Lendasat takes no Bitcoin repayment for a loan in this currency',
					hint: 'Lendasat makes Bitcoin invoices only for loans it counts in US dollars, and it counts every loan asset in US dollars but Eur (stablecoins, USD, CHF and MXN alike): a loan in euros cannot be repaid in bitcoin. Pay the installment in the loan asset to loan_repayment_address (Contract → Get) and report it with Contract → Report Repayment.',
				},
				{
					statusCodes: [400],
					codes: ['NO_BTC_REPAYMENT_ADDRESS'],
					text: /does not support bitcoin repayment|must provide a bitcoin repayment address/i,
					message: "This contract's lender does not take Bitcoin repayments",
					hint: 'the lender gave no Bitcoin repayment address (btc_loan_repayment_address is empty on Contract → Get with Simplify off). Pay the installment in the loan asset to loan_repayment_address and report it with Contract → Report Repayment.',
				},
				{
					statusCodes: [400],
					codes: ['NO_PENDING_INSTALLMENT'],
					text: /no pending installments/i,
					message: 'This contract has no installment to pay',
					hint: 'every installment is already paid, confirmed or cancelled, or the open one is overdue (late): Lendasat makes invoices only for pending installments. Contract → Get shows the installments (Simplify off) and the status.',
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'POST', url: `${CONTRACTS_PATH}/{id}/generate-btc-invoice` },
		{
			prepare: [sendToContract, withoutBody],
			send: requestInvoice,
			finish: [shapeInvoice],
		},
	),
};

/** The route takes no body: nothing is sent, not even `{}`. */
async function withoutBody(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	request.body = undefined;
	return request;
}

/**
 * Sent once: after a failure that may have reached Lendasat it is not sent again. Running the item
 * again is safe all the same, since Lendasat returns the pending invoice while it is unexpired; the
 * error says so.
 */
async function requestInvoice(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const sent = await settle(api.send(request, 'object', { check: invoiceAnswer }));
	if ('value' in sent) return [{ json: sent.value as IDataObject }];
	throw mayHaveBeenProcessed(sent.error)
		? withNote(
				sent.error,
				'Running this item again is safe: while an invoice is pending and unexpired (15 minutes), Lendasat returns that same invoice instead of making another.',
			)
		: sent.error;
}

/** An invoice is of use only with its ID, a Bitcoin address to pay and a whole, positive number of sats. */
function invoiceAnswer(body: unknown): string | undefined {
	const invoice = isRecord(body) ? body.invoice : undefined;
	if (!isRecord(invoice)) return 'it holds no invoice';
	if (typeof invoice.id !== 'string' || checkUuid(invoice.id) !== null)
		return `its invoice ID ${describeValue(invoice.id)} is not a UUID`;
	if (typeof invoice.address !== 'string' || 'error' in parseBitcoinAddress(invoice.address)) {
		return `its address ${describeValue(invoice.address)} is not a Bitcoin address`;
	}
	if (
		typeof invoice.amount_sats !== 'number' ||
		!Number.isSafeInteger(invoice.amount_sats) ||
		invoice.amount_sats <= 0
	) {
		return `its amount_sats ${describeValue(invoice.amount_sats)} is not a whole, positive number of sats`;
	}
	return undefined;
}

/** One item per invoice: its fields, the contract and the installment it pays; Simplify keeps what a payment needs. */
async function shapeInvoice(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const contractId = contractIdOf(this);
	const simplify = readSimplify(this);
	return items.map((item) => {
		const { invoice, installment, ...rest } = item.json;
		if (!isRecord(invoice)) return { json: { contract_id: contractId, ...item.json } };
		const flat: IDataObject = {
			id: invoice.id,
			contract_id: contractId,
			...invoice,
			...rest,
			installment,
		};
		return { json: simplify ? simplifyInvoice(flat) : flat };
	});
}

export function simplifyInvoice(invoice: IDataObject): IDataObject {
	const installment = isRecord(invoice.installment) ? invoice.installment : undefined;
	const uri = paymentUri(invoice.address, invoice.amount_sats);
	return {
		id: invoice.id,
		contract_id: invoice.contract_id,
		status: invoice.status,
		address: invoice.address,
		amount_sats: invoice.amount_sats,
		amount_usd: invoice.amount_usd,
		...(uri ? { payment_uri: uri } : {}),
		expires_at: invoice.expires_at,
		...(installment
			? {
					installment: {
						id: installment.id,
						due_date: installment.due_date,
						amount:
							Math.round(
								(Number(installment.principal ?? 0) + Number(installment.interest ?? 0)) * 100,
							) / 100,
						status: installment.status,
					},
				}
			: {}),
	};
}

/** A BIP-21 payment link (bitcoin:address?amount=BTC) that wallets open with address and amount filled in. */
function paymentUri(address: unknown, sats: unknown): string | undefined {
	if (
		typeof address !== 'string' ||
		address === '' ||
		typeof sats !== 'number' ||
		!Number.isSafeInteger(sats) ||
		sats <= 0
	) {
		return undefined;
	}
	const whole = Math.floor(sats / SATS_PER_BTC);
	const fraction = String(sats % SATS_PER_BTC)
		.padStart(8, '0')
		.replace(/0+$/, '');
	return `bitcoin:${address}?amount=${whole}${fraction ? `.${fraction}` : ''}`;
}
