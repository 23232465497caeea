/**
 * Getting Arkade collateral back (schema.d.ts HEAD 5983d0d9 :446-600; handlers not public, see
 * ../ark.ts): GET claim-ark, POST broadcast-claim-ark {ark_psbt, checkpoint_psbts}, GET settle-ark,
 * POST finish-settle-ark {intent_psbt, forfeit_psbts}. As on the other contract routes, an unknown or
 * foreign contract is 500 "Something went wrong" in the live dialect (404 in the spec dialect), and the
 * body is read (serde 422s) before the contract is looked up.
 */
import {
	arkClaimPsbts,
	arkSettlementPsbts,
	broadcastArkClaim,
	finishArkSettlement,
	requireArkade,
	requireRepaid,
} from '../ark';
import { psbtFromText, type Psbt } from '../bitcoin';
import { badRequest, shorten } from '../errors';
import { failure } from '../lifecycle';
import { caller, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import { deserializeLive, type FieldSpec } from '../serde';
import { changeStatus, ownedContract } from '../state';
import type { ContractEntry } from '../types';
import { requireFields, requireObject } from '../validate';

function callersContract(ctx: RequestContext): ContractEntry {
	return ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
}

/** A body of one PSBT and a list of PSBTs (ClaimArkTx, FinishSettleArkCollateralRequest), as text. */
function psbtBody(
	ctx: RequestContext,
	structName: string,
	single: string,
	list: string,
): { single: string; list: string[] } {
	if (ctx.config.dialect === 'live') {
		const fields: FieldSpec[] = [
			{ name: single, type: { kind: 'string' } },
			{ name: list, type: { kind: 'strings' } },
		];
		const body = deserializeLive(ctx.rawBody, ctx.body, structName, fields);
		return { single: body[single] as string, list: body[list] as string[] };
	}
	const body = requireObject(ctx.body, [single, list]);
	requireFields(body, [single, list]);
	const one = body[single];
	const many = body[list];
	if (typeof one !== 'string')
		throw badRequest('INVALID_FIELD', `Field ${single} must be a string, got ${shorten(one)}`);
	if (!Array.isArray(many) || !many.every((item) => typeof item === 'string'))
		throw badRequest('INVALID_FIELD', `Field ${list} must be a list of strings`);
	return { single: one, list: many as string[] };
}

/** A PSBT of the body; `base64Only` for the settlement, whose PSBTs the schema says are base64 [INF]. */
function parsedPsbt(text: string, name: string, base64Only: boolean): Psbt {
	const read = psbtFromText(text);
	if (!read) throw failure(400, 'INVALID_PSBT', `Failed to parse ${name}: not a PSBT`);
	if (base64Only && read.encoding !== 'base64')
		throw failure(400, 'INVALID_PSBT', `Failed to parse ${name}: not base64`);
	return read.psbt;
}

// ---------------------------------------------------------------------------------------------
// GET claim-ark, POST broadcast-claim-ark

function claimArk(ctx: RequestContext): Reply {
	const entry = callersContract(ctx);
	const { contract } = entry;
	requireArkade(contract);
	requireRepaid(contract);
	// "Fails if any VTXO is recoverable (must use settlement instead)" (arkade_loan_flow.md) [INF text].
	if (contract.requires_ark_settlement === true) {
		throw failure(
			400,
			'SETTLEMENT_REQUIRED',
			'The collateral VTXOs are recoverable and must be settled: use settle-ark',
		);
	}
	return jsonReply(arkClaimPsbts(ctx.state, entry));
}

function broadcastClaimArk(ctx: RequestContext): Reply {
	const body = psbtBody(ctx, 'ClaimArkTx', 'ark_psbt', 'checkpoint_psbts');
	const entry = callersContract(ctx);
	requireArkade(entry.contract);
	const ark = parsedPsbt(body.single, 'Ark PSBT', false);
	const checkpoints = body.list.map((text, index) =>
		parsedPsbt(text, `checkpoint PSBT ${index + 1}`, false),
	);
	const txid = broadcastArkClaim(ctx.state, entry, ark, checkpoints);
	// "Marks contract as ClosingByClaim" (arkade_loan_flow.md); the chain watcher closes it later.
	changeStatus(ctx.state, entry, 'ClosingByClaim');
	return jsonReply({ txid });
}

// ---------------------------------------------------------------------------------------------
// GET settle-ark, POST finish-settle-ark

function settleArk(ctx: RequestContext): Reply {
	const entry = callersContract(ctx);
	requireArkade(entry.contract);
	requireRepaid(entry.contract);
	if (entry.contract.requires_ark_settlement !== true) {
		throw failure(
			400,
			'NOTHING_TO_SETTLE',
			'No recoverable collateral VTXOs to settle: use claim-ark',
		);
	}
	return jsonReply(arkSettlementPsbts(ctx.state, entry));
}

function finishSettleArk(ctx: RequestContext): Reply {
	const body = psbtBody(ctx, 'FinishSettleArkCollateralRequest', 'intent_psbt', 'forfeit_psbts');
	const entry = callersContract(ctx);
	requireArkade(entry.contract);
	const intent = parsedPsbt(body.single, 'intent PSBT', true);
	const forfeits = body.list.map((text, index) =>
		parsedPsbt(text, `forfeit PSBT ${index + 1}`, true),
	);
	const commitmentTxid = finishArkSettlement(ctx.state, entry, intent, forfeits);
	// What the contract becomes after a settlement is not public: ClosingByClaim as after a claim [INF].
	changeStatus(ctx.state, entry, 'ClosingByClaim');
	return jsonReply({ commitment_txid: commitmentTxid });
}

export const arkRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/contracts/:id/claim-ark',
		auth: 'borrower',
		body: 'none',
		handle: claimArk,
	},
	{
		method: 'POST',
		pattern: '/api/contracts/:id/broadcast-claim-ark',
		auth: 'borrower',
		body: 'json',
		handle: broadcastClaimArk,
	},
	{
		method: 'GET',
		pattern: '/api/contracts/:id/settle-ark',
		auth: 'borrower',
		body: 'none',
		handle: settleArk,
	},
	{
		method: 'POST',
		pattern: '/api/contracts/:id/finish-settle-ark',
		auth: 'borrower',
		body: 'json',
		handle: finishSettleArk,
	},
];
