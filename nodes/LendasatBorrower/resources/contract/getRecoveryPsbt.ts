import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import type { ErrorGuidance } from '../../transport/errors';
import { addFeeRate, fetchPsbt } from './collateral';
import { CONTRACTS_PATH, sendToContract } from './shared';

/** Recovery and its broadcast are allowed only in CollateralRecoverable. */
export const notRecoverableGuidance: ErrorGuidance = {
	statusCodes: [400],
	codes: ['INVALID_STATE'],
	text: /cannot recover collateral/i,
	message: 'Collateral can only be recovered from a contract in status CollateralRecoverable',
	hint: 'Lendasat makes a contract CollateralRecoverable when the lender never paid out the loan after the collateral was confirmed. After a repaid loan, use Get Claim PSBT and Broadcast Claim instead. Contract → Get shows the status.',
};

export const contractGetRecoveryPsbtOperation: INodePropertyOptions = {
	name: 'Get Recovery PSBT',
	value: 'getRecoveryPsbt',
	action: 'Get a recovery PSBT',
	description:
		"Get the partially signed transaction (PSBT) that sends the whole collateral back to your Bitcoin address when the lender never paid out the loan (status CollateralRecoverable). Sign it outside n8n, in your own wallet or signer, with the private key behind borrower_pk (at the contract's borrower_derivation_path), finalize it, and send the transaction with Broadcast Recovery. The node never asks for a private key. Output: psbt (hex), psbt_base64, collateral_descriptor, borrower_pk.",
	routing: apiRoute(
		{
			label: 'Contract → Get Recovery PSBT',
			toolDescription:
				'Get the PSBT that returns the collateral when the lender never paid out; moves no money: returns the PSBT, its descriptor and the borrower key that must sign it outside n8n',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [notRecoverableGuidance],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'GET', url: `${CONTRACTS_PATH}/{id}/recover` },
		{
			prepare: [sendToContract, addFeeRate],
			send: fetchPsbt(
				'If the contract is yours, Lendasat may have found no collateral left to spend, or the fee rate leaves too little for your output.',
			),
		},
	),
};
