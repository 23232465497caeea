/**
 * Shared types of the Lendasat borrower API sandbox: configuration, recorded traffic and the
 * records it serves (shapes follow /work/shared/spec/live-api.md §3, plus the spec fields).
 */

export type Dialect = 'spec' | 'live';

export type FaultKind =
	| '404'
	| '500'
	| '502-html'
	| '503'
	| 'reset'
	| 'slow'
	| 'truncated-json'
	| 'empty-body'
	| 'redirect'
	| 'bad-200'
	| 'trickle'
	| 'hang'
	| 'cut-body'
	| '429'
	| 'echo-key-error';

/** What a 'bad-200' fault answers with status 200 (see faults.ts for the exact bodies). */
export type Bad200Body =
	| 'malformed-json'
	| 'empty'
	| 'html'
	| 'array'
	| 'error-body'
	| 'message-body'
	| 'echo-key';

export type RedirectStatus = 301 | 302 | 307 | 308;

/**
 * How GET /api/contracts and GET /api/notifications lie about paging (null: they do not).
 * - 'ignore-page': the `page` parameter is ignored: every answer is page 1 (`page: 1`, page 1's data).
 * - 'endless': every page is full (`limit` records with new ids each page), `total_pages` 1,000,000.
 * - 'lying-total-pages': the right page, but `total_pages: 1` (`total` stays true).
 * - 'no-ids': the right page, but the records carry no `id` (notifications: no `data.id`).
 */
export type PagingMode =
	| 'ignore-page'
	| 'endless'
	| 'lying-total-pages'
	| 'no-ids'
	| 'small-pages'
	| 'inflated-total';

export interface FaultRule {
	kind: FaultKind;
	/** HTTP method to match (case-insensitive); any method when absent. */
	method?: string;
	/** Path to match: exact, or a prefix ending at a segment boundary ('/api/contracts' matches '/api/contracts/x'). */
	path?: string;
	/** How many matching requests the rule hits before it is used up. Default 1. Ignored with probability. */
	times?: number;
	/** How many matching requests pass untouched before the rule starts to hit (default 0). */
	skip?: number;
	/** Chance (0..1) to hit each matching request, from a seeded PRNG; the rule is never used up. */
	probability?: number;
	/** Process the request normally first, then answer with the fault instead of the real answer. */
	after?: boolean;
	/** Delay for 'slow' (default 5000 ms); for 'trickle' the pause before each body byte (default 1000 ms). */
	delayMs?: number;
	/** 'redirect': the status, 301, 302, 307 (default) or 308. */
	status?: RedirectStatus;
	/**
	 * 'redirect' (required): the Location. An absolute URL without a path (an origin such as
	 * `http://127.0.0.1:4000`) gets the request's path and query appended; anything else is sent verbatim.
	 */
	location?: string;
	/** 'bad-200': the body variant (default 'malformed-json'). */
	body200?: Bad200Body;
	/** 'echo-key-error': the status of the error that echoes the x-api-key, 400–599 (default 400). */
	errorStatus?: number;
	/** '429': the Retry-After header verbatim ('0', '1', an HTTP date…); null leaves it out. Default '1'. */
	retryAfter?: string | null;
	/**
	 * 'trickle' and 'cut-body': a fixed body (served as 200 application/json) instead of the real answer.
	 * Without it the request is processed (whether or not `after` is set) and its real answer is used.
	 */
	body?: string;
}

export interface RateLimitConfig {
	requestsPerSecond: number;
	retryAfter?: 'seconds' | 'http-date' | 'none';
	/**
	 * A storm: until this time (epoch ms, the real clock) every request of every key is answered 429,
	 * with the Retry-After the limiter would give for a full window; from then on the limit applies.
	 */
	stormUntilMs?: number;
}

export interface SandboxConfig {
	dialect: Dialect;
	createStatus: 200 | 201;
	rateLimit: null | RateLimitConfig;
	idempotency: boolean;
	faults: FaultRule[];
	latencyMs: number;
	/** Paging lies of GET /api/contracts and GET /api/notifications (default null: honest paging). */
	paging: PagingMode | null;
}

export interface SeedOptions {
	/** Seed of the deterministic ids, keys and fault PRNG. Default 'lendasat-sandbox'. */
	seed?: string;
	/** Extra generated contracts for the main borrower key (on top of the hand-written ones). Default 0. */
	extraContracts?: number;
}

export interface RecordedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	rawBody: string;
	body: unknown;
	at: number;
}

export interface SandboxStats {
	requests: number;
	byStatus: Record<string, number>;
	/**
	 * API requests by route: the method and the route's pattern, e.g. `"GET /api/contracts"`,
	 * `"POST /api/contracts/:id/extend"` (ids and query left out); a path no route matches is
	 * counted under its method and the path itself. Counted when recorded, faulted ones included.
	 */
	byRoute: Record<string, number>;
	contractsCreated: number;
	/**
	 * Contracts created again for the same request: the same `client_contract_id` (per API key) when the
	 * body carries one; otherwise the same canonical body with the same Idempotency-Key header (or none).
	 */
	duplicateContracts: number;
	rateLimited: number;
	faultsInjected: number;
	/** TCP connections open now (API and /__admin traffic alike). */
	openConnections: number;
	/** Most connections open at the same time since the start or the last reset (a reset starts it at openConnections). */
	peakConnections: number;
	/** TCP connections accepted since the start or the last reset. */
	connections: number;
	/** API requests received and not yet answered (or given up by the client) now. */
	requestsInFlight: number;
	/** Most API requests in flight at the same time since the start or the last reset (a reset starts it at requestsInFlight). */
	peakRequestsInFlight: number;
	/** Most API requests one key sent within any one second (a sliding window) since the start or the last reset. */
	peakRequestsPerKeySecond: number;
}

export interface LenderStats {
	id: string;
	name: string;
	successful_contracts: number;
	timezone: string | null;
	joined_at: string;
	vetted: boolean;
}

export interface OriginationFee {
	fee: number;
	from_day: number;
	to_day: number;
}

export interface LoanOffer {
	id: string;
	name: string;
	lender: LenderStats;
	min_ltv: number;
	interest_rate: number;
	loan_amount_min: number;
	loan_amount_max: number;
	duration_days_min: number;
	duration_days_max: number;
	loan_asset: string;
	loan_payout: string;
	status: string;
	loan_repayment_address: string;
	origination_fee: OriginationFee[];
	kyc_link: string | null;
	lender_pk: string;
	repayment_plan: string;
	collateral_asset: string;
}

/**
 * Offer settings the live backend keeps but does not publish in `LoanOffer` (admin input only).
 * `auto_accept`: contract requests are approved at once unless KYC is required or the asset is fiat.
 */
export interface OfferSettings {
	auto_accept?: boolean;
	/**
	 * The lender's Bitcoin address for repayments in bitcoin (the live `loan_offers.btc_loan_repayment_address`,
	 * copied into each contract as `btc_loan_repayment_address`). null: the lender takes no bitcoin.
	 * Admin-added offers get one unless this is null.
	 */
	btc_loan_repayment_address?: string | null;
}

export interface Installment {
	id: string;
	principal: number;
	interest: number;
	due_date: string;
	status: string;
	paid_date: string | null;
	payment_id: string | null;
}

export interface ContractTransaction {
	id: string;
	contract_id: string;
	txid: string;
	timestamp: string;
	transaction_type: string;
}

export type TimelineEventBody =
	| { type: 'contract_status_change'; status: string }
	| { type: 'installment_payment'; installment_id: string; is_confirmed: boolean };

export interface TimelineEvent {
	date: string;
	txid: string | null;
	event: TimelineEventBody;
}

export interface Contract {
	id: string;
	status: string;
	loan_id: string;
	loan_type: string;
	loan_asset: string;
	client_contract_id: string | null;
	created_at: string;
	updated_at: string;
	expiry: string;
	loan_amount: number;
	balance_outstanding: number;
	interest: number;
	interest_rate: number;
	duration_days: number;
	initial_collateral_sats: number;
	origination_fee_sats: number;
	collateral_sats: number;
	deposited_sats: number;
	initial_ltv: number;
	collateral_asset: string;
	liquidation_price: number;
	liquidation_status: string;
	ltv_threshold_margin_call_1: number;
	ltv_threshold_margin_call_2: number;
	ltv_threshold_liquidation: number;
	contract_address: string | null;
	collateral_script: string | null;
	borrower_btc_address: string;
	borrower_loan_address: string | null;
	loan_repayment_address: string | null;
	btc_loan_repayment_address: string | null;
	borrower_pk: string;
	borrower_derivation_path: string | null;
	lender_pk: string;
	lender_npub: string;
	lender: LenderStats;
	can_extend: boolean;
	extension_max_duration_days: number;
	extension_interest_rate: number | null;
	extension_origination_fee: OriginationFee[];
	extends_contract: string | null;
	extended_by_contract: string | null;
	installments: Installment[];
	transactions: ContractTransaction[];
	timeline: TimelineEvent[];
	kyc_info: { kyc_link: string; is_kyc_done: boolean } | null;
	fiat_loan_details_borrower: FiatLoanDetailsResponse | null;
	fiat_loan_details_lender: FiatLoanDetailsResponse | null;
	/**
	 * Only in the newer generated types (HEAD schema.d.ts:1487-1492): whether Arkade collateral VTXOs must
	 * be settled (settle-ark) rather than spent off-chain (claim-ark); null for on-chain collateral. The
	 * backend also answers null "for non-claimable statuses"; the sandbox shows the VTXOs' state in every
	 * status (false until `admin.setArkVtxosRecoverable`) [INF].
	 */
	requires_ark_settlement: boolean | null;
	/** Spec field, echoed only when the request carried it. */
	collateral_address?: string;
	/** Spec field, echoed only when the request carried it. */
	repayment_address?: string;
}

/**
 * hub 0.8.2 db/contract_disputes.rs ContractDispute (schema.d.ts `ContractDispute`): a dispute about a
 * contract. `status` is DisputeStatus (DisputeStartedBorrower, DisputeStartedLender, InProgress, Closed,
 * Cancelled), `initiator_type` Borrower or Lender. A create stores "<reason>. <comment>" as `reason`.
 */
export interface ContractDispute {
	id: string;
	contract_id: string;
	initiator_type: string;
	initiator_id: string;
	status: string;
	reason: string;
	created_at: string;
	updated_at: string;
	resolved_at: string | null;
	resolution_notes: string | null;
}

/** db/contract_disputes.rs ContractDisputeMessage; `sender_type` is Borrower, Lender or PlatformAdmin. */
export interface ContractDisputeMessage {
	id: string;
	dispute_id: string;
	sender_type: string;
	sender_id: string;
	message: string;
	created_at: string;
}

/** db/contract_disputes.rs DisputeWithMessages: the dispute flattened, with its messages oldest first. */
export interface DisputeWithMessages extends ContractDispute {
	messages: ContractDisputeMessage[];
}

/** `FiatLoanDetailsWrapperResponse` of the live backend: the (encrypted) bank details and one party's key. */
export interface FiatLoanDetailsResponse {
	details: unknown;
	encrypted_encryption_key: string;
}

/** `BitcoinRepaymentInvoiceResponse` of the live backend (routes/borrower/contracts.rs). */
export interface BitcoinRepaymentInvoice {
	id: string;
	installment_id: string;
	amount_sats: number;
	amount_usd: number;
	address: string;
	expires_at: string;
	/** `pending` | `paid` | `confirmed` */
	status: string;
	txid: string | null;
	created_at: string;
	updated_at: string;
}

/** A stored invoice with the contract it belongs to. */
export interface BitcoinInvoiceEntry {
	contractId: string;
	invoice: BitcoinRepaymentInvoice;
}

/** A stored contract with the sandbox's bookkeeping around the public record. */
export interface ContractEntry {
	/** User id of the owner. */
	owner: string;
	/** API key that created it (null for seeded or admin-created contracts). */
	apiKey: string | null;
	/** The request body as received (all fields, including unknown extras), or null. */
	request: Record<string, unknown> | null;
	contract: Contract;
	/**
	 * Live dialect: the request took its loan amount off the offer's `loan_amount_max`, so cancelling
	 * it gives `contract.loan_amount` back (set on creation, cleared when given back).
	 */
	holdsOfferCapacity?: boolean;
}

/**
 * model.rs LoanApplication (hub 0.8.2): a borrower's own terms for lenders to take. The id is
 * `loan_deal_id`; statuses are LoanApplicationStatus (PascalCase): Available, Unavailable, Taken,
 * Deleted, ApplicationExpired, Cancelled.
 */
export interface LoanApplication {
	loan_deal_id: string;
	borrower_id: string;
	ltv: number;
	interest_rate: number;
	loan_amount_min: number;
	loan_amount_max: number;
	duration_days_min: number;
	duration_days_max: number;
	borrower_loan_address: string | null;
	borrower_btc_address: string;
	loan_asset: string;
	loan_type: string;
	borrower_pk: string;
	borrower_derivation_path: string;
	borrower_npub: string;
	status: string;
	client_contract_id: string | null;
	repayment_plan: string;
	created_at: string;
	updated_at: string;
}

export interface User {
	id: string;
	name: string;
	email: string | null;
	verified: boolean;
	timezone: string | null;
	locale: string | null;
	totp_enabled: boolean;
	created_at: string;
	updated_at: string;
	personal_telegram_token: string;
	personal_referral_codes: string[];
	used_referral_code: string | null;
	first_time_discount_rate: number;
}

/** A row of referral_codes_borrowers (hub 0.8.2 db/borrowers_referral_code.rs). */
export interface ReferralCode {
	code: string;
	/** The borrower whose code it is. */
	owner: string;
	active: boolean;
	expires_at: string;
}

export interface ApiKeyRecord {
	id: number;
	key: string;
	kind: 'master' | 'borrower';
	userId: string;
	description: string;
	created_at: string;
}

export interface ApiAccount {
	id: string;
	name: string;
	/** null when the live dialect's request left it out (the spec dialect requires it). */
	email: string | null;
	timezone: string | null;
	api_key: string;
	/** User id of the partner whose master key created the account. */
	createdBy: string;
}

export interface NotificationData {
	id: string;
	timestamp: string;
	read: boolean;
	contract_id?: string;
	[field: string]: unknown;
}

export interface NotificationMessage {
	type: string;
	data: NotificationData;
}

/** hub 0.8.2 BorrowerNotificationSettingsResponse (routes/borrower/notification_settings.rs): request and answer of PUT. */
export interface NotificationSettings {
	on_login_email: boolean;
	on_login_telegram: boolean;
	daily_offer_digest_email: boolean;
	new_loan_offer_telegram: boolean;
	contract_status_changed_email: boolean;
	contract_status_changed_telegram: boolean;
	new_chat_message_email: boolean;
	new_chat_message_telegram: boolean;
}

export interface SandboxKeys {
	master: string;
	borrower: string;
	otherBorrower: string;
}

/** hub 0.8.2 moon.rs:87-91 `Currency`: what a Moon invoice is paid in. */
export type MoonCurrency = 'UsdcPolygon' | 'BtcBitcoin' | 'UsdtTron';

/** A PayWithMoon card as the card list shows it (cards.rs:524-534), and whose it is. */
export interface MoonCard {
	id: string;
	balance: number;
	available_balance: number;
	expiration: string;
	pan: string;
	cvv: string;
	/** Not shown by the API (moon.rs:40). */
	borrower_id: string;
}

/** cards.rs:437-446 `CardTransaction`: `{type, data}`, data as TransactionData or DeclineData. */
export interface CardTransaction {
	type: 'Card' | 'CardAuthorizationRefund' | 'DeclineData';
	data: Record<string, unknown>;
}

/** An invoice to load a card (moon.rs:49-76): for a new card (`card_id` null) or a top-up. */
export interface MoonInvoice {
	invoice_id: string;
	address: string;
	/** What the payer owes in USD, the fee included. */
	usd_amount: number;
	crypto_amount: number;
	currency: MoonCurrency;
	expires_at: string;
	/** The USD that go onto the card once it is paid. */
	load_usd: number;
	card_id: string | null;
	borrower_id: string;
	paid: boolean;
}

/**
 * Where the sandbox's callers appear to come from, as Lendasat's geo check sees their IP
 * (geo_location.rs, contracts.rs:255-265): outside the US, in the US, or without an IP at all.
 */
export type ClientLocation = 'elsewhere' | 'US' | 'unknown';
