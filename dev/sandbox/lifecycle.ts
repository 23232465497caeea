/**
 * The end of a loan, as hub 0.8.2 runs it (lendasat/iframe 49781f87 hub/src/routes/borrower/contracts.rs;
 * live-api §2.5; line numbers below are of that commit):
 * Bitcoin repayment invoices, the lender's confirmation of installments, the claim and recovery PSBTs,
 * their broadcasts, and the chain watcher that closes a claimed contract. Also the admin helpers tests
 * and demos use to play the lender, the chain and the clock.
 */
import {
	buildPsbt,
	estimateVsize,
	scriptForAddress,
	testnetAddressFor,
	txidOf,
	withDescriptorChecksum,
	type Transaction,
} from './bitcoin';
import { ApiError, SOMETHING_WENT_WRONG, shorten, type LiveError } from './errors';
import { publicKeyFor, txidFor } from './ids';
import { BTC_PRICE, outstandingBalance } from './loans';
import { jsonReply, type Route } from './router';
import { changeStatus, nowIso, pushNotification, type SandboxState } from './state';
import type { BitcoinRepaymentInvoice, Contract, ContractEntry, Installment } from './types';
import { roundMoney } from './validate';
import { standInSign } from './standInSigner';

/** model/bitcoin_repayment.rs: `expires_at = now + 15 minutes`. */
export const INVOICE_LIFETIME_MS = 15 * 60_000;
const SATS_PER_BTC = 100_000_000;
/** Below this an output is dust and is merged into the other one (wallet.rs). */
const DUST_SATS = 330;
/** model/installment.rs compute_outstanding_balance: these still count as owed. */
const OUTSTANDING_INSTALLMENTS = new Set(['pending', 'paid', 'late']);
const FINISHED_INSTALLMENTS = new Set(['confirmed', 'cancelled']);
/** Statuses in which the chain watcher has seen the collateral spent. */
const COLLATERAL_GONE = new Set([
	'Closed',
	'ClosedByRecovery',
	'ClosedByLiquidation',
	'ClosedByDefaulting',
]);

const TITLES: Record<string, string> = {
	UNSUPPORTED_CURRENCY: 'Unsupported currency',
	NO_BTC_REPAYMENT_ADDRESS: 'No Bitcoin repayment address',
	NO_PENDING_INSTALLMENT: 'No pending installment',
	INVOICE_NOT_FOUND: 'Bitcoin repayment invoice not found',
	INVOICE_NOT_PENDING: 'Invoice not pending',
	INVOICE_EXPIRED: 'Invoice expired',
	INVOICE_MISMATCH: 'Invoice of another contract',
	INVALID_STATE: 'Invalid contract state',
	NOT_REPAID: 'Loan not repaid',
	INVALID_TRANSACTION: 'Invalid transaction',
	NO_COLLATERAL: 'No collateral to spend',
	PSBT_FAILED: 'Could not build the PSBT',
	BROADCAST_FAILED: 'Broadcast failed',
};

/** An error of these routes: the spec dialect gets a title of its own, the live one the backend's text. */
export class LifecycleError extends ApiError {
	get title(): string {
		return TITLES[this.code] ?? super.title;
	}
}

/** The backend's `{message}` error, with the same text as the spec dialect's details. */
export function failure(
	status: number,
	code: string,
	message: string,
	live?: Partial<LiveError>,
): LifecycleError {
	return new LifecycleError(status, code, message, live ?? { status, message });
}

/** An internal failure: the live backend hides it behind 500 "Something went wrong". */
export function internal(code: string, details: string): LifecycleError {
	return new LifecycleError(500, code, details, SOMETHING_WENT_WRONG);
}

function installmentAmount(installment: Installment): number {
	return roundMoney(installment.principal + installment.interest);
}

// ---------------------------------------------------------------------------------------------
// Bitcoin repayment invoices

/**
 * post_generate_btc_invoice after the contract was loaded: USD loans only (every asset but Eur), a
 * lender BTC address, the pending installment due first; an unexpired pending invoice of it comes back
 * unchanged. No status check.
 */
export function invoiceFor(
	state: SandboxState,
	entry: ContractEntry,
): { invoice: BitcoinRepaymentInvoice; installment: Installment } {
	const { contract } = entry;
	// contracts.rs:1580-1584: only a Eur loan is refused; LoanAsset::to_currency maps Chf and Mxn to Usd (model.rs:516-532).
	if (contract.loan_asset === 'Eur') {
		throw failure(
			400,
			'UNSUPPORTED_CURRENCY',
			'Bitcoin repayment is not supported for Eur loans. Only USD-based loans are supported',
		);
	}
	const address = contract.btc_loan_repayment_address;
	// contracts.rs:1586-1588, then 1594-1598: the pending installment due first (late ones are not billed).
	if (!address) {
		throw failure(
			400,
			'NO_BTC_REPAYMENT_ADDRESS',
			'This contract does not support Bitcoin repayment. The lender must provide a Bitcoin repayment address',
		);
	}
	const installment = contract.installments
		.filter((candidate) => candidate.status === 'pending')
		.sort((a, b) => a.due_date.localeCompare(b.due_date))[0];
	if (!installment)
		throw failure(400, 'NO_PENDING_INSTALLMENT', 'No pending installments found for this contract');
	const now = nowIso(state);
	const reusable = [...state.btcInvoices.values()]
		.map((stored) => stored.invoice)
		.filter(
			(invoice) =>
				invoice.installment_id === installment.id &&
				invoice.status === 'pending' &&
				invoice.expires_at > now,
		)
		.pop();
	if (reusable) return { invoice: reusable, installment };
	const amountUsd = installmentAmount(installment);
	const invoice: BitcoinRepaymentInvoice = {
		id: state.ids.uuid(),
		installment_id: installment.id,
		amount_sats: Math.round((amountUsd / BTC_PRICE) * SATS_PER_BTC),
		amount_usd: amountUsd,
		address,
		expires_at: new Date(Date.parse(now) + INVOICE_LIFETIME_MS).toISOString(),
		status: 'pending',
		txid: null,
		created_at: now,
		updated_at: now,
	};
	state.btcInvoices.set(invoice.id, { contractId: contract.id, invoice });
	return { invoice, installment };
}

/** The invoices of one installment (to confirm them with it). */
function invoicesOf(state: SandboxState, installmentId: string): BitcoinRepaymentInvoice[] {
	return [...state.btcInvoices.values()]
		.map((stored) => stored.invoice)
		.filter((invoice) => invoice.installment_id === installmentId);
}

// ---------------------------------------------------------------------------------------------
// Claim and recovery

/** The funding outpoint of a contract's collateral (the Funding transaction's first output). */
function collateralOutpoint(
	state: SandboxState,
	contract: Contract,
): { txid: string; vout: number } {
	const funding = contract.transactions.find(
		(transaction) => transaction.transaction_type === 'Funding',
	);
	return { txid: funding?.txid ?? txidFor(state.seed, `${contract.id}:Funding`), vout: 0 };
}

function hubPublicKey(state: SandboxState): string {
	return publicKeyFor(state.seed, 'lendasat-hub');
}

function compressedKey(value: string | null | undefined, fallback: string): string {
	return typeof value === 'string' && /^0[23][0-9a-f]{64}$/i.test(value)
		? value.toLowerCase()
		: fallback;
}

/** The transactions the hub signed for each contract: only those can spend its collateral. */
const signedSpends = new WeakMap<SandboxState, Map<string, Set<string>>>();

function signedSpendsOf(state: SandboxState, contractId: string): Set<string> {
	let byContract = signedSpends.get(state);
	if (!byContract) signedSpends.set(state, (byContract = new Map()));
	let txids = byContract.get(contractId);
	if (!txids) byContract.set(contractId, (txids = new Set()));
	return txids;
}

/** What the claim route checks first: nothing may be owed (pending, paid and late installments are). */
export function outstandingOf(contract: Contract): number {
	return roundMoney(
		contract.installments
			.filter((item) => OUTSTANDING_INSTALLMENTS.has(item.status))
			.reduce((sum, item) => sum + installmentAmount(item), 0),
	);
}

export function collateralSpent(contract: Contract): boolean {
	return COLLATERAL_GONE.has(contract.status) || contract.deposited_sats <= 0;
}

/**
 * wallet.rs spend PSBT: every collateral output to the borrower's address, plus the origination fee
 * to the hub's fee wallet (claim only; recovery pays none); an output below dust is merged into the
 * other; the miner fee is `feeRate` × the estimated size. Hub-signed (a stand-in signature).
 */
export function spendPsbt(
	state: SandboxState,
	entry: ContractEntry,
	feeRate: number,
	withOriginationFee: boolean,
): { psbt: string; collateral_descriptor: string; borrower_pk: string } {
	const { contract } = entry;
	// MissingContractIndex / no contract address / MissingCollateralOutputs: all 500.
	if (contract.contract_address === null)
		throw internal('NO_COLLATERAL', `Contract ${contract.id} has no collateral address`);
	if (collateralSpent(contract))
		throw internal('NO_COLLATERAL', `Contract ${contract.id} has no unspent collateral outputs`);
	const hubPk = hubPublicKey(state);
	const keys = [
		compressedKey(contract.borrower_pk, publicKeyFor(state.seed, `${contract.id}:borrower`)),
		compressedKey(contract.lender_pk, publicKeyFor(state.seed, `${contract.id}:lender`)),
		hubPk,
	];
	const borrowerScript = scriptForAddress(contract.borrower_btc_address);
	const fee = withOriginationFee ? contract.origination_fee_sats : 0;
	const outputs = [{ script: borrowerScript, sats: 0 }];
	if (fee >= DUST_SATS)
		outputs.push({
			script: scriptForAddress(testnetAddressFor(`${state.seed}:hub-fee-wallet`)),
			sats: fee,
		});
	const minerFee =
		feeRate *
		estimateVsize(
			1,
			outputs.map((output) => output.script),
		);
	outputs[0].sats = contract.deposited_sats - minerFee - (outputs.length > 1 ? fee : 0);
	if (!Number.isSafeInteger(outputs[0].sats) || outputs[0].sats < DUST_SATS) {
		throw internal(
			'PSBT_FAILED',
			`A fee rate of ${feeRate} sat/vB leaves nothing of the ${contract.deposited_sats} sats of collateral`,
		);
	}
	const outpoint = collateralOutpoint(state, contract);
	const { psbt, unsignedTx } = buildPsbt({
		collateralTxid: outpoint.txid,
		collateralVout: outpoint.vout,
		collateralSats: contract.deposited_sats,
		publicKeys: keys,
		hubPk,
		outputs,
		label: `${state.seed}:${contract.id}:${feeRate}`,
	});
	signedSpendsOf(state, contract.id).add(txidOf(unsignedTx));
	return {
		psbt,
		collateral_descriptor: withDescriptorChecksum(`wsh(multi(2,${keys.join(',')}))`),
		borrower_pk: contract.borrower_pk,
	};
}

/**
 * What broadcasting does on the chain side: the transaction must spend this contract's collateral
 * with a witness, be one the hub signed (a PSBT of this contract), and the collateral must still be
 * unspent; otherwise the broadcast fails (live: PostClaimTx, 500). Records the spend; returns the txid.
 */
export function broadcastSpend(state: SandboxState, entry: ContractEntry, tx: Transaction): string {
	const { contract } = entry;
	const outpoint = collateralOutpoint(state, contract);
	const txid = txidOf(tx);
	const spending = tx.inputs.find(
		(input) => input.txid === outpoint.txid && input.vout === outpoint.vout,
	);
	const refuse = (reason: string) =>
		internal('BROADCAST_FAILED', `The Bitcoin network refused ${txid}: ${reason}`);
	if (!spending) throw refuse("it does not spend the contract's collateral");
	if (spending.witness.length === 0)
		throw refuse('the collateral input carries no witness (not signed)');
	if (!signedSpendsOf(state, contract.id).has(txid))
		throw refuse('the hub never signed this transaction (not from a PSBT of this contract)');
	if (collateralClaimed(contract)) throw refuse('the collateral was already spent');
	recordClaim(state, contract, txid);
	return txid;
}

/** The collateral was spent, or a claim of it was already broadcast (on-chain or on Ark). */
export function collateralClaimed(contract: Contract): boolean {
	return (
		collateralSpent(contract) ||
		contract.transactions.some((item) => item.transaction_type === 'ClaimCollateral')
	);
}

/** Records a broadcast claim of the collateral, on-chain or on Ark. */
export function recordClaim(state: SandboxState, contract: Contract, txid: string): void {
	contract.transactions.push({
		id: state.ids.uuid(),
		contract_id: contract.id,
		txid,
		timestamp: nowIso(state),
		transaction_type: 'ClaimCollateral',
	});
}

// ---------------------------------------------------------------------------------------------
// Admin: the lender, the chain and the clock

export function adminError(status: number, details: string): ApiError {
	return new ApiError(status, status === 404 ? 'NOT_FOUND' : 'INVALID_BODY', details);
}

export function anyContract(state: SandboxState, id: string): ContractEntry {
	const entry = state.contracts.get(id);
	if (!entry) throw adminError(404, `Contract ${shorten(id)} not found`);
	return entry;
}

/**
 * The lender confirms paid installments (routes/lender/contracts.rs confirm-installment): each becomes
 * confirmed with its Paid invoices; once every installment is confirmed or cancelled, the contract is
 * RepaymentConfirmed. Without ids, every paid installment is confirmed.
 */
export function confirmInstallments(
	state: SandboxState,
	contractId: string,
	installmentIds?: string[],
): Contract {
	const entry = anyContract(state, contractId);
	const { contract } = entry;
	const targets = installmentIds
		? installmentIds.map((id) => {
				const installment = contract.installments.find((candidate) => candidate.id === id);
				if (!installment)
					throw adminError(
						404,
						`Installment ${shorten(id)} is not part of contract ${contract.id}`,
					);
				return installment;
			})
		: contract.installments.filter((installment) => installment.status === 'paid');
	if (targets.length === 0)
		throw adminError(400, `Contract ${contract.id} has no paid installment to confirm`);
	const notPaid = targets.find((installment) => installment.status !== 'paid');
	if (notPaid)
		throw adminError(
			400,
			`Installment ${notPaid.id} is ${notPaid.status}, not paid: only paid installments can be confirmed`,
		);
	const at = nowIso(state);
	for (const installment of targets) {
		installment.status = 'confirmed';
		for (const event of contract.timeline) {
			if (
				event.event.type === 'installment_payment' &&
				event.event.installment_id === installment.id
			)
				event.event.is_confirmed = true;
		}
		for (const invoice of invoicesOf(state, installment.id)) {
			if (invoice.status !== 'paid') continue;
			invoice.status = 'confirmed';
			invoice.updated_at = at;
		}
		pushNotification(state, entry.owner, {
			type: 'InstallmentUpdate',
			data: {
				id: state.ids.uuid(),
				installment_id: installment.id,
				contract_id: contract.id,
				timestamp: at,
				status: 'confirmed',
				read: false,
			},
		});
	}
	contract.updated_at = at;
	contract.balance_outstanding = outstandingBalance(contract);
	if (contract.installments.every((installment) => FINISHED_INSTALLMENTS.has(installment.status))) {
		changeStatus(state, entry, 'RepaymentConfirmed');
	}
	return contract;
}

/** The chain watcher sees the claim confirmed and the collateral at 0: ClosingByClaim → Closed. */
export function confirmClaim(state: SandboxState, contractId: string): Contract {
	const entry = anyContract(state, contractId);
	if (entry.contract.status !== 'ClosingByClaim') {
		throw adminError(
			400,
			`Contract ${contractId} is ${entry.contract.status}, not ClosingByClaim: no claim to confirm`,
		);
	}
	// contract_update_collateral.rs:69-85: all funds withdrawn, the collateral is 0.
	entry.contract.collateral_sats = 0;
	entry.contract.deposited_sats = 0;
	return changeStatus(state, entry, 'Closed');
}

/** Moves the sandbox clock forward (e.g. past an invoice's 15 minutes); reset() puts it back. */
export function advanceClock(state: SandboxState, milliseconds: number): string {
	if (!Number.isFinite(milliseconds) || milliseconds < 0)
		throw adminError(400, 'The clock only moves forward: give a positive number of milliseconds');
	const before = state.now;
	state.now = () => new Date(before().getTime() + milliseconds);
	return nowIso(state);
}

export interface LifecycleAdmin {
	/** The lender confirms paid installments (all paid ones without ids); all done → RepaymentConfirmed. */
	confirmInstallments(contractId: string, installmentIds?: string[]): Contract;
	/** The claim transaction confirms on chain: ClosingByClaim → Closed. */
	confirmClaim(contractId: string): Contract;
	/** Moves the sandbox clock forward; returns the new time. */
	advanceClock(milliseconds: number): string;
}

export function lifecycleAdmin(state: () => SandboxState): LifecycleAdmin {
	return {
		confirmInstallments: (contractId, installmentIds) =>
			confirmInstallments(state(), contractId, installmentIds),
		confirmClaim: (contractId) => confirmClaim(state(), contractId),
		advanceClock: (milliseconds) => advanceClock(state(), milliseconds),
	};
}

/** An admin request's JSON body as an object (anything else as an empty one). */
export function bodyOf(body: unknown): Record<string, unknown> {
	return body !== null && typeof body === 'object' && !Array.isArray(body)
		? (body as Record<string, unknown>)
		: {};
}

/** A POST under /__admin with a JSON body and no key. */
export function adminPost(pattern: string, handle: Route['handle']): Route {
	return { method: 'POST', pattern: `/__admin${pattern}`, auth: 'none', body: 'json', handle };
}

/**
 * POST /__admin/contracts/{id}/confirm-installments, …/confirm-claim, POST /__admin/clock, and
 * POST /__admin/stand-in-signer (`{psbt}` → `{tx}`: what the borrower's external signer does with a
 * claim or recovery PSBT, for demos against the sandbox only; see standInSigner.ts).
 */
export function lifecycleAdminRoutes(admin: LifecycleAdmin): Route[] {
	return [
		adminPost('/contracts/:id/confirm-installments', (ctx) => {
			const ids = bodyOf(ctx.body).installment_ids;
			if (
				ids !== undefined &&
				(!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
			) {
				throw adminError(400, 'installment_ids must be a list of installment ids');
			}
			return jsonReply(admin.confirmInstallments(ctx.params.id, ids as string[] | undefined));
		}),
		adminPost('/contracts/:id/confirm-claim', (ctx) =>
			jsonReply(admin.confirmClaim(ctx.params.id)),
		),
		adminPost('/clock', (ctx) => {
			const body = bodyOf(ctx.body);
			const milliseconds =
				typeof body.advance_ms === 'number'
					? body.advance_ms
					: Number(body.advance_minutes) * 60_000;
			return jsonReply({ now: admin.advanceClock(milliseconds) });
		}),
		adminPost('/stand-in-signer', (ctx) => {
			const psbt = bodyOf(ctx.body).psbt;
			if (typeof psbt !== 'string')
				throw adminError(
					400,
					'psbt must be the hex PSBT that Get Claim PSBT or Get Recovery PSBT returned',
				);
			try {
				return jsonReply({ tx: standInSign(psbt) });
			} catch (error) {
				throw adminError(400, `Not a PSBT of this sandbox: ${(error as Error).message}`);
			}
		}),
	];
}
