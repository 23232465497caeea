/**
 * PayWithMoon cards (hub 0.8.2 routes/borrower/cards.rs at 49781f87; mounted at /api/moon,
 * routes/borrower.rs:275): the borrower's cards, a card's transactions, and the invoices that order a
 * new card or load one. Line numbers below are of cards.rs unless named otherwise.
 *
 * - Every error is `{"message": …}` (589-624); the cards router's own JSON extractor turns any body
 *   rejection into 400 "Invalid JSON: <axum's fixed text>" (549-555, 617-620): no 422, and no serde
 *   detail, because axum's rejections display only their fixed text (axum-core `__define_rejection`).
 * - An unknown or foreign card is 400 "Card not found" (140-144, 231-233, 612); a card id that is
 *   not a UUID, on the transactions route, 400 "Invalid card ID provided" (134, 608-611). Top-up and
 *   new card check neither the 5,000 USD a card holds nor the caller's country: only a loan that tops
 *   up a card does (contracts.rs:238-265, see moon.ts).
 * The spec dialect serves the same with `{error, code, details}` and 404 CARD_NOT_FOUND.
 */
import { ApiError, shorten } from '../errors';
import { MOON_CURRENCIES, cardsOf, createMoonInvoice, invoiceReply, publicCard } from '../moon';
import { caller, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import { deserializeLive, type FieldSpec } from '../serde';
import type { MoonCard, MoonCurrency } from '../types';
import { isPositiveNumber, isUuid, requireFields, requireObject } from '../validate';

/** The fixed texts of axum 0.7's JSON rejections, which the cards router prefixes with "Invalid JSON: ". */
const AXUM_JSON_REJECTIONS = [
	'Failed to deserialize the JSON body into the target type',
	'Failed to parse the request body as JSON',
	'Expected request with `Content-Type: application/json`',
];

/** cards.rs:617-620: `(400, format!("Invalid JSON: {rejection}"))`. */
function cardsJsonRejection(error: ApiError): ApiError {
	const text = AXUM_JSON_REJECTIONS.find((prefix) => error.live.message.startsWith(prefix));
	if (!text) return error;
	return new ApiError(error.status, error.code, error.details, {
		status: 400,
		message: `Invalid JSON: ${text}`,
	});
}

function cardNotFound(id: string): ApiError {
	return new ApiError(404, 'CARD_NOT_FOUND', `Card ${shorten(id)} not found`, {
		status: 400,
		message: 'Card not found',
	});
}

function ownCard(ctx: RequestContext, id: string): MoonCard {
	const card = ctx.state.moonCards.get(id);
	if (!card || card.borrower_id !== caller(ctx).user.id) throw cardNotFound(id);
	return card;
}

/**
 * get_cards (51-101): the caller's cards as Moon reports them now. [INF] in database order; a card
 * Moon fails to report is left out (86-91), which the sandbox never does.
 */
function listCards(ctx: RequestContext): Reply {
	return jsonReply(cardsOf(ctx.state, caller(ctx).user.id).map(publicCard));
}

/** get_card_transactions (103-156): `Path<String>`, then a UUID, then the caller's card. [INF] oldest first. */
function listTransactions(ctx: RequestContext): Reply {
	const id = ctx.params.card_id;
	if (!isUuid(id)) {
		throw new ApiError(400, 'INVALID_CARD_ID', `Card ID ${shorten(id)} is not a UUID`, {
			message: 'Invalid card ID provided',
		});
	}
	const card = ownCard(ctx, id.toLowerCase());
	return jsonReply(ctx.state.moonTransactions.get(card.id) ?? []);
}

/** NewCardRequest (289-297) and TopupCardRequest (158-168), fields in declaration order. */
const INVOICE_FIELDS: FieldSpec[] = [
	{ name: 'currency', type: { kind: 'enum', variants: MOON_CURRENCIES } },
	{ name: 'amount_usd', type: { kind: 'decimal' } },
];
const TOPUP_FIELDS: FieldSpec[] = [...INVOICE_FIELDS, { name: 'card_id', type: { kind: 'uuid' } }];

interface CardRequest {
	currency: MoonCurrency;
	amount_usd: number;
	card_id?: string;
}

function readSpecRequest(body: unknown, fields: FieldSpec[]): CardRequest {
	const names = fields.map(({ name }) => name);
	const object = requireObject(body, names);
	requireFields(object, names);
	const invalid = (field: string, expected: string) =>
		new ApiError(
			400,
			'INVALID_FIELD',
			`Field ${field} must be ${expected}, got ${shorten(object[field])}`,
		);
	if (!MOON_CURRENCIES.includes(object.currency as MoonCurrency))
		throw invalid('currency', `one of ${MOON_CURRENCIES.join(', ')}`);
	if (!isPositiveNumber(object.amount_usd)) throw invalid('amount_usd', 'a positive number');
	if (names.includes('card_id') && !isUuid(object.card_id)) throw invalid('card_id', 'a UUID');
	return object as unknown as CardRequest;
}

function readRequest(ctx: RequestContext, structName: string, fields: FieldSpec[]): CardRequest {
	if (ctx.config.dialect === 'spec') return readSpecRequest(ctx.body, fields);
	try {
		return deserializeLive(ctx.rawBody, ctx.body, structName, fields) as unknown as CardRequest;
	} catch (error) {
		throw error instanceof ApiError ? cardsJsonRejection(error) : error;
	}
}

/** new_card (299-366): an invoice; the card is made once PayWithMoon reports it paid. */
function newCard(ctx: RequestContext): Reply {
	const request = readRequest(ctx, 'NewCardRequest', INVOICE_FIELDS);
	const invoice = createMoonInvoice(ctx.state, {
		borrowerId: caller(ctx).user.id,
		cardId: null,
		amountUsd: request.amount_usd,
		currency: request.currency,
	});
	return jsonReply(invoiceReply(invoice));
}

/** topup_card (190-267): the caller's card (else 400 "Card not found"), then an invoice. */
function topUpCard(ctx: RequestContext): Reply {
	const request = readRequest(ctx, 'TopupCardRequest', TOPUP_FIELDS);
	const card = ownCard(ctx, String(request.card_id).toLowerCase());
	const invoice = createMoonInvoice(ctx.state, {
		borrowerId: caller(ctx).user.id,
		cardId: card.id,
		amountUsd: request.amount_usd,
		currency: request.currency,
	});
	return jsonReply(invoiceReply(invoice));
}

export const cardRoutes: Route[] = [
	{ method: 'GET', pattern: '/api/moon/cards', auth: 'borrower', body: 'none', handle: listCards },
	{
		method: 'GET',
		pattern: '/api/moon/transactions/:card_id',
		auth: 'borrower',
		body: 'none',
		handle: listTransactions,
	},
	{
		method: 'POST',
		pattern: '/api/moon/new',
		auth: 'borrower',
		body: 'json',
		jsonRejection: cardsJsonRejection,
		handle: newCard,
	},
	{
		method: 'POST',
		pattern: '/api/moon/topup',
		auth: 'borrower',
		body: 'json',
		jsonRejection: cardsJsonRejection,
		handle: topUpCard,
	},
];
