/**
 * Contract arithmetic and life cycle: building a contract from an offer, its installment schedule,
 * extensions and repayments. Prices are fixed so that every number is deterministic.
 */
import { arkAddressFor, btcAddressFor, evmAddressFor, npubFor, publicKeyFor } from './ids';
import {
	addDays,
	changeStatus,
	nowIso,
	pushNotification,
	storeContract,
	type SandboxState,
} from './state';
import type { Contract, ContractEntry, Installment, LoanOffer } from './types';
import { roundMoney } from './validate';

/** USD (or EUR) per BTC used for every collateral figure. */
export const BTC_PRICE = 100_000;
const SATS_PER_BTC = 100_000_000;
/** lib.rs:49-50 LTV_THRESHOLD_LIQUIDATION and LEGACY_LTV_THRESHOLD_LIQUIDATION. */
const LIQUIDATION_LTV = 0.9;
const LEGACY_LIQUIDATION_LTV = 0.95;
/** model/contract.rs:151-153 has_new_liquidation_threshold: created on or after 2025-03-01. */
const NEW_LIQUIDATION_THRESHOLD_FROM = Date.parse('2025-03-01T00:00:00Z');
/** model/installment.rs:250-265 compute_outstanding_balance: these still count as owed. */
const OUTSTANDING_INSTALLMENTS = new Set(['pending', 'paid', 'late']);
export const FIAT_ASSETS = new Set(['Usd', 'Eur', 'Chf', 'Mxn']);
/** The collateral asset of Arkade offers and contracts (the other is BitcoinBtc). */
export const ARKADE = 'ArkadeBtc';
export const CANCELLABLE_STATUSES = new Set(['Requested', 'pending', 'Approved']);
const SETTLED_INSTALLMENTS = new Set(['paid', 'confirmed', 'cancelled']);

export interface ContractDraft {
	offer: LoanOffer;
	owner: string;
	loanAmount: number;
	durationDays: number;
	status: string;
	createdAt: string;
	id?: string;
	apiKey?: string | null;
	request?: Record<string, unknown> | null;
	loanType?: string;
	clientContractId?: string;
	borrowerBtcAddress?: string;
	/** null: the contract has no borrower loan address (e.g. an Indirect or fiat loan). */
	borrowerLoanAddress?: string | null;
	borrowerPk?: string;
	borrowerDerivationPath?: string;
	collateralAddress?: string;
	repaymentAddress?: string;
	/** The request's `fiat_loan_details` (FiatLoanDetailsWrapper), stored for the borrower. */
	fiatLoanDetails?: { details: unknown; encrypted_encryption_key_borrower: string };
}

/** What the installments still ask for: principal and interest of the pending, paid and late ones. */
export function outstandingBalance(contract: Contract): number {
	return roundMoney(
		contract.installments
			.filter((installment) => OUTSTANDING_INSTALLMENTS.has(installment.status))
			.reduce((sum, installment) => sum + installment.principal + installment.interest, 0),
	);
}

/**
 * The collateral that counts: what was sent to the contract address less the origination fee
 * (model/contract.rs:107-112 actual_collateral). The sandbox stores the sent total as deposited_sats.
 */
export function actualCollateral(contract: Contract): number {
	return Math.max(0, contract.deposited_sats - contract.origination_fee_sats);
}

/**
 * model/contract.rs:117-139 liquidation_price: the balance over the collateral in BTC at the
 * liquidation threshold (utils.rs:25-37), 0.95 for contracts created before 2025-03-01, with
 * initial_collateral_sats less the fee while no collateral counts yet. Not rounded: the backend
 * divides in rust_decimal and sends the result as a float.
 */
export function liquidationPriceOf(contract: Contract): number {
	const actual = actualCollateral(contract);
	const sats =
		actual > 0 ? actual : contract.initial_collateral_sats - contract.origination_fee_sats;
	const threshold =
		Date.parse(contract.created_at) >= NEW_LIQUIDATION_THRESHOLD_FROM
			? LIQUIDATION_LTV
			: LEGACY_LIQUIDATION_LTV;
	return outstandingBalance(contract) / ((sats / SATS_PER_BTC) * threshold);
}

export function interestFor(amount: number, yearlyRate: number, days: number): number {
	return roundMoney((amount * yearlyRate * days) / 365);
}

function sats(amountUsd: number): number {
	return Math.round((amountUsd / BTC_PRICE) * SATS_PER_BTC);
}

/**
 * The live backend takes the first configured origination fee whatever the duration
 * (routes/borrower/contracts.rs post_contract_request: `data.config.origination_fee.first()`; the
 * offers it publishes carry that same list), so the sandbox uses the offer's first entry.
 */
function originationFeeRate(offer: LoanOffer): number {
	return offer.origination_fee[0]?.fee ?? 0;
}

function installmentPeriod(plan: string): number | null {
	if (plan === 'interest_only_weekly') return 7;
	if (plan === 'interest_only_monthly') return 30;
	return null;
}

/** bullet: one installment at term; interest_only_*: interest every 7/30 days, principal with the last. */
export function generateInstallments(
	state: SandboxState,
	plan: string,
	principal: number,
	interest: number,
	days: number,
	start: string,
): Installment[] {
	const period = installmentPeriod(plan);
	const dueDays: number[] = [];
	if (period !== null) for (let day = period; day < days; day += period) dueDays.push(day);
	dueDays.push(days);
	let interestLeft = interest;
	let previousDay = 0;
	return dueDays.map((day, index) => {
		const last = index === dueDays.length - 1;
		const share = last
			? roundMoney(interestLeft)
			: roundMoney((interest * (day - previousDay)) / days);
		interestLeft -= share;
		previousDay = day;
		return {
			id: state.ids.uuid(),
			principal: last ? principal : 0,
			interest: share,
			due_date: addDays(start, day),
			status: 'pending',
			paid_date: null,
			payment_id: null,
		};
	});
}

function defaultLoanType(offer: LoanOffer): string {
	return FIAT_ASSETS.has(offer.loan_asset) ? 'Fiat' : 'StableCoin';
}

function canExtend(offer: LoanOffer): boolean {
	return offer.loan_payout === 'Direct' && !FIAT_ASSETS.has(offer.loan_asset);
}

export function buildContract(state: SandboxState, draft: ContractDraft): Contract {
	const { offer, loanAmount: amount, durationDays: days, createdAt } = draft;
	const id = draft.id ?? state.ids.uuid();
	const interest = interestFor(amount, offer.interest_rate, days);
	// contract_requests.rs calculate_initial_funding_amount: (loan + interest) / LTV in BTC, plus the
	// origination fee: the whole amount the borrower sends to contract_address.
	const collateral = sats((amount + interest) / offer.min_ltv);
	const originationFee = sats(amount * originationFeeRate(offer));
	const extendable = canExtend(offer);
	const contract: Contract = {
		id,
		status: draft.status,
		loan_id: offer.id,
		loan_type: draft.loanType ?? defaultLoanType(offer),
		loan_asset: offer.loan_asset,
		client_contract_id: draft.clientContractId ?? null,
		created_at: createdAt,
		updated_at: createdAt,
		expiry: addDays(createdAt, days),
		loan_amount: amount,
		balance_outstanding: roundMoney(amount + interest),
		interest,
		interest_rate: offer.interest_rate,
		duration_days: days,
		initial_collateral_sats: collateral + originationFee,
		origination_fee_sats: originationFee,
		collateral_sats: 0,
		deposited_sats: 0,
		initial_ltv: offer.min_ltv,
		collateral_asset: offer.collateral_asset,
		// Set below, once the record is complete.
		liquidation_price: 0,
		liquidation_status: 'Healthy',
		ltv_threshold_margin_call_1: 0.8,
		ltv_threshold_margin_call_2: 0.85,
		ltv_threshold_liquidation: LIQUIDATION_LTV,
		contract_address: null,
		collateral_script: null,
		borrower_btc_address:
			draft.borrowerBtcAddress ??
			draft.collateralAddress ??
			(offer.collateral_asset === ARKADE
				? arkAddressFor(state.seed, `${id}:refund`)
				: btcAddressFor(state.seed, `${id}:refund`)),
		borrower_loan_address:
			draft.borrowerLoanAddress !== undefined
				? draft.borrowerLoanAddress
				: (draft.repaymentAddress ?? evmAddressFor(state.seed, `${id}:payout`)),
		loan_repayment_address: offer.loan_repayment_address,
		// post_contract_request copies the offer's btc_loan_repayment_address (null: no Bitcoin repayment).
		btc_loan_repayment_address: state.offerBtcRepaymentAddresses.get(offer.id) ?? null,
		borrower_pk: draft.borrowerPk ?? publicKeyFor(state.seed, `${draft.owner}:borrower`),
		borrower_derivation_path: draft.borrowerDerivationPath ?? "m/84'/1'/0'/0/0",
		lender_pk: offer.lender_pk,
		lender_npub: npubFor(state.seed, offer.lender.id),
		lender: { ...offer.lender },
		can_extend: extendable,
		extension_max_duration_days: extendable ? 180 : 0,
		extension_interest_rate: extendable ? offer.interest_rate : null,
		extension_origination_fee: extendable ? offer.origination_fee.map((fee) => ({ ...fee })) : [],
		extends_contract: null,
		extended_by_contract: null,
		installments: generateInstallments(
			state,
			offer.repayment_plan,
			amount,
			interest,
			days,
			createdAt,
		),
		transactions: [],
		timeline: [
			{
				date: createdAt,
				txid: null,
				event: { type: 'contract_status_change', status: draft.status },
			},
		],
		kyc_info: offer.kyc_link ? { kyc_link: offer.kyc_link, is_kyc_done: false } : null,
		fiat_loan_details_borrower: draft.fiatLoanDetails
			? {
					details: draft.fiatLoanDetails.details,
					encrypted_encryption_key: draft.fiatLoanDetails.encrypted_encryption_key_borrower,
				}
			: null,
		fiat_loan_details_lender: null,
		requires_ark_settlement: offer.collateral_asset === ARKADE ? false : null,
	};
	contract.liquidation_price = liquidationPriceOf(contract);
	if (draft.collateralAddress !== undefined) contract.collateral_address = draft.collateralAddress;
	if (draft.repaymentAddress !== undefined) contract.repayment_address = draft.repaymentAddress;
	return contract;
}

export function createContractEntry(state: SandboxState, draft: ContractDraft): ContractEntry {
	return storeContract(state, {
		owner: draft.owner,
		apiKey: draft.apiKey ?? null,
		request: draft.request ?? null,
		contract: buildContract(state, draft),
	});
}

/** The old contract becomes Extended; a new one in PrincipalGiven carries the longer term. */
export function extendContract(
	state: SandboxState,
	entry: ContractEntry,
	extraDays: number,
): ContractEntry {
	const old = entry.contract;
	const at = nowIso(state);
	const days = old.duration_days + extraDays;
	const rate = old.extension_interest_rate ?? old.interest_rate;
	const remainingPrincipal = old.installments.reduce(
		(sum, installment) =>
			SETTLED_INSTALLMENTS.has(installment.status) ? sum : sum + installment.principal,
		0,
	);
	const interest = interestFor(remainingPrincipal, rate, extraDays);
	const expiry = addDays(old.expiry, extraDays);
	const next: Contract = {
		...structuredClone(old),
		id: state.ids.uuid(),
		status: 'PrincipalGiven',
		created_at: at,
		updated_at: at,
		expiry,
		duration_days: days,
		interest_rate: rate,
		interest,
		balance_outstanding: roundMoney(remainingPrincipal + interest),
		extends_contract: old.id,
		extended_by_contract: null,
		installments: [],
		transactions: [],
		timeline: [
			{ date: at, txid: null, event: { type: 'contract_status_change', status: 'PrincipalGiven' } },
		],
	};
	next.installments = [
		{
			id: state.ids.uuid(),
			principal: remainingPrincipal,
			interest,
			due_date: expiry,
			status: 'pending',
			paid_date: null,
			payment_id: null,
		},
	];
	const created = storeContract(state, {
		owner: entry.owner,
		apiKey: entry.apiKey,
		request: null,
		contract: next,
	});
	old.extended_by_contract = next.id;
	changeStatus(state, entry, 'Extended');
	return created;
}

export function findInstallment(
	contract: Contract,
	installmentId: string,
): Installment | undefined {
	return contract.installments.find((installment) => installment.id === installmentId);
}

/** Marks one installment paid; when every installment is settled the contract becomes RepaymentProvided. */
export function markInstallmentPaid(
	state: SandboxState,
	entry: ContractEntry,
	installment: Installment,
	paymentId: string,
	settle = true,
): void {
	const at = nowIso(state);
	const contract = entry.contract;
	// A paid installment still counts as owed until the lender confirms it (installment.rs:254-256).
	installment.status = 'paid';
	installment.paid_date = at;
	installment.payment_id = paymentId;
	contract.updated_at = at;
	contract.timeline.push({
		date: at,
		txid: paymentId === '' ? null : paymentId,
		event: { type: 'installment_payment', installment_id: installment.id, is_confirmed: false },
	});
	pushNotification(state, entry.owner, {
		type: 'InstallmentUpdate',
		data: {
			id: state.ids.uuid(),
			installment_id: installment.id,
			contract_id: contract.id,
			timestamp: at,
			status: 'paid',
			read: false,
		},
	});
	if (settle) settleIfRepaid(state, entry);
}

/** RepaymentProvided once every installment of the contract is paid, confirmed or cancelled. */
export function settleIfRepaid(state: SandboxState, entry: ContractEntry): void {
	const { installments } = entry.contract;
	if (
		installments.length > 0 &&
		installments.every((item) => SETTLED_INSTALLMENTS.has(item.status))
	) {
		changeStatus(state, entry, 'RepaymentProvided');
	}
}

/** db::transactions::insert_installment_paid_txid: one InstallmentPaid transaction per (txid, contract). */
export function recordInstallmentPaidTransaction(
	state: SandboxState,
	entry: ContractEntry,
	paymentId: string,
): void {
	const { contract } = entry;
	if (contract.transactions.some((transaction) => transaction.txid === paymentId)) return;
	contract.transactions.push({
		id: state.ids.uuid(),
		contract_id: contract.id,
		txid: paymentId,
		timestamp: nowIso(state),
		transaction_type: 'InstallmentPaid',
	});
}
