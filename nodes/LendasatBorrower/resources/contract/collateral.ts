import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { failureOf, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { liveErrorBodyWithout } from '../../transport/answer';
import type { ErrorGuidance } from '../../transport/errors';
import { withNote } from '../../transport/exchange';
import { parseBitcoinTransactionHex } from '../../validation/bitcoin';
import {
	checkFeeRate,
	checkSignedTransaction,
	compactHex,
	describeValue,
	isRecord,
	toNumber,
	txidAnswerProblem,
} from '../../validation/checks';
import { requireText, requireValid } from '../../validation/parameters';
import { psbtEncodingOf } from '../../validation/psbt';
import { contractIdOf } from './shared';

/*
 * What Get Claim PSBT / Broadcast Claim and Get Recovery PSBT / Broadcast Recovery share. Getting the
 * collateral back is always two steps with a signer outside n8n between them: the node fetches a PSBT
 * Lendasat has already signed, the borrower's own wallet or signer adds the signature of the key
 * behind borrower_pk and finalizes it, and the node broadcasts the finished transaction. The node
 * never sees or asks for a private key.
 */

const PSBT_OPERATIONS = ['getClaimPsbt', 'getRecoveryPsbt'];
const BROADCAST_OPERATIONS = ['broadcastClaim', 'broadcastRecovery'];

export const collateralFields: INodeProperties[] = [
	{
		displayName: 'Fee Rate (Sat/vB)',
		name: 'feeRate',
		type: 'number',
		required: true,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 5,
		description:
			'Miner fee of the transaction in satoshis per virtual byte, a whole number of at least 1. It is paid from the collateral. Check the current rates (e.g. mempool.space) for how fast it should confirm.',
		displayOptions: { show: { resource: ['contract'], operation: PSBT_OPERATIONS } },
	},
	{
		displayName: 'Signed Transaction (Hex)',
		name: 'signedTx',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder: 'e.g. 02000000000101…',
		description:
			'The fully signed raw transaction in hex: the PSBT from the matching Get … PSBT operation, signed outside n8n with the key behind borrower_pk, then finalized and extracted by your wallet or signer. Not the PSBT itself. It is checked to be a whole, signed Bitcoin transaction before anything is sent.',
		displayOptions: { show: { resource: ['contract'], operation: BROADCAST_OPERATIONS } },
	},
];

/** A broadcast's answer is usable with a txid in the usual form, or without one (the node computes it). */
export const broadcastAnswer = (body: unknown): string | undefined => {
	if (!isRecord(body)) return undefined;
	if (body.txid === undefined) return liveErrorBodyWithout(body, 'txid');
	return txidAnswerProblem(body.txid, 'txid');
};

/** A PSBT answer is usable with a PSBT in hex (what Lendasat sends) or base64. */
const psbtAnswer = (body: unknown): string | undefined => {
	const psbt = isRecord(body) ? body.psbt : undefined;
	if (typeof psbt === 'string' && psbtEncodingOf(psbt)) return undefined;
	return psbt === undefined
		? 'it holds no psbt'
		: `its psbt ${describeValue(psbt)} is not a PSBT in hex or base64`;
};

/** The same answer to both broadcasts when the hex does not parse as a transaction. */
export const unparsableTransactionGuidance: ErrorGuidance = {
	statusCodes: [400],
	codes: ['INVALID_TRANSACTION'],
	text: /failed to parse signed (claim )?tx/i,
	message: 'Lendasat could not read the signed transaction',
	hint: 'send the finalized raw transaction in hex, as your wallet or signer extracts it from the signed PSBT; not the PSBT itself.',
};

/** A prepare step: the checked fee rate as the `fee_rate` query parameter. */
export async function addFeeRate(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const feeRate = toNumber(
		requireValid(this, 'Fee Rate (Sat/vB)', this.getNodeParameter('feeRate'), checkFeeRate),
	);
	request.qs = { ...request.qs, fee_rate: feeRate };
	return request;
}

/** A prepare step: the signed transaction, checked to be one, as the body `{tx}`. */
export async function addSignedTransaction(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const tx = requireText(
		this,
		'Signed Transaction (Hex)',
		this.getNodeParameter('signedTx'),
		checkSignedTransaction,
	);
	request.body = { tx: compactHex(tx).toLowerCase() };
	return request;
}

/**
 * Sends a PSBT request and turns the answer into one item: the PSBT in hex (as Lendasat sends it) and
 * in base64 (what most wallets import), the collateral's descriptor and the borrower key that must sign.
 * A 500 gets a note on what else it means for these routes.
 */
export function fetchPsbt(note: string) {
	return async function sendPsbtRequest(
		this: IExecutePaginationFunctions,
		api: ApiClient,
		request: OperationRequest,
	): Promise<INodeExecutionData[]> {
		let body: unknown;
		try {
			body = await api.send(request, 'object', { check: psbtAnswer });
		} catch (error) {
			const failure = failureOf(error);
			throw failure?.kind === 'http' && failure.statusCode === 500 ? withNote(error, note) : error;
		}
		const answer = isRecord(body) ? body : {};
		const psbt = answer.psbt;
		return [
			{
				json: {
					id: contractIdOf(this),
					psbt,
					...(typeof psbt === 'string' && psbtEncodingOf(psbt) === 'hex'
						? { psbt_base64: Buffer.from(psbt, 'hex').toString('base64') }
						: {}),
					collateral_descriptor: answer.collateral_descriptor,
					borrower_pk: answer.borrower_pk,
					fee_rate: toNumber((request.qs as IDataObject | undefined)?.fee_rate),
				},
			},
		];
	};
}

/**
 * The finish of a broadcast: the API answers `{txid}`; the item adds the contract and the status
 * Lendasat moved it to. Should the answer lack the txid, it is the one of the transaction sent.
 */
export function confirmBroadcast(status: string) {
	return async function reportBroadcast(
		this: IExecuteSingleFunctions,
		items: INodeExecutionData[],
	): Promise<INodeExecutionData[]> {
		const answered = items[0]?.json.txid;
		const sent = parseBitcoinTransactionHex(compactHex(String(this.getNodeParameter('signedTx'))));
		const txid =
			typeof answered === 'string' && answered !== ''
				? answered
				: 'txid' in sent
					? sent.txid
					: undefined;
		return [{ json: { id: contractIdOf(this), txid, status, broadcast: true } }];
	};
}
