import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { addArkClaim, ARK_ATTEMPT_TIMEOUT_MS, confirmArkClaim } from './arkCollateral';
import { broadcastAnswer } from './collateral';
import { CONTRACTS_PATH, sendToContract } from './shared';

/*
 * POST without an idempotency key: the transport sends it again only after a 429 or a refused
 * connection (not processed), never after a failure where the Ark server may already have the claim.
 */
export const contractBroadcastArkClaimOperation: INodePropertyOptions = {
	name: 'Broadcast Ark Claim',
	value: 'broadcastArkClaim',
	action: 'Broadcast an Ark claim',
	description:
		'Send the Ark PSBT and checkpoint PSBTs from Get Ark Claim PSBTs, signed outside n8n with the key behind borrower_pk, to Lendasat, which completes them with the Ark server. This moves the Arkade collateral to your Ark address and cannot be undone. The node checks that each is a PSBT and that the checkpoints are the ones the Ark PSBT spends before sending; it never asks for a private key. Output: the contract ID, the txid of the Ark transaction and status ClosingByClaim.',
	routing: apiRoute(
		{
			label: 'Contract → Broadcast Ark Claim',
			toolDescription:
				'Broadcast the signed Ark claim: moves the Arkade collateral to your Ark address (irreversible); returns the txid, the contract becomes ClosingByClaim',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: broadcastAnswer,
			notFound: { parameter: 'contractId', label: 'contract' },
			attemptTimeoutMs: ARK_ATTEMPT_TIMEOUT_MS,
			errors: [
				{
					statusCodes: [400, 422],
					codes: ['INVALID_PSBT'],
					text: /psbt/i, // [INF]
					message: 'Lendasat could not read the signed PSBTs',
					hint: 'send the Ark PSBT and the checkpoint PSBTs as your signer returns them after signing (hex or base64), not finalized or extracted.',
				},
				{
					// [INF] the Ark server's refusal and an unknown or foreign contract both look like this.
					statusCodes: [500],
					codes: ['CLAIM_FAILED'],
					text: /^something went wrong\.?$/i,
					message: 'Lendasat could not complete the Ark claim',
					hint: 'the Ark server refused it or Lendasat had an internal error: a PSBT may lack your signature, come from an earlier Get Ark Claim PSBTs, or the collateral may already be claimed; the contract may also not exist or not be yours. It was not sent again. Contract → Get shows whether the status is already ClosingByClaim before you try again.',
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'POST', url: `${CONTRACTS_PATH}/{id}/broadcast-claim-ark` },
		{
			prepare: [sendToContract, addArkClaim],
			finish: [confirmArkClaim],
		},
	),
};
