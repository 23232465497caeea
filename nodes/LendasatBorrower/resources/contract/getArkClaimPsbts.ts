import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import {
	ARK_ATTEMPT_TIMEOUT_MS,
	arkClaimAnswer,
	claimArkGuidance,
	fetchArkPsbts,
} from './arkCollateral';
import { CONTRACTS_PATH, sendToContract } from './shared';

export const contractGetArkClaimPsbtsOperation: INodePropertyOptions = {
	name: 'Get Ark Claim PSBTs',
	value: 'getArkClaimPsbts',
	action: 'Get Ark claim PSBTs',
	description:
		'For Arkade collateral (collateral_asset ArkadeBtc): get the partially signed transactions (PSBTs, hex) that send the collateral back off-chain to your Ark address, once every installment is confirmed by the lender (status RepaymentConfirmed) and while requires_ark_settlement is false. Lendasat has already signed them. Sign the Ark PSBT and every checkpoint PSBT outside n8n, in your own Ark wallet or signer, with the private key behind borrower_pk (at derivation_path), and send them with Broadcast Ark Claim. The node never asks for a private key. Output: the contract ID, ark_psbt, checkpoint_psbts, borrower_pk, derivation_path.',
	routing: apiRoute(
		{
			label: 'Contract → Get Ark Claim PSBTs',
			toolDescription:
				'Get the Ark PSBTs that return Arkade collateral after the loan is repaid and confirmed; moves no money: returns the Ark PSBT, its checkpoint PSBTs and the borrower key that must sign them outside n8n',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: claimArkGuidance,
			attemptTimeoutMs: ARK_ATTEMPT_TIMEOUT_MS,
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'GET', url: `${CONTRACTS_PATH}/{id}/claim-ark` },
		{
			prepare: [sendToContract],
			send: fetchArkPsbts(
				arkClaimAnswer,
				'If the contract is yours, Lendasat or the Ark server could not build the claim: the collateral may already be claimed (status ClosingByClaim or Closed).',
			),
		},
	),
};
