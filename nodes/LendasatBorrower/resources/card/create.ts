import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	INVOICE_FAILED,
	MOON_CARD_LOAD_ERRORS,
	invoiceAnswer,
	invoiceFields,
	readInvoiceRequest,
} from './shared';

export const cardCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a card',
	description:
		'Order a new PayWithMoon card: Lendasat returns an invoice, {invoice_id, address, crypto_amount, currency, usd_amount, expires_at}. Pay crypto_amount in that currency to the address before it expires; the card is made once the invoice is paid and then appears in Card → Get Many. Each run makes a new invoice.',
	routing: apiRoute(
		{
			label: 'Card → Create',
			toolDescription:
				'Create a PayWithMoon card: makes an invoice to pay for a new card loaded with the amount in USD; returns where to send how much crypto and when it expires; the card exists only once paid',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: invoiceAnswer,
			errors: [INVOICE_FAILED, ...MOON_CARD_LOAD_ERRORS],
		},
		{ method: 'POST', url: '/api/moon/new' },
		{ prepare: [buildNewCardRequest] },
	),
};

export const cardCreateFields = invoiceFields('create', 'to load onto the new card');

async function buildNewCardRequest(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return { ...request, body: readInvoiceRequest(this) };
}
