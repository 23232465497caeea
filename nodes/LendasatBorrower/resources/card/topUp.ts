import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	INVOICE_FAILED,
	MOON_CARD_LOAD_ERRORS,
	cardIdField,
	invoiceAnswer,
	invoiceFields,
	readCardId,
	readInvoiceRequest,
} from './shared';

export const cardTopUpOperation: INodePropertyOptions = {
	name: 'Top Up',
	value: 'topUp',
	action: 'Top up a card',
	description:
		'Load more US dollars onto one of your PayWithMoon cards: Lendasat returns an invoice, {invoice_id, card_id, address, crypto_amount, currency, usd_amount, expires_at}. Pay crypto_amount in that currency to the address before it expires; the card is loaded once the invoice is paid. Each run makes a new invoice.',
	routing: apiRoute(
		{
			label: 'Card → Top Up',
			toolDescription:
				'Top up a PayWithMoon card: makes an invoice to load the amount in USD onto the card; returns where to send how much crypto and when it expires; the card is loaded only once paid',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: invoiceAnswer,
			notFound: { parameter: 'cardId', label: 'card' },
			errors: [INVOICE_FAILED, ...MOON_CARD_LOAD_ERRORS],
		},
		{ method: 'POST', url: '/api/moon/topup' },
		{ prepare: [buildTopUpRequest], finish: [withCardId] },
	),
};

export const cardTopUpFields: INodeProperties[] = [
	cardIdField('topUp', 'to load'),
	...invoiceFields('topUp', 'to load onto the card'),
];

/** `TopupCardRequest` (cards.rs:158-168): the card, the amount and the currency. */
async function buildTopUpRequest(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const cardId = readCardId(this);
	return { ...request, body: { card_id: cardId, ...readInvoiceRequest(this) } };
}

/** The invoice names no card; the item says which one it loads. */
async function withCardId(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const cardId = readCardId(this);
	return items.map(({ json, ...item }) => {
		const { invoice_id, ...rest } = json;
		return { ...item, json: { invoice_id, card_id: cardId, ...rest } };
	});
}
