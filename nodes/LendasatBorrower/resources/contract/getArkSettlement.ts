import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	ARK_ATTEMPT_TIMEOUT_MS,
	arkSettlementAnswer,
	fetchArkPsbts,
	settleArkGuidance,
} from './arkCollateral';
import { CONTRACTS_PATH, sendToContract } from './shared';

export const contractGetArkSettlementOperation: INodePropertyOptions = {
	name: 'Get Ark Settlement',
	value: 'getArkSettlement',
	action: 'Get an Ark settlement',
	description:
		'For Arkade collateral whose VTXOs became recoverable (requires_ark_settlement true) after the loan was repaid and confirmed (status RepaymentConfirmed): get the intent PSBT (intent_proof) and the forfeit PSBTs, in base64, that settle the collateral back to you in the next Ark batch. Sign them outside n8n, in your own Ark wallet or signer, with the private key behind user_pk (at derivation_path), and send them with Finish Ark Settlement soon after. The node never asks for a private key. Output: the contract ID, intent_message, intent_proof, forfeit_psbts, delegate_cosigner_pk, user_pk, derivation_path.',
	routing: apiRoute(
		{
			label: 'Contract → Get Ark Settlement',
			toolDescription:
				'Get the Ark settlement PSBTs for repaid Arkade collateral whose VTXOs became recoverable; moves no money: returns the intent PSBT, the forfeit PSBTs and the borrower key that must sign them outside n8n',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: settleArkGuidance,
			attemptTimeoutMs: ARK_ATTEMPT_TIMEOUT_MS,
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'GET', url: `${CONTRACTS_PATH}/{id}/settle-ark` },
		{
			prepare: [sendToContract],
			send: fetchArkPsbts(
				arkSettlementAnswer,
				'If the contract is yours, Lendasat or the Ark server could not prepare the settlement: the collateral may already be settled or claimed.',
			),
		},
	),
};
