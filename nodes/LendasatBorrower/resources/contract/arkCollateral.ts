import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { liveErrorBodyWithout, type AnswerCheck } from '../../transport/answer';
import {
	failureOf,
	toItems,
	type ApiClient,
	type OperationRequest,
	type OperationSender,
	type Prepare,
} from '../../transport/apiRoute';
import type { ErrorGuidance } from '../../transport/errors';
import { withNote } from '../../transport/exchange';
import { describeValue, isRecord, txidAnswerProblem } from '../../validation/checks';
import { invalidParameter } from '../../validation/parameters';
import {
	parsePsbtText,
	RAW_TRANSACTION_NOT_PSBT,
	type ParsedPsbt,
	type PsbtEncoding,
} from '../../validation/psbt';
import { contractIdOf } from './shared';

/*
 * What the four Arkade operations share. Arkade collateral sits in VTXOs off-chain; it comes back in one
 * of two ways, as Lendasat's own apps do it (iframe contracts.$contractId.withdraw.tsx, lendamobile
 * docs/arkade_loan_flow.md): while the contract's requires_ark_settlement is false, Get Ark Claim PSBTs
 * (hex PSBTs, hub-signed) → sign outside n8n → Broadcast Ark Claim; once it is true (the VTXOs became
 * recoverable), Get Ark Settlement (base64 PSBTs) → sign outside n8n → Finish Ark Settlement. The
 * borrower signs with the key behind borrower_pk / user_pk (the Ark identity key); the node never sees
 * or asks for a private key.
 */

/** lendamobile gives Lendasat's Ark routes 2 minutes: they wait on the Ark server (and a settlement on a batch). */
export const ARK_ATTEMPT_TIMEOUT_MS = 120_000;

const forOperation = (operation: string) => ({
	show: { resource: ['contract'], operation: [operation] },
});
const LIST_FORMS =
	'as a JSON array (an expression such as {{ $json.checkpoint_psbts }} gives one) or one PSBT per line';

export const arkCollateralFields: INodeProperties[] = [
	{
		displayName: 'Signed Ark PSBT',
		name: 'arkPsbt',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder: 'e.g. 70736274ff0100…',
		description:
			'The ark_psbt from Get Ark Claim PSBTs, signed outside n8n with the key behind borrower_pk. Hex or base64, as your signer returns it; not finalized or extracted. It is checked to be a PSBT before anything is sent.',
		displayOptions: forOperation('broadcastArkClaim'),
	},
	{
		displayName: 'Signed Checkpoint PSBTs',
		name: 'checkpointPsbts',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder: 'e.g. ["70736274ff0100…"]',
		description: `Every one of the checkpoint_psbts from Get Ark Claim PSBTs, each signed the same way, ${LIST_FORMS}. Hex or base64. The Signed Ark PSBT spends exactly these; the node checks that before sending.`,
		displayOptions: forOperation('broadcastArkClaim'),
	},
	{
		displayName: 'Signed Intent PSBT',
		name: 'intentPsbt',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder: 'e.g. cHNidP8BA…',
		description:
			'The intent_proof from Get Ark Settlement, signed outside n8n with the key behind user_pk. Base64 as Lendasat sends it; hex is accepted and converted to base64. It is checked to be a PSBT before anything is sent.',
		displayOptions: forOperation('finishArkSettlement'),
	},
	{
		displayName: 'Signed Forfeit PSBTs',
		name: 'forfeitPsbts',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder: 'e.g. ["cHNidP8BA…"]',
		description: `Every one of the forfeit_psbts from Get Ark Settlement, each signed the same way, ${LIST_FORMS.replace('checkpoint_psbts', 'forfeit_psbts')}. Enter [] when Get Ark Settlement returned none. Hex is converted to base64.`,
		displayOptions: forOperation('finishArkSettlement'),
	},
];

// ---------------------------------------------------------------------------------------
// Reading the PSBTs a user gives

const PSBT_HINT =
	' Expected a signed PSBT in hex (70736274ff…) or base64 (cHNidP8…), as your signer returns it.';

interface GivenPsbt {
	parsed: ParsedPsbt;
	/** As the user gave it, without white space; hex in lower case. */
	text: string;
	encoding: PsbtEncoding;
	bytes: Uint8Array;
}

/** A PSBT as given, read; `name` says which of a list it is ("PSBT 2 of 3"). */
function psbtProblem(value: unknown, name?: string): { problem: string } | { psbt: GivenPsbt } {
	const which = (shown: string) => (name ? `${name} (${shown})` : shown);
	if (typeof value !== 'string') {
		return { problem: `${name ?? 'It'} must be text, got ${describeValue(value)}.${PSBT_HINT}` };
	}
	const parsed = parsePsbtText(value);
	if ('error' in parsed) {
		const hint =
			parsed.error === RAW_TRANSACTION_NOT_PSBT
				? ' (Lendasat finalizes the Ark PSBTs itself, with the Ark server.)'
				: PSBT_HINT;
		return {
			problem: `${which(describeValue(value.trim()))} is not a PSBT: ${parsed.error}.${hint}`,
		};
	}
	const compact = value.replace(/\s+/g, '');
	return {
		psbt: {
			parsed,
			text: parsed.encoding === 'hex' ? compact.toLowerCase() : compact,
			encoding: parsed.encoding,
			bytes: parsed.bytes,
		},
	};
}

/** One PSBT parameter, checked: the error names the field, the item and what is wrong. */
function readPsbt(context: IExecuteSingleFunctions, label: string, name: string): GivenPsbt {
	const value = context.getNodeParameter(name);
	if (typeof value === 'string' && value.trim() === '') {
		throw invalidParameter(context, label, `Must not be empty.${PSBT_HINT}`);
	}
	const read = psbtProblem(value);
	if ('problem' in read) throw invalidParameter(context, label, read.problem);
	return read.psbt;
}

/**
 * A list of PSBTs as n8n gives it: an array (an expression on an output list), JSON text for one, or
 * text with one PSBT per line (commas also separate). Empty text is refused; an explicit empty list
 * only where `allowEmpty` says the API may want none.
 */
function readPsbtList(
	context: IExecuteSingleFunctions,
	label: string,
	name: string,
	options: { allowEmpty: boolean; whereFrom: string },
): GivenPsbt[] {
	const value = context.getNodeParameter(name);
	const fail = (problem: string) => invalidParameter(context, label, problem);
	let items: unknown[];
	if (Array.isArray(value)) {
		items = value;
	} else if (typeof value === 'string' && value.trim().startsWith('[')) {
		try {
			const parsed: unknown = JSON.parse(value);
			if (!Array.isArray(parsed)) throw new Error('not a list');
			items = parsed;
		} catch {
			throw fail(
				`${describeValue(value.trim())} starts like a JSON array but is not one. Give the PSBTs ${LIST_FORMS}.`,
			);
		}
	} else if (typeof value === 'string') {
		if (value.trim() === '') {
			throw fail(
				`Must not be empty: give ${options.whereFrom}, each signed, ${LIST_FORMS}${options.allowEmpty ? ', or [] when there were none' : ''}.`,
			);
		}
		items = value
			.split(/[\r\n,]+/)
			.map((item) => item.trim())
			.filter((item) => item !== '');
	} else {
		throw fail(`Expected the PSBTs ${LIST_FORMS}, got ${describeValue(value)}.`);
	}
	if (items.length === 0 && !options.allowEmpty) {
		throw fail(
			`The list is empty, but Lendasat needs ${options.whereFrom}, each signed (there is at least one).`,
		);
	}
	return items.map((item, index) => {
		const read = psbtProblem(item, `PSBT ${index + 1} of ${items.length}`);
		if ('problem' in read) throw fail(read.problem);
		return read.psbt;
	});
}

// ---------------------------------------------------------------------------------------
// Prepare steps

/**
 * The body of Broadcast Ark Claim: the signed Ark PSBT and its checkpoint PSBTs, each as given (hex or
 * base64, both of which the route takes, per Lendasat's client). The Ark transaction spends one output
 * of each checkpoint transaction (one checkpoint per VTXO), so the two must belong together.
 */
export const addArkClaim: Prepare = async function (this: IExecuteSingleFunctions, request) {
	const ark = readPsbt(this, 'Signed Ark PSBT', 'arkPsbt');
	const checkpoints = readPsbtList(this, 'Signed Checkpoint PSBTs', 'checkpointPsbts', {
		allowEmpty: false,
		whereFrom: 'every checkpoint PSBT Get Ark Claim PSBTs returned (checkpoint_psbts)',
	});
	const problem = checkpointMismatch(ark.parsed, checkpoints);
	if (problem) throw invalidParameter(this, 'Signed Checkpoint PSBTs', problem);
	request.body = {
		ark_psbt: ark.text,
		checkpoint_psbts: checkpoints.map((checkpoint) => checkpoint.text),
	};
	return request;
};

function checkpointMismatch(ark: ParsedPsbt, checkpoints: GivenPsbt[]): string | undefined {
	const spent = ark.unsignedTx.inputs.map((input) => input.previousTxid);
	const given = checkpoints.map((checkpoint) => checkpoint.parsed.unsignedTx.txid);
	const sameSource =
		' Give the Ark PSBT and all its checkpoint PSBTs from the same Get Ark Claim PSBTs answer, each signed.';
	if (spent.length !== given.length) {
		return `The Signed Ark PSBT spends ${spent.length} checkpoint transaction${spent.length === 1 ? '' : 's'}, but ${given.length} checkpoint PSBT${given.length === 1 ? ' was' : 's were'} given.${sameSource}`;
	}
	const stray = given.findIndex((txid) => !spent.includes(txid));
	if (stray >= 0) {
		return `PSBT ${stray + 1} of ${given.length} is not a checkpoint the Signed Ark PSBT spends.${sameSource}`;
	}
	return undefined;
}

/**
 * The body of Finish Ark Settlement: the signed intent PSBT and forfeit PSBTs in base64, the encoding
 * the route documents (schema FinishSettleArkCollateralRequest) and both of Lendasat's clients convert
 * to; hex is converted here the same way, losslessly.
 */
export const addArkSettlement: Prepare = async function (this: IExecuteSingleFunctions, request) {
	const intent = readPsbt(this, 'Signed Intent PSBT', 'intentPsbt');
	const forfeits = readPsbtList(this, 'Signed Forfeit PSBTs', 'forfeitPsbts', {
		allowEmpty: true,
		whereFrom: 'every forfeit PSBT Get Ark Settlement returned (forfeit_psbts)',
	});
	request.body = {
		intent_psbt: asBase64(intent),
		forfeit_psbts: forfeits.map(asBase64),
	};
	return request;
};

function asBase64(psbt: GivenPsbt): string {
	return psbt.encoding === 'base64' ? psbt.text : Buffer.from(psbt.bytes).toString('base64');
}

// ---------------------------------------------------------------------------------------
// Answers

/** Why a PSBT (or a list of them) in an answer is none, or undefined when it is. */
function answerPsbtProblem(value: unknown, field: string): string | undefined {
	if (value === undefined) return `it holds no ${field}`;
	if (typeof value !== 'string') return `its ${field} ${describeValue(value)} is not a PSBT`;
	const parsed = parsePsbtText(value);
	return 'error' in parsed
		? `its ${field} ${describeValue(value)} is not a PSBT (${parsed.error})`
		: undefined;
}

function answerPsbtListProblem(
	value: unknown,
	field: string,
	allowEmpty: boolean,
): string | undefined {
	if (!Array.isArray(value)) return `its ${field} ${describeValue(value)} is not a list of PSBTs`;
	if (value.length === 0 && !allowEmpty) return `its ${field} is empty`;
	for (const [index, item] of value.entries()) {
		const problem = answerPsbtProblem(item, `${field}[${index}]`);
		if (problem) return problem;
	}
	return undefined;
}

/** Get Ark Claim PSBTs: an Ark PSBT and at least one checkpoint PSBT (one per VTXO). */
export const arkClaimAnswer: AnswerCheck = (body) =>
	liveErrorBodyWithout(body, 'ark_psbt') ??
	(isRecord(body)
		? (answerPsbtProblem(body.ark_psbt, 'ark_psbt') ??
			answerPsbtListProblem(body.checkpoint_psbts, 'checkpoint_psbts', false))
		: undefined);

/** Get Ark Settlement: the intent proof and its forfeit PSBTs (none where every VTXO is recoverable [INF]). */
export const arkSettlementAnswer: AnswerCheck = (body) =>
	liveErrorBodyWithout(body, 'intent_proof') ??
	(isRecord(body)
		? (answerPsbtProblem(body.intent_proof, 'intent_proof') ??
			answerPsbtListProblem(body.forfeit_psbts, 'forfeit_psbts', true) ??
			(typeof body.intent_message === 'string'
				? undefined
				: `its intent_message ${describeValue(body.intent_message)} is not text`))
		: undefined);

/** Finish Ark Settlement: the commitment transaction of the batch that settled the VTXOs. */
export const arkSettledAnswer: AnswerCheck = (body) => {
	if (!isRecord(body)) return undefined;
	const txid = body.commitment_txid;
	if (txid === undefined)
		return liveErrorBodyWithout(body, 'commitment_txid') ?? 'it holds no commitment_txid';
	return txidAnswerProblem(txid, 'commitment_txid');
};

/**
 * Sends a GET for Ark PSBTs and gives the answer with the contract ID first. A 500 gets a note on what
 * else it means for these routes.
 */
export function fetchArkPsbts(check: AnswerCheck, note: string): OperationSender {
	return async function sendArkRequest(
		this: IExecutePaginationFunctions,
		api: ApiClient,
		request: OperationRequest,
	): Promise<INodeExecutionData[]> {
		try {
			const items = toItems(await api.send(request, 'object', { check }));
			return items.map((item) => ({ json: { id: contractIdOf(this), ...item.json } }));
		} catch (error) {
			const failure = failureOf(error);
			throw failure?.kind === 'http' && failure.statusCode === 500 ? withNote(error, note) : error;
		}
	};
}

/**
 * The finish of Broadcast Ark Claim: the contract, the txid of the Ark transaction and the status
 * Lendasat moves the contract to (ClosingByClaim, lendamobile docs/arkade_loan_flow.md). Should the
 * answer lack the txid, it is the Ark PSBT's own (a taproot transaction's txid needs no signature).
 */
export async function confirmArkClaim(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const answered = items[0]?.json.txid;
	const sent = parsePsbtText(String(this.getNodeParameter('arkPsbt')));
	const txid =
		typeof answered === 'string' && answered !== ''
			? answered
			: 'error' in sent
				? undefined
				: sent.unsignedTx.txid;
	return [{ json: { id: contractIdOf(this), txid, status: 'ClosingByClaim', broadcast: true } }];
}

/** The finish of Finish Ark Settlement: the contract and the batch's commitment transaction. */
export async function confirmArkSettlement(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const answer: IDataObject = items[0]?.json ?? {};
	return [
		{ json: { id: contractIdOf(this), commitment_txid: answer.commitment_txid, settled: true } },
	];
}

// ---------------------------------------------------------------------------------------
// Errors. The backend's Ark handlers are not public (hub 0.8.2 has no Ark routes): the texts below
// are matched loosely and marked [INF]; the status each error names is what Lendasat's clients check.

/** claim-ark and settle-ark before the lender confirmed every installment. */
export const arkNotRepaidGuidance: ErrorGuidance = {
	statusCodes: [400],
	codes: ['NOT_REPAID'],
	// [INF] the on-chain claim's text (routes/borrower/contracts.rs), which the Ark routes likely share.
	text: /until (the )?loan has been repaid|not (been |fully )?repaid/i,
	message: 'The collateral cannot be claimed yet: the contract must be RepaymentConfirmed',
	hint: 'claiming needs every installment paid and confirmed by the lender (status RepaymentConfirmed). A repayment that was reported but not yet confirmed (RepaymentProvided) is not enough: wait for the lender. Contract → Get shows the status.',
};

/** An Ark route on a contract whose collateral is on-chain Bitcoin. */
export const notArkadeGuidance: ErrorGuidance = {
	statusCodes: [400],
	codes: ['NOT_ARKADE'],
	text: /not an? (ark|arkade)|arkade btc|collateral asset/i, // [INF]
	message: 'This contract has no Arkade collateral',
	hint: 'its collateral is on-chain Bitcoin (collateral_asset BitcoinBtc): use Get Claim PSBT and Broadcast Claim instead. Contract → Get shows collateral_asset.',
};

export const claimArkGuidance: ErrorGuidance[] = [
	arkNotRepaidGuidance,
	notArkadeGuidance,
	{
		statusCodes: [400],
		codes: ['SETTLEMENT_REQUIRED'],
		text: /recoverable|settle/i, // [INF]
		message: 'The collateral must be settled: use Get Ark Settlement instead',
		hint: "the contract's Arkade VTXOs became recoverable (requires_ark_settlement is true), so they cannot be spent off-chain; Get Ark Settlement and Finish Ark Settlement give the collateral back in the next Ark batch. Contract → Get shows requires_ark_settlement.",
	},
];

export const settleArkGuidance: ErrorGuidance[] = [
	arkNotRepaidGuidance,
	notArkadeGuidance,
	{
		statusCodes: [400],
		codes: ['NOTHING_TO_SETTLE'],
		text: /no recoverable|nothing to settle|not recoverable|does not require/i, // [INF]
		message: 'Nothing to settle: use Get Ark Claim PSBTs instead',
		hint: 'settlement is only for recoverable Arkade VTXOs (requires_ark_settlement true). While it is false, the collateral comes back off-chain: Get Ark Claim PSBTs, sign, Broadcast Ark Claim. Contract → Get shows requires_ark_settlement.',
	},
];
