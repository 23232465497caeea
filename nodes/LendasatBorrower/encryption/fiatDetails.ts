import { hkdfSync } from 'crypto';

import type { RandomBytes } from '../validation/apiKeys';
import { aesGcmSivEncrypt } from './aesGcmSiv';
import { eciesEncrypt } from './ecies';

/*
 * Lendasat's encryption of a borrower's bank details (lendasat/iframe 49781f87
 * client-sdk/src/wallet/fiat_loan_details.rs, called by the borrower app with the contract's
 * borrower_pk and lender_pk, frontend/apps/borrower/src/app/contracts/contract-details-footer.tsx):
 * - a random 32-byte key;
 * - each field: a random 32-byte salt, HKDF-SHA256(salt, key, info "ENCRYPTION_KEY") as an
 *   AES-256-GCM-SIV key, the fixed nonce "6by2d6wxps3a", no associated data; the field becomes
 *   hex(salt) "$" hex(ciphertext and tag);
 * - the key ECIES-encrypted to the borrower's and to the lender's public key, each in hex.
 * Only public keys are needed; each party opens its copy of the key with its own private key (the
 * node never decrypts; test/helpers/fiatDecryption.ts does, for the tests). HKDF is Node's crypto;
 * AES-256-GCM-SIV is ./aesGcmSiv.ts and ECIES ./ecies.ts, which say what in them is written by hand.
 */

const NONCE = new TextEncoder().encode('6by2d6wxps3a');
const FIELD_KEY_INFO = 'ENCRYPTION_KEY';

/** Bank details as the borrower enters them (the schema's FiatLoanDetails, in plain text). */
export interface FiatDetails {
	iban_transfer_details?: { iban: string; bic?: string | null } | null;
	swift_transfer_details?: { swift_or_bic: string; account_number: string } | null;
	bank_name: string;
	bank_address: string;
	bank_country: string;
	purpose_of_remittance: string;
	full_name: string;
	address: string;
	city: string;
	post_code: string;
	country: string;
	comments?: string | null;
}

/** The body of PUT /api/contracts/{id}/fiat-details (the schema's FiatLoanDetailsWrapper). */
export interface FiatDetailsWrapper {
	details: FiatDetails;
	encrypted_encryption_key_borrower: string;
	encrypted_encryption_key_lender: string;
}

function fieldKey(key: Uint8Array, salt: Uint8Array): Uint8Array {
	return new Uint8Array(hkdfSync('sha256', key, salt, FIELD_KEY_INFO, 32));
}

function encryptField(key: Uint8Array, text: string, random: RandomBytes): string {
	const salt = random(32);
	const sealed = aesGcmSivEncrypt(fieldKey(key, salt), NONCE, new TextEncoder().encode(text));
	return `${Buffer.from(salt).toString('hex')}$${Buffer.from(sealed).toString('hex')}`;
}

/** Every text of the details through `convert`, the structure (and absent parts) kept. */
function mapDetails(details: FiatDetails, convert: (text: string) => string): FiatDetails {
	const optional = (text: string | null | undefined) =>
		text === undefined || text === null ? text : convert(text);
	const iban = details.iban_transfer_details;
	const swift = details.swift_transfer_details;
	return {
		iban_transfer_details: iban ? { iban: convert(iban.iban), bic: optional(iban.bic) } : iban,
		swift_transfer_details: swift
			? { swift_or_bic: convert(swift.swift_or_bic), account_number: convert(swift.account_number) }
			: swift,
		bank_name: convert(details.bank_name),
		bank_address: convert(details.bank_address),
		bank_country: convert(details.bank_country),
		purpose_of_remittance: convert(details.purpose_of_remittance),
		full_name: convert(details.full_name),
		address: convert(details.address),
		city: convert(details.city),
		post_code: convert(details.post_code),
		country: convert(details.country),
		comments: optional(details.comments),
	};
}

/** The details encrypted for the borrower and the lender; `random` is crypto.randomBytes outside tests. */
export function encryptFiatDetails(
	details: FiatDetails,
	publicKeys: { borrower: Uint8Array; lender: Uint8Array },
	random: RandomBytes,
): FiatDetailsWrapper {
	const key = random(32);
	return {
		details: mapDetails(details, (text) => encryptField(key, text, random)),
		encrypted_encryption_key_borrower: eciesEncrypt(publicKeys.borrower, key, random).toString(
			'hex',
		),
		encrypted_encryption_key_lender: eciesEncrypt(publicKeys.lender, key, random).toString('hex'),
	};
}
