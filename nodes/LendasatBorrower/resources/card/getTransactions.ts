import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { applyLimitToList, checkLimitFirst, returnAllAndLimit } from '../../descriptions/fields';
import { apiRoute } from '../../transport/apiRoute';
import { describeValue, isRecord } from '../../validation/checks';
import { CARD_NOT_FOUND, cardIdField, readCardId } from './shared';

const showOnlyForGetTransactions = { resource: ['card'], operation: ['getTransactions'] };

/**
 * Items keep the API's `{type, data}` shape (cards.rs:437-446, serde tag/content), like Notification →
 * Get Many: lossless for kinds the node does not know yet.
 */
export const cardGetTransactionsOperation: INodePropertyOptions = {
	name: 'Get Transactions',
	value: 'getTransactions',
	action: 'Get card transactions',
	description:
		"List a PayWithMoon card's transactions. Each item is {type, data}: type is Card (a payment), CardAuthorizationRefund or DeclineData (a declined payment); data holds its datetime, merchant, amount and, for payments, transaction_id, transaction_status, currencies and fees.",
	routing: apiRoute(
		{
			label: 'Card → Get Transactions',
			toolDescription:
				"Get a PayWithMoon card's transactions: payments, refunds and declined payments with merchant, amount and date; changes nothing",
			keyType: 'borrower',
			expects: 'list',
			answer: transactionsAnswer,
			notFound: { parameter: 'cardId', label: 'card' },
			errors: [CARD_NOT_FOUND],
		},
		{ method: 'GET', url: '/api/moon/transactions/{card_id}' },
		{ prepare: [checkLimitFirst, toCard], finish: [applyLimitToList] },
	),
};

export const cardGetTransactionsFields: INodeProperties[] = [
	cardIdField('getTransactions', 'whose transactions to list'),
	...returnAllAndLimit(showOnlyForGetTransactions),
];

async function toCard(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return {
		...request,
		url: `/api/moon/transactions/${encodeURIComponent(readCardId(this))}`,
	};
}

/** Each transaction is of use only as a kind with its data. */
function transactionsAnswer(body: unknown): string | undefined {
	const transactions = Array.isArray(body) ? body : [];
	const index = transactions.findIndex(
		(transaction) =>
			!isRecord(transaction) || typeof transaction.type !== 'string' || !isRecord(transaction.data),
	);
	if (index < 0) return undefined;
	const transaction: unknown = transactions[index];
	return `its transaction ${index + 1} is not {type, data} (type ${describeValue(isRecord(transaction) ? transaction.type : undefined)})`;
}
