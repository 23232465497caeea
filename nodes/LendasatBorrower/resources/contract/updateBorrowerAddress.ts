import type {
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute, credentialsOf, type OperationRequest } from '../../transport/apiRoute';
import { bitcoinNetworkFor } from '../../transport/credentials';
import {
	checkBitcoinAddress,
	describeValue,
	type ValidationProblem,
} from '../../validation/checks';
import { invalidParameter, requireText, requireValid } from '../../validation/parameters';
import {
	INCLUDED_IN_SIGNATURE,
	checkRecoveryId,
	readRecoverableSignature,
	recoveryIdOf,
} from '../../validation/signatures';
import { CONTRACTS_PATH, contractIdOf, sendToContract } from './shared';

const OPERATION = 'updateBorrowerAddress';
const show = { show: { resource: ['contract'], operation: [OPERATION] } };

/*
 * What Lendasat checks (hub 0.8.2 routes/borrower/contracts.rs put_borrower_btc_address and
 * wallet.rs is_signed_by_pk): the address parses as a Bitcoin address of any network; the message is
 * that address as the bitcoin crate prints it (bech32 in lower case), hashed as a Bitcoin signed
 * message (double SHA-256 of "\x18Bitcoin Signed Message:\n", the length and the text); the public
 * key recovered from the 64-byte compact signature and its recovery ID must be the contract's
 * borrower_pk. No contract status is checked.
 */
const HOW_TO_SIGN =
	"sign exactly the address as sent (a bech32 address in lower case) as a Bitcoin signed message with the key behind the contract's borrower_pk (Contract → Get with Simplify off shows borrower_pk and borrower_derivation_path): Bitcoin Core signmessagewithprivkey, or Sign Message in Electrum or Sparrow; then paste the base64 signature they return.";

export const contractUpdateBorrowerAddressOperation: INodePropertyOptions = {
	name: 'Update Borrower Address',
	value: OPERATION,
	action: 'Update the collateral refund address',
	description:
		"Change where the collateral goes back to (the contract's borrower_btc_address). Needs a signature of the new address by the contract's borrower key, made outside n8n; the node never asks for a private key. The output is the contract ID and the new address with updated: true.",
	routing: apiRoute(
		{
			label: 'Contract → Update Borrower Address',
			toolDescription:
				"Update a contract's collateral refund address: the Bitcoin address the collateral goes back to, proven by a signature of the borrower's key made outside n8n",
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				{
					statusCodes: [400],
					codes: ['BAD_SIGNATURE'],
					text: /bad signature provided/i,
					message: 'Lendasat could not read the signature',
					hint: `give the 65-byte signature a wallet returns, in base64. To make it, ${HOW_TO_SIGN}`,
				},
				{
					statusCodes: [400],
					codes: ['INVALID_SIGNATURE'],
					text: /invalid signature provided/i,
					message: "The signature is not the contract's borrower key signing this address",
					hint: HOW_TO_SIGN,
				},
				{
					statusCodes: [400],
					codes: ['ADDRESS_NOT_UPDATED'],
					text: /could not update address/i,
					message: 'Lendasat did not update the address',
					hint: 'the contract was not found for this key when the address was to be stored. Contract → Get shows whether it is yours.',
				},
				{
					statusCodes: [400, 422],
					text: /\baddress\b/i,
					message: 'Lendasat could not read the address',
					hint: 'give an on-chain Bitcoin address, e.g. bc1q… in production or tb1q… in development.',
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'PUT', url: `${CONTRACTS_PATH}/{id}/borrower-address` },
		{
			prepare: [sendToContract, addSignedAddress],
			finish: [confirmAddress],
		},
	),
};

export const contractUpdateBorrowerAddressFields: INodeProperties[] = [
	{
		displayName: 'Collateral Address',
		name: 'collateralAddress',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
		description:
			'The new on-chain Bitcoin address the collateral goes back to (mainnet in production; tb1…, m…, n… or 2… in development). Write a bech32 address (bc1…, tb1…) in lower case: that is the text Lendasat checks the signature against.',
		displayOptions: show,
	},
	{
		displayName: 'Signature',
		name: 'signature',
		type: 'string',
		typeOptions: { rows: 2 },
		required: true,
		default: '',
		placeholder:
			'e.g. H9L5yLFjti0QTHhPyFrZCT1V/MMnBtXKmoiKDZ78NDBjERki6ZTQZdSMCtkgoNmp17By9ItJr8o7ChX0XxY91nk=',
		description:
			"The new address signed as a Bitcoin message with the key behind the contract's borrower_pk, made outside n8n: the base64 signature Bitcoin Core's signmessagewithprivkey, Electrum or Sparrow return, or 128 hexadecimal characters (r and s) with Recovery ID set",
		displayOptions: show,
	},
	{
		displayName: 'Recovery ID',
		name: 'recoveryId',
		type: 'options',
		options: [
			{ name: '0', value: 0 },
			{ name: '1', value: 1 },
			{ name: '2', value: 2 },
			{ name: '3', value: 3 },
			{
				name: 'Included in the Signature',
				value: INCLUDED_IN_SIGNATURE,
				description: 'A base64 signature of 65 bytes carries it in its first byte',
			},
		],
		default: INCLUDED_IN_SIGNATURE,
		description:
			'Only for a signature of 128 hexadecimal characters: the recovery ID (0–3) the signer gave with it',
		displayOptions: show,
	},
];

/** What Collateral Address refuses beyond the usual address check. */
function checkRefundAddress(network: ReturnType<typeof bitcoinNetworkFor>) {
	return (value: unknown): ValidationProblem => {
		const address = typeof value === 'string' ? value.trim() : value;
		if (typeof address === 'string' && /^t?ark1/i.test(address)) {
			return `${describeValue(address)} is an Ark address. Lendasat reads this address as an on-chain Bitcoin address (its 0.8.2 backend parses it with the bitcoin crate), so an Ark address cannot be set here.`;
		}
		const problem = checkBitcoinAddress(value, network);
		if (problem) return problem;
		if (
			typeof address === 'string' &&
			/^(bc|tb|bcrt)1/i.test(address) &&
			address !== address.toLowerCase()
		) {
			return `${describeValue(address)} is in upper case. Lendasat checks the signature against the address in lower case: write it as ${address.toLowerCase()} and sign that text.`;
		}
		return null;
	};
}

/** A prepare step: the checked address and signature as the body of UpdateBorrowerBtcAddress. */
async function addSignedAddress(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	const network = bitcoinNetworkFor((await credentialsOf(this)).environment);
	const address = requireText(
		this,
		'Collateral Address',
		this.getNodeParameter('collateralAddress'),
		checkRefundAddress(network),
	);
	const recoveryId = recoveryIdOf(
		requireValid(
			this,
			'Recovery ID',
			this.getNodeParameter('recoveryId', INCLUDED_IN_SIGNATURE),
			checkRecoveryId,
		),
	);
	const signature = readRecoverableSignature(this.getNodeParameter('signature'), recoveryId);
	if ('problem' in signature) throw invalidParameter(this, 'Signature', signature.problem);
	return {
		...request,
		body: {
			address,
			recoverable_signature_hex: signature.compactHex,
			recoverable_signature_id: signature.recoveryId,
		},
	};
}

/** Lendasat answers `null`; the output names the contract and the address now stored. */
async function confirmAddress(this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
	const address = String(this.getNodeParameter('collateralAddress')).trim();
	return [{ json: { id: contractIdOf(this), borrower_btc_address: address, updated: true } }];
}
