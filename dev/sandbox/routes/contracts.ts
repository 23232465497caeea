/**
 * Contracts: create (spec §4.2 with the live fields), list, detail, cancel, extend, installment-paid
 * (live-api §2.5).
 */
import { ApiError, badRequest, liveQueryRejection, shorten, SOMETHING_WENT_WRONG } from '../errors';
import { evmAddressFor, uuidFor } from '../ids';
import { stableStringify } from '../idempotency';
import { decodeArkAddress } from '../bitcoin';
import { contractView } from '../collateral';
import {
	ARKADE,
	CANCELLABLE_STATUSES,
	FIAT_ASSETS,
	createContractEntry,
	extendContract,
	findInstallment,
	markInstallmentPaid,
	recordInstallmentPaidTransaction,
	settleIfRepaid,
} from '../loans';
import { lyingPage, paginate, parsePageRequest } from '../pagination';
import { enumParam } from '../query';
import {
	caller,
	emptyReply,
	jsonReply,
	type Reply,
	type RequestContext,
	type Route,
} from '../router';
import {
	collateralAddressProblem,
	derivationPathProblem,
	deserializeLive,
	publicKeyProblem,
	type FieldSpec,
} from '../serde';
import {
	changeStatus,
	findAnyInstallment,
	giveBackOfferCapacity,
	nowIso,
	ownedContract,
	takeOfferCapacity,
} from '../state';
import type { Contract, ContractEntry, LoanOffer } from '../types';
import {
	formatAmount,
	isPositiveInteger,
	isPositiveNumber,
	isUuid,
	optionalString,
	requireFields,
	requireObject,
	roundMoney,
	type JsonObject,
} from '../validate';
import { checkCardTopUpByLoan } from '../moon';
import { offerNotFound } from './offers';

interface ContractRequest {
	offerId: string;
	loanAmount: number;
	durationDays: number;
	collateralAddress?: string;
	repaymentAddress?: string;
}

// ---------------------------------------------------------------------------------------------
// Spec dialect: borrower-api.md §2.3 (loan_id, loan_amount, duration_days required; the optional
// collateral_address and repayment_address). Other fields are accepted: the node sends both dialects'
// fields in one body, so the live ones that fit are stored, the rest ignored.

function validateOfferId(value: unknown): string {
	if (isUuid(value)) return value;
	throw badRequest('INVALID_LOAN_ID', `Field loan_id must be a UUID, got ${shorten(value)}`);
}

function validateAmountType(value: unknown): number {
	if (isPositiveNumber(value)) return roundMoney(value);
	throw badRequest(
		'INVALID_AMOUNT',
		`Field loan_amount must be a positive number, got ${shorten(value)}`,
	);
}

function validateDurationType(value: unknown): number {
	if (isPositiveInteger(value)) return value;
	throw badRequest(
		'INVALID_DURATION',
		`Field duration_days must be a positive integer, got ${shorten(value)}`,
	);
}

function parseSpecRequest(body: JsonObject): ContractRequest {
	requireFields(body, ['loan_id', 'loan_amount', 'duration_days']);
	return {
		offerId: validateOfferId(body.loan_id),
		loanAmount: validateAmountType(body.loan_amount),
		durationDays: validateDurationType(body.duration_days),
		collateralAddress: optionalString(body, 'collateral_address'),
		repaymentAddress: optionalString(body, 'repayment_address'),
	};
}

function availableOffer(ctx: RequestContext, offerId: string): LoanOffer {
	const offer = ctx.state.offers.get(offerId);
	if (offer && offer.status === 'Available') return offer;
	throw offerNotFound(offerId);
}

function amountRangeMessage(amount: number, offer: LoanOffer): string {
	return `Invalid loan amount: $${formatAmount(amount)} not in range $${formatAmount(offer.loan_amount_min)}-$${formatAmount(offer.loan_amount_max)}`;
}

function durationRangeMessage(days: number, offer: LoanOffer): string {
	return `Invalid loan duration: ${days} days not in range ${offer.duration_days_min}-${offer.duration_days_max}`;
}

function checkOfferBounds(offer: LoanOffer, request: ContractRequest): void {
	const { loanAmount, durationDays } = request;
	if (loanAmount < offer.loan_amount_min || loanAmount > offer.loan_amount_max) {
		throw badRequest('INVALID_AMOUNT', amountRangeMessage(loanAmount, offer));
	}
	if (durationDays < offer.duration_days_min || durationDays > offer.duration_days_max) {
		throw badRequest('INVALID_DURATION', durationRangeMessage(durationDays, offer));
	}
}

/** The spec fields that identify "the same contract request" for duplicate counting. */
function canonicalRequest(request: ContractRequest): string {
	return JSON.stringify([
		request.offerId,
		request.loanAmount,
		request.durationDays,
		request.collateralAddress ?? null,
		request.repaymentAddress ?? null,
	]);
}

/** A string field the spec does not define: stored when it is a string, ignored otherwise. */
function extraString(body: JsonObject, field: string): string | undefined {
	const value = body[field];
	return typeof value === 'string' ? value : undefined;
}

function createSpecContract(ctx: RequestContext): Reply {
	const { apiKey, user } = caller(ctx);
	const body = requireObject(ctx.body, ['loan_id', 'loan_amount', 'duration_days']);
	const request = parseSpecRequest(body);
	const offer = availableOffer(ctx, request.offerId);
	checkOfferBounds(offer, request);
	const clientContractId = extraString(body, 'client_contract_id');
	const entry = createContractEntry(ctx.state, {
		offer,
		owner: user.id,
		apiKey,
		request: body,
		loanAmount: request.loanAmount,
		durationDays: request.durationDays,
		status: 'pending',
		createdAt: nowIso(ctx.state),
		loanType: extraString(body, 'loan_type'),
		clientContractId,
		borrowerBtcAddress: extraString(body, 'borrower_btc_address'),
		borrowerLoanAddress: extraString(body, 'borrower_loan_address'),
		borrowerPk: extraString(body, 'borrower_pk'),
		borrowerDerivationPath: extraString(body, 'borrower_derivation_path'),
		collateralAddress: request.collateralAddress,
		repaymentAddress: request.repaymentAddress,
	});
	ctx.hooks.contractCreated(apiKey, {
		clientContractId,
		canonicalRequest: canonicalRequest(request),
		idempotencyKey: ctx.idempotencyKey,
	});
	return jsonReply(contractView(ctx.config.dialect, entry.contract), ctx.config.createStatus);
}

// ---------------------------------------------------------------------------------------------
// Live dialect: hub 0.8.2 routes/borrower/contracts.rs post_contract_request with the body type
// model.rs ContractRequestSchema (deserialised through AppJson = axum Json + `{message}` errors).

/** model.rs `LoanType`, in declaration order (serde lists the variants in this order). */
const LOAN_TYPES = ['PayWithMoon', 'MoonCardInstant', 'StableCoin', 'Fiat', 'Bringin'] as const;

function npubProblem(value: string): string | null {
	// model/npub.rs: nostr::PublicKey::from_bech32, "Invalid npub format: {e}" (the nostr error text is [INF]).
	return /^npub1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}$/.test(value)
		? null
		: 'Invalid npub format: invalid bech32 npub';
}

const FIAT_DETAILS_FIELDS: FieldSpec[] = [
	{ name: 'iban_transfer_details', type: { kind: 'any' }, optional: true },
	{ name: 'swift_transfer_details', type: { kind: 'any' }, optional: true },
	...[
		'bank_name',
		'bank_address',
		'bank_country',
		'purpose_of_remittance',
		'full_name',
		'address',
		'city',
		'post_code',
		'country',
	].map((name): FieldSpec => ({ name, type: { kind: 'string' } })),
	{ name: 'comments', type: { kind: 'string' }, optional: true },
];

export const FIAT_WRAPPER_FIELDS: FieldSpec[] = [
	{
		name: 'details',
		type: { kind: 'struct', name: 'FiatLoanDetails', fields: FIAT_DETAILS_FIELDS },
	},
	{ name: 'encrypted_encryption_key_borrower', type: { kind: 'string' } },
	{ name: 'encrypted_encryption_key_lender', type: { kind: 'string' } },
];

/** model.rs ContractRequestSchema (no deny_unknown_fields: `loan_id` & co. are ignored). */
const CONTRACT_REQUEST_FIELDS: FieldSpec[] = [
	{ name: 'id', type: { kind: 'string' } },
	{ name: 'loan_amount', type: { kind: 'decimal' } },
	{ name: 'duration_days', type: { kind: 'i32' } },
	{
		name: 'borrower_btc_address',
		type: { kind: 'string', expecting: 'a Bitcoin address', check: collateralAddressProblem },
	},
	{
		name: 'borrower_pk',
		type: { kind: 'string', expecting: 'an ASCII hex string', check: publicKeyProblem },
	},
	{
		name: 'borrower_derivation_path',
		type: { kind: 'string', expecting: 'a BIP-32 derivation path', check: derivationPathProblem },
	},
	{ name: 'borrower_loan_address', type: { kind: 'string' }, optional: true },
	{ name: 'loan_type', type: { kind: 'enum', variants: LOAN_TYPES } },
	{ name: 'moon_card_id', type: { kind: 'uuid' }, optional: true },
	{
		name: 'fiat_loan_details',
		type: { kind: 'struct', name: 'FiatLoanDetailsWrapper', fields: FIAT_WRAPPER_FIELDS },
		optional: true,
	},
	{ name: 'borrower_npub', type: { kind: 'string', check: npubProblem }, optional: true },
	{ name: 'client_contract_id', type: { kind: 'uuid' }, optional: true },
];

interface LiveContractRequest {
	id: string;
	loan_amount: number;
	duration_days: number;
	borrower_btc_address: string;
	borrower_pk: string;
	borrower_derivation_path: string;
	borrower_loan_address?: string;
	loan_type: (typeof LOAN_TYPES)[number];
	moon_card_id?: string;
	fiat_loan_details?: {
		details: { iban_transfer_details?: unknown; swift_transfer_details?: unknown };
		encrypted_encryption_key_borrower: string;
	};
	client_contract_id?: string;
}

function liveError(status: number, message: string, code = 'INVALID_BODY'): ApiError {
	return new ApiError(status, code, message, { status, message });
}

/**
 * The loan-type checks of post_contract_request, in its order. Returns the borrower loan address the
 * contract gets. A loan that tops up a Moon card passes moon.ts `checkCardTopUpByLoan` (card, limit,
 * the caller's country); sandbox users have no Bringin API key here, so Bringin is 400 "Cannot use
 * Bringin without a Bringin API key"; a Moon invoice gets a made-up Polygon address (the real one comes
 * from Moon's API).
 */
function checkLoanType(
	ctx: RequestContext,
	offer: LoanOffer,
	request: LiveContractRequest,
	contractId: string,
): string | undefined {
	switch (request.loan_type) {
		case 'StableCoin':
			if (offer.loan_payout === 'Direct') {
				if (request.borrower_loan_address === undefined) {
					throw liveError(400, 'Failed to provide borrower loan address for stablecoin loan');
				}
				return request.borrower_loan_address;
			}
			if (offer.loan_payout === 'Indirect') return undefined;
			throw liveError(
				400,
				`Stable loan type has invalid loan payout, but got ${offer.loan_payout}`,
			);
		case 'PayWithMoon':
		case 'MoonCardInstant':
			if (offer.loan_asset !== 'UsdcPol') {
				throw liveError(
					400,
					`Cannot create loan request for Moon card with asset ${offer.loan_asset}. Moon only supports USDC on Polygon`,
				);
			}
			if (request.loan_type === 'PayWithMoon' && offer.loan_payout !== 'Direct') {
				throw liveError(
					400,
					`PayWithMoon loan type requires Direct loan payout, but got ${offer.loan_payout}`,
				);
			}
			if (request.loan_type === 'MoonCardInstant' && offer.loan_payout !== 'MoonCardInstant') {
				throw liveError(
					400,
					`MoonCardInstant loan type requires MoonCardInstant loan payout, but got ${offer.loan_payout}`,
				);
			}
			if (request.moon_card_id !== undefined)
				checkCardTopUpByLoan(ctx.state, request.moon_card_id, request.loan_amount);
			return evmAddressFor(ctx.state.seed, `${contractId}:moon-invoice`);
		case 'Fiat':
			if (!FIAT_ASSETS.has(offer.loan_asset))
				throw liveError(400, `Cannot create fiat contract with asset: ${offer.loan_asset}`);
			if (request.fiat_loan_details === undefined)
				throw liveError(400, 'Failed to provide bank details for fiat loan');
			return undefined;
		default:
			throw liveError(400, 'Cannot use Bringin without a Bringin API key');
	}
}

/**
 * Lendasat's apps send an Ark address for an ArkadeBtc offer and an on-chain one otherwise (iframe
 * useWallet.ts useCollateralAddress); whether and where the newer backend refuses the other kind is not
 * public: the sandbox refuses it right after loading the offer, with texts of its own [INF].
 */
function checkCollateralAddressKind(offer: LoanOffer, address: string): void {
	const ark = decodeArkAddress(address) !== null;
	if (offer.collateral_asset === ARKADE && !ark) {
		throw liveError(
			400,
			'Arkade collateral requires an Ark address as borrower_btc_address',
			'INVALID_COLLATERAL_ADDRESS',
		);
	}
	if (offer.collateral_asset !== ARKADE && ark) {
		throw liveError(
			400,
			'Bitcoin collateral requires an on-chain Bitcoin address as borrower_btc_address',
			'INVALID_COLLATERAL_ADDRESS',
		);
	}
}

function createLiveContract(ctx: RequestContext): Reply {
	const { apiKey, user } = caller(ctx);
	const request = deserializeLive(
		ctx.rawBody,
		ctx.body,
		'ContractRequestSchema',
		CONTRACT_REQUEST_FIELDS,
	) as unknown as LiveContractRequest;
	const { state } = ctx;
	// db::loan_offers::loan_by_id looks the offer up whatever its status; a missing one is
	// Error::MissingLoanOffer, which the handler maps to 500 "Something went wrong".
	const offer = state.offers.get(request.id);
	if (!offer)
		throw new ApiError(
			404,
			'OFFER_NOT_FOUND',
			`Loan offer ${shorten(request.id)} not found`,
			SOMETHING_WENT_WRONG,
		);
	checkCollateralAddressKind(offer, request.borrower_btc_address);
	const days = request.duration_days;
	if (days < offer.duration_days_min || days > offer.duration_days_max) {
		throw liveError(400, durationRangeMessage(days, offer), 'INVALID_DURATION');
	}
	if (days === 0) throw liveError(400, 'Loan duration cannot be zero', 'INVALID_DURATION');
	const amount = roundMoney(request.loan_amount);
	if (amount < offer.loan_amount_min || amount > offer.loan_amount_max) {
		throw liveError(400, amountRangeMessage(amount, offer), 'INVALID_AMOUNT');
	}
	const contractId = state.ids.uuid();
	const loanAddress = checkLoanType(ctx, offer, request, contractId);
	const entry = createContractEntry(state, {
		id: contractId,
		offer,
		owner: user.id,
		apiKey,
		request: ctx.body as JsonObject,
		loanAmount: amount,
		durationDays: days,
		status: 'Requested',
		createdAt: nowIso(state),
		loanType: request.loan_type,
		clientContractId: request.client_contract_id,
		borrowerBtcAddress: request.borrower_btc_address,
		borrowerLoanAddress: loanAddress ?? null,
		borrowerPk: request.borrower_pk,
		borrowerDerivationPath: request.borrower_derivation_path,
		fiatLoanDetails: request.fiat_loan_details,
	});
	ctx.hooks.contractCreated(apiKey, {
		clientContractId: request.client_contract_id,
		canonicalRequest: stableStringify({ ...request, client_contract_id: undefined }),
		idempotencyKey: ctx.idempotencyKey,
	});
	// The bank details are checked only after the contract and its installments were inserted: the
	// request fails, but the contract stays (Requested).
	const details = request.loan_type === 'Fiat' ? request.fiat_loan_details?.details : undefined;
	if (details && details.iban_transfer_details == null && details.swift_transfer_details == null) {
		throw liveError(400, 'Failed to provide bank details for fiat loan');
	}
	// "We cannot auto-accept contracts if KYC is required or the loan asset is fiat."
	if (
		state.autoAcceptOffers.has(offer.id) &&
		offer.kyc_link === null &&
		!FIAT_ASSETS.has(offer.loan_asset)
	) {
		changeStatus(state, entry, 'Approved');
	}
	// "Update the loan offer's max amount after contract creation" (not reached by the fiat 400 above).
	takeOfferCapacity(state, entry);
	return jsonReply(contractView(ctx.config.dialect, entry.contract), ctx.config.createStatus);
}

function createContract(ctx: RequestContext): Reply {
	return ctx.config.dialect === 'live' ? createLiveContract(ctx) : createSpecContract(ctx);
}

const SORT_KEYS: Record<string, (contract: Contract) => string | number> = {
	created_at: (contract) => contract.created_at,
	loan_amount: (contract) => contract.loan_amount,
	expiry_date: (contract) => contract.expiry,
	interest_rate: (contract) => contract.interest_rate,
	status: (contract) => contract.status,
	collateral_sats: (contract) => contract.collateral_sats,
	updated_at: (contract) => contract.updated_at,
};

/**
 * routes/borrower/contracts.rs `ContractStatus::from_str` (used by the `status` filter through
 * serde_qs's comma_separated helper): these spellings only, case-insensitive.
 */
const STATUS_SPELLINGS: Record<string, string> = {
	requested: 'Requested',
	approved: 'Approved',
	collateralseen: 'CollateralSeen',
	collateral_seen: 'CollateralSeen',
	collateralconfirmed: 'CollateralConfirmed',
	collateral_confirmed: 'CollateralConfirmed',
	principalgiven: 'PrincipalGiven',
	principal_given: 'PrincipalGiven',
	repaymentprovided: 'RepaymentProvided',
	repayment_provided: 'RepaymentProvided',
	repaymentconfirmed: 'RepaymentConfirmed',
	repayment_confirmed: 'RepaymentConfirmed',
	undercollateralized: 'Undercollateralized',
	defaulted: 'Defaulted',
	closing: 'ClosingByClaim',
	closingbyclaim: 'ClosingByClaim',
	closed: 'Closed',
	closingbyliquidation: 'ClosingByLiquidation',
	closedbyliquidation: 'ClosedByLiquidation',
	closed_by_liquidation: 'ClosedByLiquidation',
	closingbydefaulting: 'ClosingByDefaulting',
	closedbydefaulting: 'ClosedByDefaulting',
	closed_by_defaulting: 'ClosedByDefaulting',
	extended: 'Extended',
	rejected: 'Rejected',
	disputeborrowerstarted: 'DisputeBorrowerStarted',
	dispute_borrower_started: 'DisputeBorrowerStarted',
	disputelenderstarted: 'DisputeLenderStarted',
	dispute_lender_started: 'DisputeLenderStarted',
	cancelled: 'Cancelled',
	requestexpired: 'RequestExpired',
	request_expired: 'RequestExpired',
	approvalexpired: 'ApprovalExpired',
	approval_expired: 'ApprovalExpired',
	collateralrecoverable: 'CollateralRecoverable',
	collateral_recoverable: 'CollateralRecoverable',
	closingbyrecovery: 'ClosingByRecovery',
	closedbyrecovery: 'ClosedByRecovery',
	closed_by_recovery: 'ClosedByRecovery',
};

/** ContractStatus values compared case- and underscore-insensitively (PrincipalGiven = principal_given). */
function normaliseStatus(status: string): string {
	return status.replace(/[_\-\s]/g, '').toLowerCase();
}

function statusFilter(ctx: RequestContext): ((entry: ContractEntry) => boolean) | null {
	const raw = ctx.query.status ?? '';
	if (ctx.config.dialect === 'spec') {
		const wanted = new Set(raw.split(',').map(normaliseStatus).filter(Boolean));
		if (wanted.size === 0) return null;
		return (entry) => wanted.has(normaliseStatus(entry.contract.status));
	}
	// Whether an empty `status=` is no filter or an error was not checked; treated as no filter [INF].
	if (raw === '') return null;
	const wanted = new Set(
		raw.split(',').map((item) => {
			const status = STATUS_SPELLINGS[item.toLowerCase()];
			if (status) return status;
			throw badRequest(
				'INVALID_QUERY',
				`Unknown contract status ${shorten(item)}`,
				liveQueryRejection(`Invalid contract status: ${item}`),
			);
		}),
	);
	return (entry) => wanted.has(entry.contract.status);
}

function compareBy(key: (contract: Contract) => string | number, descending: boolean) {
	const direction = descending ? -1 : 1;
	return (a: ContractEntry, b: ContractEntry): number => {
		const left = key(a.contract);
		const right = key(b.contract);
		if (left !== right) return (left < right ? -1 : 1) * direction;
		return (a.contract.id < b.contract.id ? -1 : a.contract.id > b.contract.id ? 1 : 0) * direction;
	};
}

function listContracts(ctx: RequestContext): Reply {
	const { user } = caller(ctx);
	const dialect = ctx.config.dialect;
	// The live ContractsQuery is deserialised as a whole (page, limit, status, sort_by, sort_order)
	// before validate() checks the ranges.
	const sortBy = enumParam(dialect, ctx.query, 'sort_by', Object.keys(SORT_KEYS), 'created_at');
	const sortOrder = enumParam(dialect, ctx.query, 'sort_order', ['asc', 'desc'], 'desc');
	const filter = statusFilter(ctx);
	const pageRequest = parsePageRequest(ctx.query, { defaultLimit: 10, maxLimit: 100 }, dialect);
	const owned = ctx.state.contractsByOwner.get(user.id) ?? [];
	const selected = filter ? owned.filter(filter) : owned.slice();
	selected.sort(compareBy(SORT_KEYS[sortBy], sortOrder === 'desc'));
	const contracts = selected.map((entry) => contractView(dialect, entry.contract));
	const templates =
		contracts.length > 0
			? contracts
			: [...ctx.state.contracts.values()].map((entry) => contractView(dialect, entry.contract));
	const page = lyingPage(
		ctx.config.paging,
		pageRequest,
		(request) => paginate(contracts, request),
		{
			invent: (pageNumber, index) => ({
				...templates[
					((pageNumber - 1) * pageRequest.limit + index) % Math.max(1, templates.length)
				],
				id: uuidFor(ctx.state.seed, `endless-contract:${user.id}:${pageNumber}:${index}`),
			}),
			withoutId: (contract) => {
				const copy: Partial<Contract> = { ...contract };
				delete copy.id;
				return copy as Contract;
			},
		},
	);
	return jsonReply(page);
}

function getContract(ctx: RequestContext): Reply {
	return jsonReply(
		contractView(
			ctx.config.dialect,
			ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id).contract,
		),
	);
}

function cancelContract(ctx: RequestContext): Reply {
	const entry = ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
	const status = entry.contract.status;
	if (!CANCELLABLE_STATUSES.has(status)) {
		throw badRequest('INVALID_STATE', `Cannot cancel a contract request with status ${status}`);
	}
	changeStatus(ctx.state, entry, 'Cancelled');
	// cancel_contract_request: "Restore the loan offer's max amount after contract cancellation".
	giveBackOfferCapacity(ctx.state, entry);
	return emptyReply();
}

function extensionDays(ctx: RequestContext): number {
	if (ctx.config.dialect === 'live') {
		const fields: FieldSpec[] = [{ name: 'new_duration', type: { kind: 'i32' } }];
		return deserializeLive(ctx.rawBody, ctx.body, 'ExtendContractRequestSchema', fields)
			.new_duration as number;
	}
	const body = requireObject(ctx.body, ['new_duration']);
	requireFields(body, ['new_duration']);
	const value = body.new_duration;
	if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
	throw badRequest(
		'INVALID_DURATION',
		`Field new_duration must be an integer number of days, got ${shorten(value)}`,
	);
}

function checkExtension(contract: Contract, days: number): void {
	if (contract.status !== 'PrincipalGiven') {
		throw badRequest('INVALID_STATE', `Cannot extend a contract with status ${contract.status}`, {
			message: 'The contract cannnot be extended',
		});
	}
	if (!contract.can_extend) {
		throw badRequest('EXTENSION_NOT_ALLOWED', 'The contract cannnot be extended');
	}
	if (days <= 0) throw badRequest('INVALID_DURATION', 'Loan extension duration cannot be zero');
	if (days > contract.extension_max_duration_days) {
		throw badRequest(
			'INVALID_DURATION',
			`Cannot extend contract by ${days} days. Maximum extension is ${contract.extension_max_duration_days} days`,
			{
				message: `The contract cannot be extended for that long. Maximum extension is ${contract.extension_max_duration_days} days`,
			},
		);
	}
}

/**
 * sqlx's RowNotFound text: post_extend_contract_request loads the contract with `load_contract` (any
 * owner) and maps a failure to Error::MissingContract(format!("{e:#}")) = 400 "Missing contract: …".
 */
const ROW_NOT_FOUND = 'no rows returned by a query that expected to return at least one row';

function extend(ctx: RequestContext): Reply {
	const { user } = caller(ctx);
	const days = extensionDays(ctx);
	if (ctx.config.dialect === 'live' && !ctx.state.contracts.has(ctx.params.id)) {
		throw new ApiError(404, 'CONTRACT_NOT_FOUND', `Contract ${shorten(ctx.params.id)} not found`, {
			status: 400,
			message: `Missing contract: ${ROW_NOT_FOUND}`,
		});
	}
	// A foreign contract passes that first lookup; request_contract_extension then loads it by
	// borrower and fails with a database error: 500 "Something went wrong" (ownedContract's live side).
	const entry = ownedContract(ctx.state, user.id, ctx.params.id);
	checkExtension(entry.contract, days);
	return jsonReply(
		contractView(ctx.config.dialect, extendContract(ctx.state, entry, days).contract),
	);
}

interface InstallmentPaid {
	installmentId: string;
	paymentId: string;
	/** What the borrower says was paid; undefined when left out (spec) or null (live). */
	amount?: number;
}

/**
 * model.rs InstallmentPaidRequest. 0.8.2 has `installment_id` and `payment_id` only; `amount` is newer
 * and the backend with it was not available. Both Lendasat clients send it since December 2025
 * (lendasat/iframe 5983d0d9 "provide repayment amount on repayment" sends a number; lendamobile
 * rust/src/api/models.rs InstallmentPaidRequest sends `amount: None` as null, "server requires field
 * to be present, can be null"), so the live dialect requires the field and allows null, as an
 * `Option<Decimal>` read with rust_decimal's `float_option` would [INF]. What the backend does with the
 * amount is unknown; the sandbox only reads it. `payment_id` is a plain `String` (model.rs:1106-1111,
 * "For fiat loans, there is no predefined format so this may be left empty"): required, and empty is
 * taken for any loan, since put_installment_paid (routes/borrower/contracts.rs:901-925) checks the
 * contract's status only and stores the ID as it came, also as the InstallmentPaid transaction's txid.
 */
const INSTALLMENT_PAID_FIELDS: FieldSpec[] = [
	{ name: 'installment_id', type: { kind: 'uuid' } },
	{ name: 'payment_id', type: { kind: 'string' } },
	{ name: 'amount', type: { kind: 'decimal' }, nullable: true },
];

function installmentPaidBody(ctx: RequestContext): InstallmentPaid {
	if (ctx.config.dialect === 'live') {
		const body = deserializeLive(
			ctx.rawBody,
			ctx.body,
			'InstallmentPaidRequest',
			INSTALLMENT_PAID_FIELDS,
		);
		return {
			installmentId: body.installment_id as string,
			paymentId: body.payment_id as string,
			amount: body.amount as number | undefined,
		};
	}
	// The specification has no installment-paid endpoint; the sandbox takes the live names, the
	// amount optional, and an empty payment_id as the live backend does.
	const body = requireObject(ctx.body, ['installment_id', 'payment_id']);
	requireFields(body, ['installment_id', 'payment_id']);
	const amount = body.amount;
	if (amount !== undefined && amount !== null && !isPositiveNumber(amount)) {
		throw badRequest(
			'INVALID_FIELD',
			`Field amount must be a positive number, got ${shorten(amount)}`,
		);
	}
	return {
		installmentId: optionalString(body, 'installment_id') ?? '',
		paymentId: optionalString(body, 'payment_id') ?? '',
		amount: typeof amount === 'number' ? amount : undefined,
	};
}

function installmentPaid(ctx: RequestContext): Reply {
	const { installmentId, paymentId } = installmentPaidBody(ctx);
	const entry = ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
	const status = entry.contract.status;
	if (status !== 'PrincipalGiven') {
		throw badRequest(
			'INVALID_STATE',
			`Cannot mark an installment as paid for a contract with status ${status}`,
		);
	}
	if (ctx.config.dialect === 'live') {
		// put_installment_paid: `UPDATE installments … WHERE id = $installment_id` (no contract check, so an
		// unknown id changes nothing and another contract's installment is marked paid), records the
		// payment as an InstallmentPaid transaction of this contract, then checks this contract's
		// installments. Always 200.
		const found = findAnyInstallment(ctx.state, installmentId);
		if (found) markInstallmentPaid(ctx.state, found.entry, found.installment, paymentId, false);
		recordInstallmentPaidTransaction(ctx.state, entry, paymentId);
		settleIfRepaid(ctx.state, entry);
		return emptyReply();
	}
	const installment = findInstallment(entry.contract, installmentId);
	if (!installment) {
		throw new ApiError(
			400,
			'INSTALLMENT_NOT_FOUND',
			`Installment ${shorten(installmentId)} not found in contract ${entry.contract.id}`,
		);
	}
	markInstallmentPaid(ctx.state, entry, installment, paymentId);
	return emptyReply();
}

export const contractRoutes: Route[] = [
	{
		method: 'POST',
		pattern: '/api/contracts',
		auth: 'borrower',
		body: 'json',
		idempotent: true,
		handle: createContract,
	},
	{
		method: 'GET',
		pattern: '/api/contracts',
		auth: 'borrower',
		body: 'none',
		handle: listContracts,
	},
	{
		method: 'GET',
		pattern: '/api/contracts/:id',
		auth: 'borrower',
		body: 'none',
		handle: getContract,
	},
	{
		method: 'DELETE',
		pattern: '/api/contracts/:id',
		auth: 'borrower',
		body: 'none',
		handle: cancelContract,
	},
	{
		method: 'POST',
		pattern: '/api/contracts/:id/extend',
		auth: 'borrower',
		body: 'json',
		handle: extend,
	},
	{
		method: 'PUT',
		pattern: '/api/contracts/:id/installment-paid',
		auth: 'borrower',
		body: 'json',
		handle: installmentPaid,
	},
];
