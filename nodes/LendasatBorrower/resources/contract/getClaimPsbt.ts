import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { addFeeRate, fetchPsbt } from './collateral';
import { CONTRACTS_PATH, sendToContract } from './shared';

export const contractGetClaimPsbtOperation: INodePropertyOptions = {
	name: 'Get Claim PSBT',
	value: 'getClaimPsbt',
	action: 'Get a claim PSBT',
	description:
		"Get the partially signed transaction (PSBT) that sends the collateral back to your Bitcoin address, once every installment is confirmed by the lender (status RepaymentConfirmed). Lendasat has already signed it. Sign it outside n8n, in your own wallet or signer, with the private key behind borrower_pk (at the contract's borrower_derivation_path), finalize it, and send the transaction with Broadcast Claim. The node never asks for a private key. Output: psbt (hex), psbt_base64, collateral_descriptor, borrower_pk.",
	routing: apiRoute(
		{
			label: 'Contract → Get Claim PSBT',
			toolDescription:
				'Get the PSBT that returns the collateral after the loan is repaid and confirmed; moves no money: returns the PSBT, its descriptor and the borrower key that must sign it outside n8n',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				{
					statusCodes: [400],
					codes: ['NOT_REPAID'],
					text: /cannot claim collateral until loan has been repaid/i,
					message: 'The collateral cannot be claimed yet: the contract must be RepaymentConfirmed',
					hint: 'claiming needs every installment paid and confirmed by the lender (status RepaymentConfirmed). A repayment that was reported but not yet confirmed (RepaymentProvided) is not enough: wait for the lender. Contract → Get shows the status and, with Simplify off, each installment.',
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'GET', url: `${CONTRACTS_PATH}/{id}/claim` },
		{
			prepare: [sendToContract, addFeeRate],
			send: fetchPsbt(
				'If the contract is yours, Lendasat may have found no collateral left to spend (already claimed: status ClosingByClaim or Closed), or the fee rate leaves too little for your output.',
			),
		},
	),
};
