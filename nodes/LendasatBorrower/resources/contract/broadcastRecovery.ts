import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	addSignedTransaction,
	broadcastAnswer,
	confirmBroadcast,
	unparsableTransactionGuidance,
} from './collateral';
import { notRecoverableGuidance } from './getRecoveryPsbt';
import { CONTRACTS_PATH, sendToContract } from './shared';

/*
 * POST without an idempotency key: the transport sends it again only after a 429 (not processed),
 * never after a failure where Lendasat may already have broadcast it.
 */
export const contractBroadcastRecoveryOperation: INodePropertyOptions = {
	name: 'Broadcast Recovery',
	value: 'broadcastRecovery',
	action: 'Broadcast a recovery transaction',
	description:
		'Publish the recovery transaction you signed outside n8n (the PSBT from Get Recovery PSBT, signed with the key behind borrower_pk, finalized and extracted). This moves the collateral on-chain and cannot be undone. The node checks that it is a whole, signed Bitcoin transaction, not a PSBT, before sending; it never asks for a private key. Output: the contract ID, the txid and status ClosedByRecovery.',
	routing: apiRoute(
		{
			label: 'Contract → Broadcast Recovery',
			toolDescription:
				'Broadcast the signed recovery transaction: moves the collateral back to your Bitcoin address (irreversible); returns the txid, the contract becomes ClosedByRecovery',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: broadcastAnswer,
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				notRecoverableGuidance,
				unparsableTransactionGuidance,
				{
					statusCodes: [500],
					codes: ['BROADCAST_FAILED'],
					text: /^something went wrong\.?$/i,
					message:
						'Lendasat had an internal error — the contract may not exist, or the recovery transaction was refused',
					hint: "Lendasat answers this way when the contract ID does not exist in the credential's environment or belongs to another account, and when the Bitcoin network refuses the transaction: it may not spend this contract's collateral, may lack a signature, may already have been broadcast, or may pay too little fee. Check the ID, and the transaction in your wallet (Bitcoin Core: testmempoolaccept).",
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'POST', url: `${CONTRACTS_PATH}/{id}/broadcast-recover` },
		{
			prepare: [sendToContract, addSignedTransaction],
			finish: [confirmBroadcast('ClosedByRecovery')],
		},
	),
};
