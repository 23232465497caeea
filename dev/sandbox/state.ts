/**
 * The sandbox's in-memory store and the mutations every part of it shares (keys, contract status
 * changes with their notifications). Everything here is synchronous, so request handling is race-free.
 */
import { contractNotFound } from './errors';
import { IdGenerator, arkAddressFor, escrowAddressFor } from './ids';
import type {
	ApiAccount,
	ApiKeyRecord,
	BitcoinInvoiceEntry,
	CardTransaction,
	ClientLocation,
	Contract,
	ContractEntry,
	DisputeWithMessages,
	Installment,
	LenderStats,
	LoanApplication,
	LoanOffer,
	MoonCard,
	MoonInvoice,
	NotificationMessage,
	NotificationSettings,
	ReferralCode,
	User,
} from './types';
import { roundMoney } from './validate';

export interface SandboxState {
	seed: string;
	now: () => Date;
	ids: IdGenerator;
	users: Map<string, User>;
	/** API key value → key record (master and borrower keys). */
	keys: Map<string, ApiKeyRecord>;
	/** Accounts created through POST /api/create-api-account, in order. */
	accounts: ApiAccount[];
	lenders: Map<string, LenderStats>;
	/** All offers in insertion order, withdrawn ones included (status Unavailable). */
	offers: Map<string, LoanOffer>;
	/** Ids of the offers whose contract requests the lender approves at once (`auto_accept`). */
	autoAcceptOffers: Set<string>;
	/** Offer id → the lender's Bitcoin repayment address (not published with the offer; copied into contracts). */
	offerBtcRepaymentAddresses: Map<string, string>;
	/** Bitcoin repayment invoices by id, in creation order. */
	btcInvoices: Map<string, BitcoinInvoiceEntry>;
	contracts: Map<string, ContractEntry>;
	/** User id → that user's contracts in creation order. */
	contractsByOwner: Map<string, ContractEntry[]>;
	/** User id → that user's notifications in insertion order. */
	notifications: Map<string, NotificationMessage[]>;
	/** User id → the notification settings stored by a PUT (no entry: never set, all on). */
	notificationSettings: Map<string, NotificationSettings>;
	nextKeyId: number;
	/** Loan applications of every user by loan_deal_id, in insertion order (Deleted ones stay). */
	loanApplications: Map<string, LoanApplication>;
	/** Ids of jailed users: the live backend answers 400 "Invalid request" to some of their requests. */
	jailedUsers: Set<string>;
	/** PayWithMoon cards of every user by id, in insertion order. */
	moonCards: Map<string, MoonCard>;
	/** Card id → its transactions, oldest first. */
	moonTransactions: Map<string, CardTransaction[]>;
	/** Invoices for new cards and top-ups by invoice id, in creation order. */
	moonInvoices: Map<string, MoonInvoice>;
	/** Users whose Bringin account is connected (Bringin called back with their key). */
	bringinKeys: Set<string>;
	/** E-mail addresses (lower case) that have a Bringin account. */
	bringinAccounts: Set<string>;
	/** User id → the e-mail address of the user's last Bringin connect request. */
	bringinRequests: Map<string, string>;
	/** Where the callers' IP address appears to be, for Lendasat's US check on loading a Moon card. */
	clientLocation: ClientLocation;
	/** Disputes of every contract by id, in creation order, each with its messages. */
	disputes: Map<string, DisputeWithMessages>;
	/** Borrowers' referral codes (referral_codes_borrowers), by code: what create-api-account/byok accepts. */
	referralCodes: Map<string, ReferralCode>;
	/**
	 * The price of one bitcoin in US dollars that the price routes end at now (collateral.ts
	 * setBtcPrice); undefined: loans.ts BTC_PRICE; null: no price at all.
	 */
	btcPriceUsd?: number | null;
}

export function createEmptyState(seed: string, now: () => Date): SandboxState {
	return {
		seed,
		now,
		ids: new IdGenerator(seed),
		users: new Map(),
		keys: new Map(),
		accounts: [],
		lenders: new Map(),
		offers: new Map(),
		autoAcceptOffers: new Set(),
		offerBtcRepaymentAddresses: new Map(),
		btcInvoices: new Map(),
		contracts: new Map(),
		contractsByOwner: new Map(),
		notifications: new Map(),
		notificationSettings: new Map(),
		nextKeyId: 1,
		loanApplications: new Map(),
		jailedUsers: new Set(),
		moonCards: new Map(),
		moonTransactions: new Map(),
		moonInvoices: new Map(),
		bringinKeys: new Set(),
		bringinAccounts: new Set(),
		bringinRequests: new Map(),
		clientLocation: 'elsewhere',
		disputes: new Map(),
		referralCodes: new Map(),
	};
}

export function nowIso(state: SandboxState): string {
	return state.now().toISOString();
}

export function addDays(iso: string, days: number): string {
	return new Date(Date.parse(iso) + days * 86_400_000).toISOString();
}

export function issueKey(
	state: SandboxState,
	userId: string,
	kind: ApiKeyRecord['kind'],
	description: string,
	key: string = state.ids.borrowerKey(),
): ApiKeyRecord {
	const record: ApiKeyRecord = {
		id: state.nextKeyId,
		key,
		kind,
		userId,
		description,
		created_at: nowIso(state),
	};
	state.nextKeyId += 1;
	state.keys.set(key, record);
	return record;
}

export function keysOfUser(state: SandboxState, userId: string): ApiKeyRecord[] {
	return [...state.keys.values()].filter(
		(record) => record.userId === userId && record.kind === 'borrower',
	);
}

export function userOfKey(state: SandboxState, apiKey: string): User | undefined {
	const record = state.keys.get(apiKey);
	return record ? state.users.get(record.userId) : undefined;
}

export function storeContract(state: SandboxState, entry: ContractEntry): ContractEntry {
	state.contracts.set(entry.contract.id, entry);
	const owned = state.contractsByOwner.get(entry.owner);
	if (owned) owned.push(entry);
	else state.contractsByOwner.set(entry.owner, [entry]);
	return entry;
}

/** The caller's contract, or the "not found" error (404 spec / 500 live) for unknown and foreign ids. */
export function ownedContract(state: SandboxState, userId: string, id: string): ContractEntry {
	const entry = state.contracts.get(id);
	if (!entry || entry.owner !== userId) throw contractNotFound(id);
	return entry;
}

/** An installment of any contract (the live backend marks installments paid by id alone). */
export function findAnyInstallment(
	state: SandboxState,
	installmentId: string,
): { entry: ContractEntry; installment: Installment } | null {
	for (const entry of state.contracts.values()) {
		const installment = entry.contract.installments.find(
			(candidate) => candidate.id === installmentId,
		);
		if (installment) return { entry, installment };
	}
	return null;
}

export function pushNotification(
	state: SandboxState,
	userId: string,
	message: NotificationMessage,
): NotificationMessage {
	const list = state.notifications.get(userId);
	if (list) list.push(message);
	else state.notifications.set(userId, [message]);
	return message;
}

function notifyContractUpdate(state: SandboxState, entry: ContractEntry, timestamp: string): void {
	pushNotification(state, entry.owner, {
		type: 'ContractUpdate',
		data: {
			id: state.ids.uuid(),
			contract_id: entry.contract.id,
			timestamp,
			status: entry.contract.status,
			read: false,
		},
	});
}

const FUNDED_STATUSES = new Set([
	'CollateralConfirmed',
	'PrincipalGiven',
	'RepaymentProvided',
	'RepaymentConfirmed',
	'Undercollateralized',
	'Defaulted',
	'Extended',
	// Reached only from funded states: an admin jump there still has collateral to claim or recover.
	'CollateralRecoverable',
	'ClosingByClaim',
	'ClosingByRecovery',
]);

/** Side effects that make a record consistent with a status reached out of band (admin, seed). */
export function applyStatusEffects(state: SandboxState, contract: Contract, status: string): void {
	const needsAddress =
		status !== 'Requested' &&
		status !== 'pending' &&
		status !== 'Cancelled' &&
		status !== 'Rejected';
	if (needsAddress && contract.contract_address === null) {
		// Arkade collateral is sent off-chain, to the escrow VTXO's Ark address.
		contract.contract_address =
			contract.collateral_asset === 'ArkadeBtc'
				? arkAddressFor(state.seed, `${contract.id}:escrow`)
				: escrowAddressFor(state.seed, contract.id);
	}
	// initial_collateral_sats already includes the origination fee (contract_requests.rs
	// calculate_initial_funding_amount); collateral_sats is what is deposited minus the fee.
	if (
		(FUNDED_STATUSES.has(status) || status === 'CollateralSeen') &&
		contract.deposited_sats === 0
	) {
		contract.deposited_sats = contract.initial_collateral_sats;
		contract.collateral_sats = contract.initial_collateral_sats - contract.origination_fee_sats;
	}
}

/** Records a status in the timeline without notifying (seeding). */
export function recordStatus(
	state: SandboxState,
	contract: Contract,
	status: string,
	at: string,
): void {
	applyStatusEffects(state, contract, status);
	logStatus(contract, status, at);
}

/** The status itself, updated_at and the timeline entry: nothing else about the contract changes. */
export function logStatus(contract: Contract, status: string, at: string): void {
	contract.status = status;
	contract.updated_at = at;
	contract.timeline.push({
		date: at,
		txid: null,
		event: { type: 'contract_status_change', status },
	});
}

/** A status change at run time: updated_at, timeline and a ContractUpdate notification for the owner. */
export function changeStatus(state: SandboxState, entry: ContractEntry, status: string): Contract {
	const at = nowIso(state);
	recordStatus(state, entry.contract, status, at);
	notifyContractUpdate(state, entry, at);
	return entry.contract;
}

export function changeLiquidationStatus(
	state: SandboxState,
	entry: ContractEntry,
	liquidationStatus: string,
): Contract {
	const at = nowIso(state);
	entry.contract.liquidation_status = liquidationStatus;
	entry.contract.updated_at = at;
	notifyContractUpdate(state, entry, at);
	return entry.contract;
}

/** Money arithmetic on cents, left unrounded where cents no longer fit a double exactly. */
function moneySum(value: number): number {
	return Math.abs(value) < 1e13 ? roundMoney(value) : value;
}

/**
 * hub 0.8.2 db/loan_offers.rs decrease_loan_amount_max, run by post_contract_request after the contract
 * (and an auto-approval) is stored: `loan_amount_max = GREATEST(0, max - amount)`, and the status becomes
 * Unavailable when that new max is below `loan_amount_min` (otherwise it stays as it was).
 */
export function takeOfferCapacity(state: SandboxState, entry: ContractEntry): void {
	const offer = state.offers.get(entry.contract.loan_id);
	if (!offer) return;
	const remaining = Math.max(0, moneySum(offer.loan_amount_max - entry.contract.loan_amount));
	if (remaining < offer.loan_amount_min) offer.status = 'Unavailable';
	offer.loan_amount_max = remaining;
	entry.holdsOfferCapacity = true;
}

/**
 * db/loan_offers.rs increase_loan_amount_max, run when a request is cancelled by the borrower (and by the
 * lender's reject and the expiry jobs): `loan_amount_max + contract.loan_amount`, and an Unavailable
 * offer becomes Available again — whatever its max and even if the lender had withdrawn it. Only a
 * contract that took capacity (a live-dialect request) gives it back, once.
 */
export function giveBackOfferCapacity(state: SandboxState, entry: ContractEntry): void {
	if (!entry.holdsOfferCapacity) return;
	entry.holdsOfferCapacity = false;
	const offer = state.offers.get(entry.contract.loan_id);
	if (!offer) return;
	offer.loan_amount_max = moneySum(offer.loan_amount_max + entry.contract.loan_amount);
	if (offer.status === 'Unavailable') offer.status = 'Available';
}
