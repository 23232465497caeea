import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { liveErrorBodyWithout } from '../../transport/answer';
import type { ErrorGuidance } from '../../transport/errors';
import { parseBitcoinAddress } from '../../validation/bitcoin';
import {
	checkCentAmount,
	checkOneOf,
	checkUuid,
	describeValue,
	isRecord,
	toCents,
	toNumber,
} from '../../validation/checks';
import { requireIssuedId, requireText, requireValid } from '../../validation/parameters';

/** The most a Moon card holds (hub 0.8.2 moon.rs:22 `MOON_CARD_MAX_BALANCE`): no single load can exceed it. */
export const MAX_CARD_LOAD_USD = 5000;

/** hub 0.8.2 moon.rs:87-91 `Currency` (schema.d.ts:1663): what a card invoice is paid in. */
const CURRENCY_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Bitcoin', value: 'BtcBitcoin', description: 'On-chain bitcoin' },
	{ name: 'USDC on Polygon', value: 'UsdcPolygon' },
	{ name: 'USDT on Tron', value: 'UsdtTron' },
];

const CURRENCIES = CURRENCY_OPTIONS.map(({ value }) => String(value));

/** Amount (USD) and Currency of Card → Create and Card → Top Up: what goes on the card and how it is paid. */
export function invoiceFields(operation: string, purpose: string): INodeProperties[] {
	const displayOptions = { show: { resource: ['card'], operation: [operation] } };
	return [
		{
			displayName: 'Amount (USD)',
			name: 'amountUsd',
			type: 'number',
			required: true,
			typeOptions: { minValue: 0, maxValue: MAX_CARD_LOAD_USD, numberPrecision: 2 },
			default: 0,
			description: `How many US dollars ${purpose}, in whole cents, at most ${MAX_CARD_LOAD_USD} (what a Moon card holds). The invoice may add Lendasat's top-up fee.`,
			displayOptions,
		},
		{
			displayName: 'Currency',
			name: 'currency',
			type: 'options',
			options: CURRENCY_OPTIONS,
			default: 'UsdcPolygon',
			description: 'What you pay the invoice in',
			displayOptions,
		},
	];
}

/** The body both invoice requests share, checked: `{amount_usd, currency}`. */
export function readInvoiceRequest(context: IExecuteSingleFunctions): IDataObject {
	const amount = requireValid(
		context,
		'Amount (USD)',
		context.getNodeParameter('amountUsd'),
		checkCentAmount(MAX_CARD_LOAD_USD, `a Moon card holds at most ${MAX_CARD_LOAD_USD} USD`),
	);
	const currency = requireText(
		context,
		'Currency',
		context.getNodeParameter('currency'),
		checkOneOf(CURRENCIES),
	);
	return { amount_usd: toCents(toNumber(amount)), currency };
}

/** The Card ID of Top Up and Get Transactions. */
export function cardIdField(operation: string, purpose: string): INodeProperties {
	return {
		displayName: 'Card ID',
		name: 'cardId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		description: `The UUID of the card ${purpose}: the ID of an item from Card → Get Many`,
		displayOptions: { show: { resource: ['card'], operation: [operation] } },
	};
}

export function readCardId(context: IExecuteSingleFunctions): string {
	return requireIssuedId(context, 'Card ID', context.getNodeParameter('cardId'));
}

const CARD_LIST_HINT =
	'Card → Get Many lists the IDs of your cards. A card ordered with Card → Create exists only once its invoice is paid.';

/**
 * The card routes answer an unknown or foreign card with 400 "Card not found" (cards.rs:140-144,
 * 231-233, 612); Contract → Create with a `moon_card_id` answers 404 (contracts.rs:244, 2680-2682).
 */
export const CARD_NOT_FOUND: ErrorGuidance = {
	statusCodes: [400, 404],
	text: /^card not found/i,
	message: 'Card not found',
	hint: `no Moon card of this account has that ID. ${CARD_LIST_HINT}`,
};

/**
 * Loading a Moon card: hub 0.8.2 checks these where a loan tops up a card (Contract → Create with a
 * `moon_card_id`, contracts.rs:246-265 and 2683-2703). Its own top-up route checks neither the limit
 * nor the country; a newer backend may ([INF]), so Card → Top Up and Create read them too.
 */
export const MOON_CARD_LOAD_ERRORS: ErrorGuidance[] = [
	CARD_NOT_FOUND,
	{
		statusCodes: [451],
		text: /from the us/i,
		message: 'Moon cards cannot be topped up from the US',
		hint: "Lendasat refuses to load a Moon card when the request comes from a US IP address. The address that counts is the n8n server's, which sends the request: run the workflow on an n8n instance outside the US.",
	},
	{
		statusCodes: [451],
		text: /request ip required/i,
		message: 'Lendasat could not tell where the request comes from',
		hint: "loading a Moon card needs the caller's IP address, which Lendasat checks is outside the US; it saw none (a proxy in front of n8n or Lendasat may hide it). Try again, or from another network.",
	},
	{
		statusCodes: [400],
		text: /current balance .* > limit/i,
		message: `The card would hold more than ${MAX_CARD_LOAD_USD} USD`,
		hint: `a Moon card holds at most ${MAX_CARD_LOAD_USD} USD: its balance plus the amount would exceed that. Choose a smaller amount, or another card (Card → Get Many shows each card's balance).`,
	},
];

/** cards.rs:613-616: Moon failed to make the invoice (Error::InvoiceGeneration); nothing was stored. */
export const INVOICE_FAILED: ErrorGuidance = {
	statusCodes: [500],
	text: /failed to generate invoice/i,
	message: 'PayWithMoon could not make the invoice',
	hint: 'Lendasat asked PayWithMoon for an invoice and it failed; no invoice was stored and nothing is owed. The amount may be below what PayWithMoon accepts, or its service may be down: try another amount, or again later.',
};

const EVM_ADDRESS = /^0x[0-9a-f]{40}$/i;
const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/** Why `address` cannot be paid in `currency`, or undefined when it can. */
function addressProblem(address: string, currency: unknown): string | undefined {
	switch (currency) {
		case 'BtcBitcoin':
			return 'error' in parseBitcoinAddress(address) ? 'is not a Bitcoin address' : undefined;
		case 'UsdcPolygon':
			return EVM_ADDRESS.test(address) ? undefined : 'is not a Polygon address (0x and 40 hex)';
		case 'UsdtTron':
			return TRON_ADDRESS.test(address) ? undefined : 'is not a Tron address (T…, 34 characters)';
		default:
			return undefined;
	}
}

/**
 * An invoice (`NewCardResponse`, `TopupCardResponse`: cards.rs:171-188, 270-287) is of use only with
 * its ID, an address of the currency it is paid in, positive amounts and an expiry.
 */
export function invoiceAnswer(body: unknown): string | undefined {
	const errorBody = liveErrorBodyWithout(body, 'invoice_id');
	if (errorBody) return errorBody;
	const invoice = isRecord(body) ? body : {};
	if (typeof invoice.invoice_id !== 'string' || checkUuid(invoice.invoice_id) !== null) {
		return `its invoice_id ${describeValue(invoice.invoice_id)} is not a UUID`;
	}
	if (!CURRENCIES.includes(String(invoice.currency))) {
		return `its currency ${describeValue(invoice.currency)} is not one of ${CURRENCIES.join(', ')}`;
	}
	if (typeof invoice.address !== 'string' || invoice.address === '') return 'it holds no address';
	const wrongAddress = addressProblem(invoice.address, invoice.currency);
	if (wrongAddress) return `its address ${describeValue(invoice.address)} ${wrongAddress}`;
	for (const field of ['crypto_amount', 'usd_amount']) {
		const amount = invoice[field];
		if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
			return `its ${field} ${describeValue(amount)} is not a positive amount`;
		}
	}
	if (typeof invoice.expires_at !== 'string' || Number.isNaN(Date.parse(invoice.expires_at))) {
		return `its expires_at ${describeValue(invoice.expires_at)} is not a date`;
	}
	return undefined;
}
