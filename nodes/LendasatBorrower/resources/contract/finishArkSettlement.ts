import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	addArkSettlement,
	ARK_ATTEMPT_TIMEOUT_MS,
	arkSettledAnswer,
	confirmArkSettlement,
	notArkadeGuidance,
} from './arkCollateral';
import { CONTRACTS_PATH, sendToContract } from './shared';

/*
 * POST without an idempotency key: sent once; a failure that may have reached the server (a 5xx, a
 * broken or timed-out connection) is never followed by a second attempt.
 */
export const contractFinishArkSettlementOperation: INodePropertyOptions = {
	name: 'Finish Ark Settlement',
	value: 'finishArkSettlement',
	action: 'Finish an Ark settlement',
	description:
		'Send the intent PSBT and forfeit PSBTs from Get Ark Settlement, signed outside n8n with the key behind user_pk, to Lendasat, which joins the next Ark batch with them. This moves the Arkade collateral to you and cannot be undone; the answer can take up to a few minutes. Each PSBT is checked before sending and sent in base64; the node never asks for a private key. Output: the contract ID, the commitment_txid of the batch and settled: true.',
	routing: apiRoute(
		{
			label: 'Contract → Finish Ark Settlement',
			toolDescription:
				'Finish the Ark settlement with the signed PSBTs: moves the Arkade collateral back to you in an Ark batch (irreversible); returns the commitment txid',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: arkSettledAnswer,
			notFound: { parameter: 'contractId', label: 'contract' },
			attemptTimeoutMs: ARK_ATTEMPT_TIMEOUT_MS,
			errors: [
				notArkadeGuidance,
				{
					statusCodes: [400, 404],
					codes: ['NO_PENDING_SETTLEMENT'],
					text: /no (pending )?settlement|settle-ark first|expired/i, // [INF]
					message: 'Lendasat has no settlement waiting for these PSBTs',
					hint: 'Lendasat keeps a settlement only from Get Ark Settlement until it is finished, for a limited time. Run Get Ark Settlement again, sign what it returns, and finish soon after.',
				},
				{
					statusCodes: [400, 422],
					codes: ['INVALID_PSBT'],
					text: /psbt/i, // [INF]
					message: 'Lendasat could not read the signed PSBTs',
					hint: 'send the intent PSBT and the forfeit PSBTs as your signer returns them after signing, not finalized or extracted.',
				},
				{
					// [INF] a refused batch and an unknown or foreign contract both look like this.
					statusCodes: [500],
					codes: ['SETTLEMENT_FAILED'],
					text: /^something went wrong\.?$/i,
					message: 'Lendasat could not finish the Ark settlement',
					hint: 'the Ark server or the batch refused it, or Lendasat had an internal error: a PSBT may lack your signature or come from an earlier Get Ark Settlement; the contract may also not exist or not be yours. It was not sent again. Contract → Get shows whether the collateral was settled before you try again.',
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'POST', url: `${CONTRACTS_PATH}/{id}/finish-settle-ark` },
		{
			prepare: [sendToContract, addArkSettlement],
			finish: [confirmArkSettlement],
		},
	),
};
