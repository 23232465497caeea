import type { INodeProperties } from 'n8n-workflow';

import { LOAN_TYPE_OPTIONS } from './loanTerms';

/**
 * The borrower's keys and addresses, asked the same way wherever a loan is requested (Contract →
 * Create, Loan Application → Create): one name, one label, one explanation. `sentAs` ends the
 * description with where the value goes in that operation's request.
 */

/** A description and the sentence that ends it. */
function followedBy(description: string, sentAs: string): string {
	return `${description} ${sentAs}`;
}

export function borrowerPublicKeyField(sentAs: string): INodeProperties {
	return {
		displayName: 'Borrower Public Key',
		name: 'borrowerPublicKey',
		type: 'string',
		default: '',
		placeholder: 'e.g. 02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5',
		description: followedBy(
			"Compressed public key (66 hex characters, 02… or 03…) of your wallet's key that co-signs the collateral escrow.",
			sentAs,
		),
	};
}

export function derivationPathField(sentAs: string): INodeProperties {
	return {
		displayName: 'Derivation Path',
		name: 'derivationPath',
		type: 'string',
		default: '',
		placeholder: "e.g. m/84'/0'/0'/0/0",
		description: followedBy('BIP-32 path of the Borrower Public Key in your wallet.', sentAs),
	};
}

export function collateralAddressField(sentAs: string): INodeProperties {
	return {
		displayName: 'Collateral Address',
		name: 'collateralAddress',
		type: 'string',
		default: '',
		placeholder: 'e.g. bc1q…',
		description: followedBy(
			'Your Bitcoin address, where the collateral goes back after repayment (mainnet in production; tb1…, m…, n… or 2… in development). For Arkade collateral, your Ark address instead (ark1… in production, tark1… in development).',
			sentAs,
		),
	};
}

export function repaymentAddressField(sentAs: string): INodeProperties {
	return {
		displayName: 'Repayment Address',
		name: 'repaymentAddress',
		type: 'string',
		default: '',
		placeholder: 'e.g. 0x52908400098527886E0F7030069857D2E4169EE7',
		description: followedBy(
			"Your stablecoin address the loan is paid to, on the loan asset's chain.",
			sentAs,
		),
	};
}

export function clientContractIdField(description: string): INodeProperties {
	return {
		displayName: 'Client Contract ID',
		name: 'clientContractId',
		type: 'string',
		default: '',
		placeholder: 'e.g. 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		description,
	};
}

export function loanTypeField(description: string, options = LOAN_TYPE_OPTIONS): INodeProperties {
	return {
		displayName: 'Loan Type',
		name: 'loanType',
		type: 'options',
		default: 'StableCoin',
		description,
		options,
	};
}

export function borrowerNpubField(sentAs: string): INodeProperties {
	return {
		displayName: 'Nostr Public Key (Npub)',
		name: 'borrowerNpub',
		type: 'string',
		default: '',
		placeholder: 'e.g. npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg',
		description: followedBy(
			'Your Nostr public key (npub1…), how lenders reach you.',
			`${sentAs} Never enter an nsec: that is a private key.`,
		),
	};
}
