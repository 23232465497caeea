/**
 * PayWithMoon cards as hub 0.8.2 keeps them (lendasat/iframe 49781f87 hub/src/moon.rs,
 * routes/borrower/cards.rs, db/moon.rs): the seeded cards and their transactions, the invoices that
 * order a card or load one, the check a loan that tops up a card passes (contracts.rs:238-265), and the
 * admin helpers that play PayWithMoon (an invoice paid) and the caller's country.
 *
 * What PayWithMoon itself does is not in Lendasat's source; the sandbox's stand-in is marked [INF].
 */
import { testnetAddressFor } from './bitcoin';
import { ApiError } from './errors';
import { evmAddressFor, tronAddressFor } from './ids';
import { BTC_PRICE } from './loans';
import { userOfKey, type SandboxState } from './state';
import type {
	CardTransaction,
	ClientLocation,
	MoonCard,
	MoonCurrency,
	MoonInvoice,
	User,
} from './types';
import { roundMoney } from './validate';

/** moon.rs:22 `MOON_CARD_MAX_BALANCE`. */
export const MOON_CARD_MAX_BALANCE = 5000;

export const MOON_CURRENCIES: readonly MoonCurrency[] = ['UsdcPolygon', 'BtcBitcoin', 'UsdtTron'];

/**
 * Lendasat's fee on a card invoice (`config.card_topup_fee`, cards.rs:247 and 346), a fraction of the
 * amount added to what is owed (moon.rs:214-219). Its value is configuration: [INF] 1 %.
 */
export const CARD_TOPUP_FEE = 0.01;

/** [INF] PayWithMoon's own minimum is not in Lendasat's source; the sandbox's Moon refuses less than 1 USD. */
export const MOON_MIN_INVOICE_USD = 1;

/** [INF] how long PayWithMoon locks the exchange rate (`exchange_rate_lock_expiration`, moon.rs:234). */
export const MOON_INVOICE_LIFETIME_MS = 30 * 60_000;

export const CARD_IDS = {
	/** The borrower's card with a little money and all three kinds of transaction. */
	main: 'ca000000-0000-4000-8000-000000000001',
	/** The borrower's card 10 USD short of the 5,000 USD a card holds. */
	nearLimit: 'ca000000-0000-4000-8000-000000000002',
	/** The other borrower's card. */
	otherBorrowers: 'ca000000-0000-4000-8000-000000000003',
} as const;

/** Card numbers of the seeded cards: payment-network test numbers that no bank issues. */
export const SEEDED_CARD_SECRETS = {
	[CARD_IDS.main]: { pan: '4242424242424242', cvv: '739' },
	[CARD_IDS.nearLimit]: { pan: '4000056655665556', cvv: '802' },
	[CARD_IDS.otherBorrowers]: { pan: '5555555555554444', cvv: '615' },
} as const;

/** The date format PayWithMoon gives and Lendasat passes on: "2024-11-14 10:26:24" (cards.rs:465-467). */
function moonDatetime(at: Date): string {
	return at.toISOString().slice(0, 19).replace('T', ' ');
}

function addCard(state: SandboxState, card: MoonCard): MoonCard {
	state.moonCards.set(card.id, card);
	state.moonTransactions.set(card.id, []);
	return card;
}

/** The card fields Moon reports in a transaction (cards.rs:419-425); [INF] name and type. */
function transactionCard(card: MoonCard): Record<string, unknown> {
	return { public_id: card.id, name: 'Lendasat Visa', type: 'VIRTUAL' };
}

function seedTransactions(state: SandboxState, card: MoonCard, base: Date): void {
	const hoursAgo = (hours: number) => moonDatetime(new Date(base.getTime() - hours * 3_600_000));
	const payment = (
		kind: 'Card' | 'CardAuthorizationRefund',
		id: string,
		status: string,
		merchant: string,
		amount: number,
		hours: number,
	): CardTransaction => ({
		type: kind,
		data: {
			card: transactionCard(card),
			transaction_id: id,
			transaction_status: status,
			datetime: hoursAgo(hours),
			merchant,
			amount,
			ledger_currency: 'USD',
			amount_fees_in_ledger_currency: kind === 'Card' ? 0.05 : 0,
			amount_in_transaction_currency: amount,
			transaction_currency: 'USD',
			amount_fees_in_transaction_currency: kind === 'Card' ? 0.05 : 0,
			fees:
				kind === 'Card' ? [{ type: 'FX', amount: 0.05, fee_description: 'Foreign exchange' }] : [],
		},
	});
	state.moonTransactions.set(card.id, [
		payment(
			'Card',
			'7a000000-0000-4000-8000-000000000001',
			'Settled',
			'Sandbox Coffee Roasters',
			4.5,
			72,
		),
		payment(
			'CardAuthorizationRefund',
			'7a000000-0000-4000-8000-000000000002',
			'Refund',
			'Sandbox Books',
			12,
			48,
		),
		{
			type: 'DeclineData',
			data: {
				datetime: hoursAgo(24),
				merchant: 'Sandbox Electronics',
				customer_friendly_description: 'Insufficient funds',
				amount: 899,
				card: transactionCard(card),
			},
		},
		payment('Card', '7a000000-0000-4000-8000-000000000004', 'Pending', 'Sandbox Grocer', 23.75, 2),
	]);
}

/** Two cards for the borrower (one with transactions), one for the other borrower; Bringin knows the borrower's address. */
export function seedMoon(
	state: SandboxState,
	base: Date,
	users: { borrower: string; otherBorrower: string },
): void {
	const card = (id: keyof typeof SEEDED_CARD_SECRETS, fields: Partial<MoonCard>): MoonCard =>
		addCard(state, {
			id,
			balance: 0,
			available_balance: 0,
			expiration: '09/29',
			...SEEDED_CARD_SECRETS[id],
			borrower_id: users.borrower,
			...fields,
		});
	const main = card(CARD_IDS.main, { balance: 250.5, available_balance: 226.75 });
	seedTransactions(state, main, base);
	card(CARD_IDS.nearLimit, { balance: 4990, available_balance: 4990, expiration: '03/28' });
	card(CARD_IDS.otherBorrowers, {
		balance: 80,
		available_balance: 80,
		borrower_id: users.otherBorrower,
	});
}

export function cardsOf(state: SandboxState, userId: string): MoonCard[] {
	return [...state.moonCards.values()].filter((card) => card.borrower_id === userId);
}

/** What the card list shows of a card (cards.rs:536-547). */
export function publicCard(card: MoonCard): Record<string, unknown> {
	const { id, balance, available_balance, expiration, pan, cvv } = card;
	return { id, balance, available_balance, expiration, pan, cvv };
}

function invoiceAddress(state: SandboxState, currency: MoonCurrency, invoiceId: string): string {
	if (currency === 'BtcBitcoin') return testnetAddressFor(`${state.seed}:moon:${invoiceId}`);
	if (currency === 'UsdtTron') return tronAddressFor(state.seed, `moon:${invoiceId}`);
	return evmAddressFor(state.seed, `moon:${invoiceId}`);
}

/**
 * moon.rs:190-237 `generate_invoice`: PayWithMoon invoices the amount plus Lendasat's fee, in the
 * chosen currency, until its exchange-rate lock expires. A failure is Error::InvoiceGeneration, 500
 * "Failed to generate invoice" (cards.rs:613-616).
 */
export function createMoonInvoice(
	state: SandboxState,
	request: { borrowerId: string; cardId: string | null; amountUsd: number; currency: MoonCurrency },
): MoonInvoice {
	if (!(request.amountUsd >= MOON_MIN_INVOICE_USD)) {
		throw new ApiError(
			500,
			'INVOICE_FAILED',
			`PayWithMoon refused an invoice of ${request.amountUsd} USD (at least ${MOON_MIN_INVOICE_USD})`,
			{ status: 500, message: 'Failed to generate invoice' },
		);
	}
	const invoiceId = state.ids.uuid();
	const usdAmount = roundMoney(request.amountUsd * (1 + CARD_TOPUP_FEE));
	const invoice: MoonInvoice = {
		invoice_id: invoiceId,
		address: invoiceAddress(state, request.currency, invoiceId),
		usd_amount: usdAmount,
		// [INF] stablecoins at par; bitcoin at the sandbox's fixed price, to the satoshi.
		crypto_amount:
			request.currency === 'BtcBitcoin'
				? Math.round((usdAmount / BTC_PRICE) * 1e8) / 1e8
				: usdAmount,
		currency: request.currency,
		expires_at: new Date(state.now().getTime() + MOON_INVOICE_LIFETIME_MS).toISOString(),
		load_usd: request.amountUsd,
		card_id: request.cardId,
		borrower_id: request.borrowerId,
		paid: false,
	};
	state.moonInvoices.set(invoiceId, invoice);
	return invoice;
}

/** The answer to POST /api/moon/new and /topup (cards.rs:259-266, 358-365). */
export function invoiceReply(invoice: MoonInvoice): Record<string, unknown> {
	const { invoice_id, address, usd_amount, crypto_amount, currency, expires_at } = invoice;
	return { invoice_id, address, usd_amount, crypto_amount, currency, expires_at };
}

function liveError(status: number, message: string, code: string): ApiError {
	return new ApiError(status, code, message, { status, message });
}

/**
 * post_contract_request for a loan that tops up a card (contracts.rs:238-265, errors 2680-2703): the
 * card by id, whoever owns it (db/moon.rs:94-114 has no owner check), 404 "Card not found"; its
 * balance plus the loan at most 5,000; then the caller's IP, checked to be outside the US.
 */
export function checkCardTopUpByLoan(
	state: SandboxState,
	cardId: string,
	loanAmount: number,
): void {
	const card = state.moonCards.get(cardId);
	if (!card) throw liveError(404, 'Card not found', 'CARD_NOT_FOUND');
	if (card.balance + loanAmount > MOON_CARD_MAX_BALANCE) {
		throw liveError(
			400,
			`Invalid Moon card top-up request: current balance (${card.balance}) + loan amount (${loanAmount}) > limit (${MOON_CARD_MAX_BALANCE})`,
			'CARD_LIMIT',
		);
	}
	if (state.clientLocation === 'unknown')
		throw liveError(451, 'Request IP required', 'GEO_BLOCKED');
	if (state.clientLocation === 'US')
		throw liveError(451, 'Cannot top up Moon card from the US', 'GEO_BLOCKED');
}

export interface MoonAdmin {
	/**
	 * PayWithMoon reports an invoice paid (moon.rs handle_paid_invoice): a top-up loads its card, a
	 * new-card invoice makes a card for the borrower. Returns the card.
	 */
	payMoonInvoice(invoiceId: string): MoonCard;
	/** Where the callers' IP address appears to be for Lendasat's US check (default `elsewhere`). */
	setClientLocation(location: ClientLocation): void;
	/** Bringin calls back with the user's key (bringin.rs:149-168): Bringin → Get Status is then true. */
	confirmBringin(ownerKey: string): void;
}

function ownerOf(state: SandboxState, apiKey: string): User {
	const user = userOfKey(state, apiKey);
	if (!user) throw new ApiError(404, 'NOT_FOUND', 'API key <given key> not found');
	return user;
}

function payInvoice(state: SandboxState, invoiceId: string): MoonCard {
	const invoice = state.moonInvoices.get(invoiceId);
	if (!invoice) throw new ApiError(404, 'NOT_FOUND', `Moon invoice ${invoiceId} not found`);
	if (invoice.paid) throw new ApiError(409, 'INVALID_STATE', `Moon invoice ${invoiceId} is paid`);
	invoice.paid = true;
	const existing = invoice.card_id ? state.moonCards.get(invoice.card_id) : undefined;
	if (existing) {
		existing.balance = roundMoney(existing.balance + invoice.load_usd);
		existing.available_balance = roundMoney(existing.available_balance + invoice.load_usd);
		return existing;
	}
	const number = `4${String(state.moonCards.size + 1).padStart(15, '0')}`;
	return addCard(state, {
		id: state.ids.uuid(),
		balance: invoice.load_usd,
		available_balance: invoice.load_usd,
		expiration: moonDatetime(new Date(state.now().getTime() + 3 * 365 * 86_400_000)).slice(2, 7),
		pan: number,
		cvv: String(100 + state.moonCards.size),
		borrower_id: invoice.borrower_id,
	});
}

export function moonAdmin(state: () => SandboxState): MoonAdmin {
	return {
		payMoonInvoice: (invoiceId) => payInvoice(state(), invoiceId),
		setClientLocation: (location) => {
			if (!['elsewhere', 'US', 'unknown'].includes(location))
				throw new ApiError(400, 'INVALID_BODY', 'location must be elsewhere, US or unknown');
			state().clientLocation = location;
		},
		confirmBringin: (ownerKey) => {
			state().bringinKeys.add(ownerOf(state(), ownerKey).id);
		},
	};
}
