/**
 * Repaying in bitcoin and getting the collateral back (lendasat/iframe 49781f87
 * hub/src/routes/borrower/contracts.rs): generate-btc-invoice (:1526-1643), btc-invoice-paid
 * (:1654-1788), claim (:1014-1111), recover (:1113-1211), broadcast-claim (:1213-1292),
 * broadcast-recover (:1294-1379). An unknown or foreign contract is a 500 everywhere but
 * broadcast-claim: load_contract_by_contract_id_and_borrower_id uses fetch_one (db/contracts.rs:642).
 * The domain rules live in ../lifecycle.ts; this file reads the requests as each dialect does.
 */
import { parseTransactionHex } from '../bitcoin';
import { ApiError, badRequest, liveQueryRejection, shorten } from '../errors';
import { broadcastSpend, failure, invoiceFor, outstandingOf, spendPsbt } from '../lifecycle';
import { markInstallmentPaid, recordInstallmentPaidTransaction, settleIfRepaid } from '../loans';
import {
	caller,
	emptyReply,
	jsonReply,
	type Reply,
	type RequestContext,
	type Route,
} from '../router';
import { deserializeLive, type FieldSpec } from '../serde';
import { changeStatus, nowIso, ownedContract } from '../state';
import type { ContractEntry } from '../types';
import { isUuid, requireFields, requireObject, requireString } from '../validate';

const TXID = /^[0-9a-fA-F]{64}$/;
const RECOVERABLE = 'CollateralRecoverable';

function callersContract(ctx: RequestContext): ContractEntry {
	return ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
}

// ---------------------------------------------------------------------------------------------
// POST /api/contracts/{id}/generate-btc-invoice (no body, no query)

function generateBtcInvoice(ctx: RequestContext): Reply {
	const { invoice, installment } = invoiceFor(ctx.state, callersContract(ctx));
	return jsonReply({ invoice: { ...invoice }, installment: { ...installment } });
}

// ---------------------------------------------------------------------------------------------
// PUT /api/contracts/{id}/btc-invoice-paid {txid, invoice_id}

/** hex_conservative's texts behind `Txid::from_str`, as serde reports them [INF]. */
function txidProblem(value: string): string | null {
	if (value.length !== 64) return `invalid hex string length ${value.length} (expected 64)`;
	const bad = [...value].find((char) => !/[0-9a-fA-F]/.test(char));
	return bad === undefined ? null : `invalid hex character ${bad}`;
}

const REPORT_FIELDS: FieldSpec[] = [
	{ name: 'txid', type: { kind: 'string', expecting: 'an ASCII hex string', check: txidProblem } },
	{ name: 'invoice_id', type: { kind: 'uuid' } },
];

function reportBody(ctx: RequestContext): { txid: string; invoiceId: string } {
	if (ctx.config.dialect === 'live') {
		const body = deserializeLive(
			ctx.rawBody,
			ctx.body,
			'ReportBitcoinPaymentRequest',
			REPORT_FIELDS,
		);
		return { txid: (body.txid as string).toLowerCase(), invoiceId: body.invoice_id as string };
	}
	const body = requireObject(ctx.body, ['txid', 'invoice_id']);
	requireFields(body, ['txid', 'invoice_id']);
	const txid = requireString(body, 'txid', 'INVALID_FIELD');
	const invoiceId = requireString(body, 'invoice_id', 'INVALID_FIELD');
	if (!TXID.test(txid))
		throw badRequest(
			'INVALID_FIELD',
			`Field txid must be 64 hexadecimal characters, got ${shorten(txid)}`,
		);
	if (!isUuid(invoiceId))
		throw badRequest('INVALID_FIELD', `Field invoice_id must be a UUID, got ${shorten(invoiceId)}`);
	return { txid: txid.toLowerCase(), invoiceId: invoiceId.toLowerCase() };
}

/** The path is `Path<Uuid>` (the contract id): a value that is no UUID is axum's plain-text 400 [INF text]. */
function contractIdInPath(ctx: RequestContext): string {
	const id = ctx.params.id;
	if (isUuid(id)) return id.toLowerCase();
	throw badRequest(
		'INVALID_FIELD',
		`The contract id in the path must be a UUID, got ${shorten(id)}`,
		{
			status: 400,
			message: 'Invalid URL: UUID parsing failed: invalid character',
			plain: true,
		},
	);
}

function reportBtcInvoicePaid(ctx: RequestContext): Reply {
	const contractId = contractIdInPath(ctx);
	const { txid, invoiceId } = reportBody(ctx);
	const { state } = ctx;
	const notFound = () => failure(404, 'INVOICE_NOT_FOUND', 'Bitcoin repayment invoice not found');
	// The invoice is looked up by id alone, whoever it belongs to (contracts.rs:1702-1705); then pending
	// (model/bitcoin_repayment.rs:80-82), unexpired (:1711-1713), PrincipalGiven (:1728-1732), the path's contract (:1734-1736).
	const stored = state.btcInvoices.get(invoiceId);
	if (!stored) throw notFound();
	const { invoice } = stored;
	if (invoice.status !== 'pending') {
		throw failure(
			400,
			'INVOICE_NOT_PENDING',
			'This Bitcoin repayment invoice cannot accept payment in its current state',
		);
	}
	if (nowIso(state) >= invoice.expires_at)
		throw failure(400, 'INVOICE_EXPIRED', 'This Bitcoin repayment invoice has expired');
	const entry = state.contracts.get(stored.contractId);
	const installment = entry?.contract.installments.find(
		(candidate) => candidate.id === invoice.installment_id,
	);
	if (!entry || !installment) throw notFound();
	// The installment's contract is loaded with the caller's id: another borrower's is a database error.
	if (entry.owner !== caller(ctx).user.id) {
		throw new ApiError(404, 'INVOICE_NOT_FOUND', 'Bitcoin repayment invoice not found', {
			status: 500,
			message: 'Something went wrong',
		});
	}
	const status = entry.contract.status;
	if (status !== 'PrincipalGiven') {
		throw failure(
			400,
			'INVALID_STATE',
			`Cannot mark an installment as paid for a contract with status ${status}`,
		);
	}
	if (entry.contract.id !== contractId)
		throw failure(400, 'INVOICE_MISMATCH', "Invoice doesn't match contract ID");
	invoice.status = 'paid';
	invoice.txid = txid;
	invoice.updated_at = nowIso(state);
	markInstallmentPaid(state, entry, installment, txid, false);
	recordInstallmentPaidTransaction(state, entry, txid);
	settleIfRepaid(state, entry);
	return emptyReply();
}

// ---------------------------------------------------------------------------------------------
// GET /api/contracts/{id}/claim?fee_rate= and …/recover?fee_rate=

/** `Query<PsbtQueryParams>` with `fee_rate: u64`: read before the handler runs, plain-text rejections. */
function feeRateOf(ctx: RequestContext): number {
	const raw = ctx.query.fee_rate;
	const reject = (reason: string) =>
		badRequest(
			'INVALID_QUERY',
			`Parameter fee_rate must be a whole number of sat/vB, got ${raw === undefined ? 'nothing' : shorten(raw)}`,
			liveQueryRejection(reason),
		);
	if (raw === undefined || (raw === '' && ctx.config.dialect === 'spec'))
		throw reject('missing field `fee_rate`');
	if (raw === '') throw reject('cannot parse integer from empty string');
	if (!/^\+?\d+$/.test(raw)) throw reject('invalid digit found in string');
	const value = BigInt(raw.replace(/^\+/, ''));
	if (value > 0xffffffffffffffffn) throw reject('number too large to fit in target type');
	// Far beyond any collateral: the PSBT cannot be built (500 below).
	return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

function claimPsbt(ctx: RequestContext): Reply {
	const feeRate = feeRateOf(ctx);
	const entry = callersContract(ctx);
	// No status check: nothing may be owed (contracts.rs:1061-1067; a reported but unconfirmed installment still is).
	if (outstandingOf(entry.contract) > 0)
		throw failure(400, 'NOT_REPAID', 'Cannot claim collateral until loan has been repaid');
	return jsonReply(spendPsbt(ctx.state, entry, feeRate, true));
}

function notRecoverable(status: string): ApiError {
	return failure(
		400,
		'INVALID_STATE',
		`Cannot recover collateral from a contract with status ${status}`,
	);
}

function recoveryPsbt(ctx: RequestContext): Reply {
	const feeRate = feeRateOf(ctx);
	const entry = callersContract(ctx);
	// contracts.rs:1161-1166.
	if (entry.contract.status !== RECOVERABLE) throw notRecoverable(entry.contract.status);
	return jsonReply(spendPsbt(ctx.state, entry, feeRate, false));
}

// ---------------------------------------------------------------------------------------------
// POST /api/contracts/{id}/broadcast-claim and …/broadcast-recover {tx}

function signedTxOf(ctx: RequestContext): string {
	if (ctx.config.dialect === 'live') {
		return deserializeLive(ctx.rawBody, ctx.body, 'ClaimTx', [
			{ name: 'tx', type: { kind: 'string' } },
		]).tx as string;
	}
	const body = requireObject(ctx.body, ['tx']);
	requireFields(body, ['tx']);
	return requireString(body, 'tx', 'INVALID_FIELD');
}

function parsedTransaction(hex: string) {
	const tx = parseTransactionHex(hex);
	// contracts.rs:2716-2719; broadcast-recover reuses the claim's error, so its text says claim too.
	if (!tx) throw failure(400, 'INVALID_TRANSACTION', 'Failed to parse signed claim TX');
	return tx;
}

function broadcastClaim(ctx: RequestContext): Reply {
	const hex = signedTxOf(ctx);
	// check_if_contract_belongs_to_borrower (db/contracts.rs:1743-1761): the one contract route with a clean 404.
	const entry = ctx.state.contracts.get(ctx.params.id);
	if (!entry || entry.owner !== caller(ctx).user.id) {
		throw new ApiError(404, 'CONTRACT_NOT_FOUND', `Contract ${shorten(ctx.params.id)} not found`, {
			status: 404,
			message: 'Contract not found',
		});
	}
	// No status and no balance check: the network decides (broadcastSpend). Then ClosingByClaim (db/contracts.rs:1324-1329).
	const txid = broadcastSpend(ctx.state, entry, parsedTransaction(hex));
	changeStatus(ctx.state, entry, 'ClosingByClaim');
	return jsonReply({ txid });
}

function broadcastRecovery(ctx: RequestContext): Reply {
	const hex = signedTxOf(ctx);
	const entry = callersContract(ctx);
	if (entry.contract.status !== RECOVERABLE) throw notRecoverable(entry.contract.status);
	const txid = broadcastSpend(ctx.state, entry, parsedTransaction(hex));
	// Both updates happen in the request (contracts.rs:1357-1374): a reader sees ClosedByRecovery at once.
	changeStatus(ctx.state, entry, 'ClosingByRecovery');
	changeStatus(ctx.state, entry, 'ClosedByRecovery');
	return jsonReply({ txid });
}

export const lifecycleRoutes: Route[] = [
	{
		method: 'POST',
		pattern: '/api/contracts/:id/generate-btc-invoice',
		auth: 'borrower',
		body: 'none',
		handle: generateBtcInvoice,
	},
	{
		method: 'PUT',
		pattern: '/api/contracts/:id/btc-invoice-paid',
		auth: 'borrower',
		body: 'json',
		handle: reportBtcInvoicePaid,
	},
	{
		method: 'GET',
		pattern: '/api/contracts/:id/claim',
		auth: 'borrower',
		body: 'none',
		handle: claimPsbt,
	},
	{
		method: 'POST',
		pattern: '/api/contracts/:id/broadcast-claim',
		auth: 'borrower',
		body: 'json',
		handle: broadcastClaim,
	},
	{
		method: 'GET',
		pattern: '/api/contracts/:id/recover',
		auth: 'borrower',
		body: 'none',
		handle: recoveryPsbt,
	},
	{
		method: 'POST',
		pattern: '/api/contracts/:id/broadcast-recover',
		auth: 'borrower',
		body: 'json',
		handle: broadcastRecovery,
	},
];
