/**
 * Arkade collateral, as Lendasat's newer backend serves it. The routes are in the newest schema only
 * (lendasat/iframe HEAD 5983d0d9 packages/api/src/openapi/schema.d.ts:446-600, components ClaimArkTx,
 * SpendArkCollateralTxs, SettleArkCollateralTxs, FinishSettleArkCollateralRequest/Response); hub 0.8.2
 * has no Ark routes, so what the handlers do comes from lendamobile's docs/arkade_loan_flow.md (which
 * cites hub/src/wallet.rs) and Lendasat's two clients. Everything the sandbox checks beyond the shapes
 * is inferred [INF], and its error texts are its own.
 *
 * The collateral is two VTXOs (sent in two payments), locked by the borrower + hub + Ark server
 * tapscript. claim-ark hands out (hex) one checkpoint transaction per VTXO and the Ark transaction
 * spending the checkpoints, each input hub-signed; settle-ark hands out (base64) an intent PSBT
 * (BIP-322 style: a "to spend" input, then the VTXOs) and one forfeit PSBT per VTXO. Nothing is
 * really signed: the hub's and the stand-in signer's signatures are well-formed fakes the sandbox
 * recognises as its own (standInSigner.ts).
 */
import {
	ANCHOR_OUTPUT,
	decodeArkAddress,
	leafScriptOf,
	multisigTapscript,
	p2trScript,
	standInSchnorrSignature,
	tapScriptSigKey,
	tapscriptInputFields,
	txidOf,
	writePsbt,
	xOnlyKeyFor,
	type Psbt,
	type PsbtPair,
	type Transaction,
	type TxOutput,
} from './bitcoin';
import { ApiError, shorten } from './errors';
import { arkServerKeyFor, txidFor, vtxoKeyFor } from './ids';
import {
	adminError,
	adminPost,
	anyContract,
	bodyOf,
	collateralClaimed,
	collateralSpent,
	failure,
	internal,
	outstandingOf,
	recordClaim,
} from './lifecycle';
import { ARKADE } from './loans';
import type { SandboxState } from './state';
import { jsonReply, type Route } from './router';
import { borrowerStandInSignature, standInSignArk } from './standInSigner';
import type { Contract, ContractEntry } from './types';

/** Below this an output is dust and is left out (merged into the borrower's). */
const DUST_SATS = 330;
/** BIP-341's "nothing up my sleeve" key: the VTXO script's internal key has no key path. */
const UNSPENDABLE_KEY = Buffer.from(
	'50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0',
	'hex',
);
const SEQUENCE_FINAL = 0xffffffff;

interface Vtxo {
	txid: string;
	vout: number;
	sats: number;
}

interface ArkClaim {
	arkTxid: string;
	checkpointTxids: string[];
}

interface PendingSettlement {
	intentTxid: string;
	forfeitTxids: string[];
}

/** What the hub handed out, per state (a reset forgets it) and contract. */
const claims = new WeakMap<SandboxState, Map<string, ArkClaim>>();
const settlements = new WeakMap<SandboxState, Map<string, PendingSettlement>>();

function claimsOf(state: SandboxState): Map<string, ArkClaim> {
	let byContract = claims.get(state);
	if (!byContract) claims.set(state, (byContract = new Map()));
	return byContract;
}

/** "Stores pending settlement in memory" (arkade_loan_flow.md): one per contract, the latest. */
function settlementsOf(state: SandboxState): Map<string, PendingSettlement> {
	let byContract = settlements.get(state);
	if (!byContract) settlements.set(state, (byContract = new Map()));
	return byContract;
}

// ---------------------------------------------------------------------------------------------
// Checks the Ark routes share

/** An Ark route on a contract with on-chain collateral [INF text]. */
export function requireArkade(contract: Contract): void {
	if (contract.collateral_asset !== ARKADE) {
		throw failure(
			400,
			'NOT_ARKADE',
			`Contract ${contract.id} has no Arkade collateral (collateral asset ${contract.collateral_asset})`,
		);
	}
}

/** "Checks loan is fully repaid" (arkade_loan_flow.md), in the on-chain claim's words [INF]. */
export function requireRepaid(contract: Contract): void {
	if (outstandingOf(contract) > 0)
		throw failure(400, 'NOT_REPAID', 'Cannot claim collateral until loan has been repaid');
}

function requireCollateral(contract: Contract): void {
	if (contract.contract_address === null || collateralSpent(contract)) {
		throw internal('NO_COLLATERAL', `Contract ${contract.id} has no collateral VTXOs to spend`);
	}
}

// ---------------------------------------------------------------------------------------------
// The collateral's VTXOs and their script

function collateralVtxos(state: SandboxState, contract: Contract): Vtxo[] {
	const first = Math.floor(contract.deposited_sats / 2);
	return [first, contract.deposited_sats - first].map((sats, index) => ({
		txid: txidFor(state.seed, `${contract.id}:vtxo:${index}`),
		vout: 0,
		sats,
	}));
}

/** The escrow VTXOs' taproot key: the one in the contract's Ark address. */
function escrowKey(state: SandboxState, contract: Contract): Buffer {
	const decoded = contract.contract_address ? decodeArkAddress(contract.contract_address) : null;
	return decoded?.vtxoKey ?? vtxoKeyFor(state.seed, `${contract.id}:escrow`);
}

export function borrowerKeyOf(contract: Contract): Buffer {
	return /^0[23][0-9a-f]{64}$/i.test(contract.borrower_pk)
		? Buffer.from(contract.borrower_pk.slice(2), 'hex')
		: xOnlyKeyFor(`${contract.id}:borrower`);
}

function hubKey(state: SandboxState): Buffer {
	return xOnlyKeyFor(`${state.seed}:lendasat-hub-ark`);
}

/** borrower_hub_script: borrower, hub and Ark server must all sign (arkade_loan_flow.md). */
function claimScript(state: SandboxState, contract: Contract): Buffer {
	return multisigTapscript([borrowerKeyOf(contract), hubKey(state), arkServerKeyFor(state.seed)]);
}

function spendingInput(vtxo: { txid: string; vout: number }): Transaction['inputs'][number] {
	return {
		txid: vtxo.txid,
		vout: vtxo.vout,
		scriptSig: Buffer.alloc(0),
		sequence: SEQUENCE_FINAL,
		witness: [],
	};
}

/** The borrower's Ark address gets the collateral minus the origination fee, which goes to the hub. */
function payoutOutputs(state: SandboxState, contract: Contract): TxOutput[] {
	const borrower =
		decodeArkAddress(contract.borrower_btc_address)?.vtxoKey ??
		vtxoKeyFor(state.seed, `${contract.id}:refund`);
	const fee = contract.origination_fee_sats >= DUST_SATS ? contract.origination_fee_sats : 0;
	const outputs = [{ value: BigInt(contract.deposited_sats - fee), script: p2trScript(borrower) }];
	if (fee > 0)
		outputs.push({
			value: BigInt(fee),
			script: p2trScript(xOnlyKeyFor(`${state.seed}:hub-fee`)),
		});
	return outputs;
}

function hexOrBase64(psbt: Buffer, encoding: 'hex' | 'base64'): string {
	return psbt.toString(encoding);
}

function hubSignature(state: SandboxState, txid: string, index: number, script: Buffer): PsbtPair {
	return {
		key: tapScriptSigKey(hubKey(state), script),
		value: standInSchnorrSignature(`hub:${txid}:${index}`),
	};
}

// ---------------------------------------------------------------------------------------------
// claim-ark and broadcast-claim-ark

/**
 * GET claim-ark's answer (SpendArkCollateralTxs): the checkpoint PSBTs (one per VTXO) and the Ark PSBT
 * that spends them, in hex, every input signed by the hub. The same contract gets the same PSBTs.
 */
export function arkClaimPsbts(
	state: SandboxState,
	entry: ContractEntry,
): {
	ark_psbt: string;
	checkpoint_psbts: string[];
	borrower_pk: string;
	derivation_path: string | null;
} {
	const { contract } = entry;
	requireCollateral(contract);
	const script = claimScript(state, contract);
	const checkpoints = collateralVtxos(state, contract).map((vtxo, index) => {
		const key = vtxoKeyFor(state.seed, `${contract.id}:checkpoint:${index}`);
		const tx: Transaction = {
			version: 3,
			inputs: [spendingInput(vtxo)],
			outputs: [{ value: BigInt(vtxo.sats), script: p2trScript(key) }, ANCHOR_OUTPUT],
			lockTime: 0,
		};
		const txid = txidOf(tx);
		const input = [
			...tapscriptInputFields(escrowKey(state, contract), vtxo.sats, script, UNSPENDABLE_KEY),
			hubSignature(state, txid, 0, script),
		];
		return { tx, txid, key, sats: vtxo.sats, psbt: psbtOf(tx, [input]) };
	});
	const arkTx: Transaction = {
		version: 3,
		inputs: checkpoints.map((checkpoint) => spendingInput({ txid: checkpoint.txid, vout: 0 })),
		outputs: [...payoutOutputs(state, contract), ANCHOR_OUTPUT],
		lockTime: 0,
	};
	const arkTxid = txidOf(arkTx);
	const arkInputs = checkpoints.map((checkpoint, index) => [
		...tapscriptInputFields(checkpoint.key, checkpoint.sats, script, UNSPENDABLE_KEY),
		hubSignature(state, arkTxid, index, script),
	]);
	claimsOf(state).set(contract.id, {
		arkTxid,
		checkpointTxids: checkpoints.map((checkpoint) => checkpoint.txid),
	});
	return {
		ark_psbt: hexOrBase64(psbtOf(arkTx, arkInputs), 'hex'),
		checkpoint_psbts: checkpoints.map((checkpoint) => hexOrBase64(checkpoint.psbt, 'hex')),
		borrower_pk: contract.borrower_pk,
		derivation_path: contract.borrower_derivation_path,
	};
}

function psbtOf(tx: Transaction, inputs: PsbtPair[][]): Buffer {
	return writePsbt({ unsignedTx: tx, inputs, outputs: tx.outputs.map(() => []) });
}

/** What the Ark server does with the signed PSBTs, as a 500 when it refuses [INF]. */
function arkServerRefuses(code: string, reason: string): ApiError {
	return internal(code, `The Ark server refused it: ${reason}`);
}

/** Every input of `psbt` must carry the borrower's (stand-in) signature for its leaf. */
function requireBorrowerSignatures(
	contract: Contract,
	psbt: Psbt,
	name: string,
	code: string,
): void {
	const txid = txidOf(psbt.unsignedTx);
	const borrower = borrowerKeyOf(contract);
	psbt.inputs.forEach((input, index) => {
		const script = leafScriptOf(input);
		const expected = script && tapScriptSigKey(borrower, script);
		const signature = expected && input.find((pair) => pair.key.equals(expected))?.value;
		if (!signature || !signature.equals(borrowerStandInSignature(txid, index, borrower))) {
			throw arkServerRefuses(
				code,
				`input ${index + 1} of ${name} carries no signature of the borrower's key ${shorten(borrower.toString('hex'))}`,
			);
		}
	});
}

function sameTxids(given: Psbt[], expected: string[]): boolean {
	const txids = given.map((psbt) => txidOf(psbt.unsignedTx)).sort();
	return (
		txids.length === expected.length && [...expected].sort().every((txid, i) => txid === txids[i])
	);
}

/**
 * broadcast-claim-ark: "submits the offchain transaction … finalizes … marks the contract
 * ClosingByClaim, returns the TXID" (arkade_loan_flow.md). The PSBTs must be the ones handed out for
 * this contract, each input signed by the borrower, the collateral unspent. Returns the Ark txid.
 */
export function broadcastArkClaim(
	state: SandboxState,
	entry: ContractEntry,
	ark: Psbt,
	checkpoints: Psbt[],
): string {
	const { contract } = entry;
	const claim = claimsOf(state).get(contract.id);
	const arkTxid = txidOf(ark.unsignedTx);
	if (!claim || claim.arkTxid !== arkTxid)
		throw arkServerRefuses(
			'CLAIM_FAILED',
			'the Ark PSBT is not one Lendasat prepared for this contract',
		);
	if (!sameTxids(checkpoints, claim.checkpointTxids)) {
		throw arkServerRefuses(
			'CLAIM_FAILED',
			`the ${claim.checkpointTxids.length} checkpoint PSBTs the Ark transaction spends were not all given`,
		);
	}
	requireBorrowerSignatures(contract, ark, 'the Ark PSBT', 'CLAIM_FAILED');
	checkpoints.forEach((checkpoint, index) =>
		requireBorrowerSignatures(contract, checkpoint, `checkpoint PSBT ${index + 1}`, 'CLAIM_FAILED'),
	);
	requireUnclaimed(contract, 'CLAIM_FAILED');
	recordClaim(state, contract, arkTxid);
	return arkTxid;
}

function requireUnclaimed(contract: Contract, code: string): void {
	if (collateralClaimed(contract))
		throw arkServerRefuses(code, 'the collateral VTXOs were already spent');
}

// ---------------------------------------------------------------------------------------------
// settle-ark and finish-settle-ark

/**
 * GET settle-ark's answer (SettleArkCollateralTxs): a new intent each time (the latest is the pending
 * one), in base64 as the schema says, with one forfeit PSBT per VTXO.
 */
export function arkSettlementPsbts(
	state: SandboxState,
	entry: ContractEntry,
): {
	intent_message: string;
	intent_proof: string;
	forfeit_psbts: string[];
	delegate_cosigner_pk: string;
	user_pk: string;
	derivation_path: string | null;
} {
	const { contract } = entry;
	requireCollateral(contract);
	const script = claimScript(state, contract);
	const escrow = escrowKey(state, contract);
	const vtxos = collateralVtxos(state, contract);
	const toSpend = {
		txid: txidFor(state.seed, `${contract.id}:${state.ids.label('intent')}`),
		vout: 0,
	};
	const intent: Transaction = {
		version: 2,
		inputs: [toSpend, ...vtxos].map(spendingInput),
		outputs: payoutOutputs(state, contract),
		lockTime: 0,
	};
	// The "to spend" input of a BIP-322 proof pays nothing, to the first VTXO's script.
	const intentInputs = [{ sats: 0 }, ...vtxos].map((vtxo) =>
		tapscriptInputFields(escrow, vtxo.sats, script, UNSPENDABLE_KEY),
	);
	const serverForfeitKey = xOnlyKeyFor(`${state.seed}:ark-server-forfeit`);
	const forfeits = vtxos.map((vtxo) => {
		const tx: Transaction = {
			version: 3,
			inputs: [spendingInput(vtxo)],
			outputs: [{ value: BigInt(vtxo.sats), script: p2trScript(serverForfeitKey) }, ANCHOR_OUTPUT],
			lockTime: 0,
		};
		return {
			tx,
			psbt: psbtOf(tx, [tapscriptInputFields(escrow, vtxo.sats, script, UNSPENDABLE_KEY)]),
		};
	});
	settlementsOf(state).set(contract.id, {
		intentTxid: txidOf(intent),
		forfeitTxids: forfeits.map((forfeit) => txidOf(forfeit.tx)),
	});
	const now = Math.floor(state.now().getTime() / 1000);
	const delegate = `02${xOnlyKeyFor(`${state.seed}:${contract.id}:delegate`).toString('hex')}`;
	return {
		intent_message: JSON.stringify({
			type: 'register',
			onchain_output_indexes: [],
			valid_at: now,
			expire_at: now + 120,
			cosigners_public_keys: [delegate],
		}),
		intent_proof: hexOrBase64(psbtOf(intent, intentInputs), 'base64'),
		forfeit_psbts: forfeits.map((forfeit) => hexOrBase64(forfeit.psbt, 'base64')),
		delegate_cosigner_pk: delegate,
		user_pk: contract.borrower_pk,
		derivation_path: contract.borrower_derivation_path,
	};
}

/**
 * finish-settle-ark: "retrieves pending settlement from memory … full Ark batch protocol … returns
 * commitment TXID" (arkade_loan_flow.md). No pending settlement is a 400 [INF]; PSBTs other than the
 * pending ones, or unsigned ones, make the batch fail (500) [INF]. Returns the commitment txid.
 */
export function finishArkSettlement(
	state: SandboxState,
	entry: ContractEntry,
	intent: Psbt,
	forfeits: Psbt[],
): string {
	const { contract } = entry;
	const pending = settlementsOf(state).get(contract.id);
	if (!pending) {
		throw failure(
			400,
			'NO_PENDING_SETTLEMENT',
			`No pending settlement for contract ${contract.id}: call settle-ark first`,
		);
	}
	if (txidOf(intent.unsignedTx) !== pending.intentTxid)
		throw arkServerRefuses('SETTLEMENT_FAILED', 'the intent PSBT is not the pending settlement');
	if (!sameTxids(forfeits, pending.forfeitTxids)) {
		throw arkServerRefuses(
			'SETTLEMENT_FAILED',
			`the ${pending.forfeitTxids.length} forfeit PSBTs of the pending settlement were not all given`,
		);
	}
	requireBorrowerSignatures(contract, intent, 'the intent PSBT', 'SETTLEMENT_FAILED');
	forfeits.forEach((forfeit, index) =>
		requireBorrowerSignatures(contract, forfeit, `forfeit PSBT ${index + 1}`, 'SETTLEMENT_FAILED'),
	);
	requireUnclaimed(contract, 'SETTLEMENT_FAILED');
	settlementsOf(state).delete(contract.id);
	const commitmentTxid = txidFor(state.seed, `${contract.id}:commitment:${pending.intentTxid}`);
	contract.requires_ark_settlement = false;
	recordClaim(state, contract, commitmentTxid);
	return commitmentTxid;
}

/** Admin: the contract's VTXOs become recoverable (or not): requires_ark_settlement follows. */
export function setArkVtxosRecoverable(
	state: SandboxState,
	entry: ContractEntry,
	recoverable: boolean,
): Contract {
	requireArkade(entry.contract);
	entry.contract.requires_ark_settlement = recoverable;
	return entry.contract;
}

// ---------------------------------------------------------------------------------------------
// Admin: Arkade VTXOs and the stand-in signer

export interface ArkAdmin {
	/** The contract's Arkade VTXOs become recoverable (or not again): requires_ark_settlement follows. */
	setArkVtxosRecoverable(contractId: string, recoverable?: boolean): Contract;
}

export function arkAdmin(state: () => SandboxState): ArkAdmin {
	return {
		setArkVtxosRecoverable: (contractId, recoverable = true) =>
			setArkVtxosRecoverable(state(), anyContract(state(), contractId), recoverable),
	};
}

/** The Ark fields the stand-in signer signs, and the names the signed ones go on under. */
const SIGNED_AS: Record<string, string> = {
	ark_psbt: 'ark_psbt',
	checkpoint_psbts: 'checkpoint_psbts',
	intent_proof: 'intent_psbt',
	intent_psbt: 'intent_psbt',
	forfeit_psbts: 'forfeit_psbts',
};

/**
 * What the borrower's external signer does with an Ark answer: every PSBT field present (ark_psbt,
 * checkpoint_psbts, intent_proof, forfeit_psbts) comes back signed, intent_proof as intent_psbt, ready
 * for Broadcast Ark Claim or Finish Ark Settlement; other fields (the contract id) are kept.
 */
export function standInSignArkFields(body: Record<string, unknown>): Record<string, unknown> {
	const signed: Record<string, unknown> = {};
	for (const [field, value] of Object.entries(body)) {
		const as = SIGNED_AS[field];
		if (as === undefined) {
			signed[field] = value;
			continue;
		}
		try {
			signed[as] = Array.isArray(value)
				? value.map((item) => standInSignArk(String(item)))
				: standInSignArk(String(value));
		} catch (error) {
			throw adminError(400, `${field} is not a PSBT of this sandbox: ${(error as Error).message}`);
		}
	}
	return signed;
}

/**
 * POST /__admin/contracts/{id}/ark-vtxos-recoverable `{recoverable?: boolean}` and POST
 * /__admin/stand-in-signer/ark (an Ark answer in, its PSBTs signed out; see standInSignArkFields).
 */
export function arkAdminRoutes(admin: ArkAdmin): Route[] {
	return [
		adminPost('/contracts/:id/ark-vtxos-recoverable', (ctx) => {
			const recoverable = bodyOf(ctx.body).recoverable;
			if (recoverable !== undefined && typeof recoverable !== 'boolean')
				throw adminError(400, 'recoverable must be true or false');
			return jsonReply(admin.setArkVtxosRecoverable(ctx.params.id, recoverable ?? true));
		}),
		adminPost('/stand-in-signer/ark', (ctx) => jsonReply(standInSignArkFields(bodyOf(ctx.body)))),
	];
}
