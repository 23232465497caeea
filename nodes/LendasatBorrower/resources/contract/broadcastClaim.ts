import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	addSignedTransaction,
	broadcastAnswer,
	confirmBroadcast,
	unparsableTransactionGuidance,
} from './collateral';
import { CONTRACTS_PATH, sendToContract } from './shared';

/*
 * POST without an idempotency key: the transport sends it again only after a 429 (not processed),
 * never after a failure where Lendasat may already have broadcast it.
 */
export const contractBroadcastClaimOperation: INodePropertyOptions = {
	name: 'Broadcast Claim',
	value: 'broadcastClaim',
	action: 'Broadcast a claim transaction',
	description:
		'Publish the claim transaction you signed outside n8n (the PSBT from Get Claim PSBT, signed with the key behind borrower_pk, finalized and extracted). This moves the collateral on-chain and cannot be undone. The node checks that it is a whole, signed Bitcoin transaction, not a PSBT, before sending; it never asks for a private key. Output: the contract ID, the txid and status ClosingByClaim (Closed once the transaction confirms).',
	routing: apiRoute(
		{
			label: 'Contract → Broadcast Claim',
			toolDescription:
				'Broadcast the signed claim transaction: moves the collateral to your Bitcoin address (irreversible); returns the txid, the contract becomes ClosingByClaim',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: broadcastAnswer,
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				unparsableTransactionGuidance,
				{
					// This route checks ownership cleanly (404); its 500 means the broadcast itself failed.
					statusCodes: [500],
					codes: ['BROADCAST_FAILED'],
					text: /^something went wrong\.?$/i,
					message: 'Lendasat could not broadcast the claim transaction',
					hint: "the Bitcoin network refused it or Lendasat had an internal error. The transaction may not spend this contract's collateral, may lack a signature, may already have been broadcast, or may pay too little fee. Check it in your wallet (Bitcoin Core: testmempoolaccept); Contract → Get shows whether the status is already ClosingByClaim.",
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'POST', url: `${CONTRACTS_PATH}/{id}/broadcast-claim` },
		{
			prepare: [sendToContract, addSignedTransaction],
			finish: [confirmBroadcast('ClosingByClaim')],
		},
	),
};
