import { randomBytes } from 'crypto';
import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { FIAT_LOAN_ASSETS, LOAN_ASSETS } from '../../descriptions/loanTerms';
import { encryptFiatDetails, type FiatDetails } from '../../encryption/fiatDetails';
import { parsePoint } from '../../encryption/secp256k1';
import {
	apiRoute,
	failureOf,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { withNote } from '../../transport/exchange';
import {
	checkAccountNumber,
	checkBankText,
	checkBic,
	checkIban,
	compactIban,
} from '../../validation/bankDetails';
import { describeValue } from '../../validation/checks';
import { itemError, requireText, type Check } from '../../validation/parameters';
import { CONTRACTS_PATH, contractIdOf, contractPath, sendToContract } from './shared';

const OPERATION = 'sendFiatDetails';
const LABEL = 'Contract → Send Fiat Details';
const show = (extra: IDataObject = {}) => ({
	show: { resource: ['contract'], operation: [OPERATION], ...extra },
});

export const contractSendFiatDetailsOperation: INodePropertyOptions = {
	name: 'Send Fiat Details',
	value: OPERATION,
	action: 'Send bank details for a fiat loan',
	description:
		"Give the lender of a fiat loan (USD, EUR, CHF, MXN) the bank account to pay out to. The node encrypts the details as Lendasat's app does, for the contract's borrower and lender keys only; Lendasat cannot read them. The output is the contract ID with fiat_details_sent: true.",
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				'Send the bank details a fiat loan is paid out to: encrypted so that only the borrower and the lender can read them; once per contract',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'empty',
			notFound: { parameter: 'contractId', label: 'contract' },
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'PUT', url: `${CONTRACTS_PATH}/{id}/fiat-details` },
		{ prepare: [sendToContract, readBankDetails], send: encryptAndSend },
	),
};

/** One text of the details: its parameter, where it goes in FiatLoanDetails, and how it is checked. */
interface BankText {
	parameter: string;
	displayName: string;
	field: Exclude<keyof FiatDetails, 'iban_transfer_details' | 'swift_transfer_details'>;
	placeholder: string;
	description: string;
	maxLength: number;
	optional?: boolean;
}

const BANK_TEXTS: BankText[] = [
	{
		parameter: 'recipientName',
		displayName: 'Account Holder Name',
		field: 'full_name',
		placeholder: 'e.g. Satoshi Nakamoto',
		description: 'Full legal name of the account holder (you)',
		maxLength: 200,
	},
	{
		parameter: 'recipientAddress',
		displayName: 'Account Holder Address',
		field: 'address',
		placeholder: 'e.g. Hauptstraße 1',
		description: "Street and number of the account holder's residence",
		maxLength: 200,
	},
	{
		parameter: 'recipientCity',
		displayName: 'Account Holder City',
		field: 'city',
		placeholder: 'e.g. Berlin',
		description: "City of the account holder's residence",
		maxLength: 100,
	},
	{
		parameter: 'recipientPostCode',
		displayName: 'Account Holder Post Code',
		field: 'post_code',
		placeholder: 'e.g. 10115',
		description: "Postal code of the account holder's residence",
		maxLength: 20,
	},
	{
		parameter: 'recipientCountry',
		displayName: 'Account Holder Country',
		field: 'country',
		placeholder: 'e.g. Germany',
		description: "Country of the account holder's residence",
		maxLength: 100,
	},
	{
		parameter: 'bankName',
		displayName: 'Bank Name',
		field: 'bank_name',
		placeholder: 'e.g. Deutsche Bank',
		description: 'Name of the bank holding the account',
		maxLength: 200,
	},
	{
		parameter: 'bankAddress',
		displayName: 'Bank Address',
		field: 'bank_address',
		placeholder: 'e.g. Taunusanlage 12, 60325 Frankfurt',
		description: 'Address of the bank',
		maxLength: 200,
	},
	{
		parameter: 'bankCountry',
		displayName: 'Bank Country',
		field: 'bank_country',
		placeholder: 'e.g. Germany',
		description: 'Country of the bank',
		maxLength: 100,
	},
	{
		parameter: 'purposeOfRemittance',
		displayName: 'Purpose of Remittance',
		field: 'purpose_of_remittance',
		placeholder: 'e.g. Loan payout',
		description: 'What the transfer is for, as the bank asks for it',
		maxLength: 200,
	},
	{
		parameter: 'comments',
		displayName: 'Comments',
		field: 'comments',
		placeholder: 'e.g. Reference 1042',
		description: 'Anything else the lender should know (optional)',
		maxLength: 1000,
		optional: true,
	},
];

export const contractSendFiatDetailsFields: INodeProperties[] = [
	{
		displayName: 'Transfer Type',
		name: 'transferType',
		type: 'options',
		options: [
			{
				name: 'IBAN (SEPA)',
				value: 'iban',
				description: 'An account with an IBAN, e.g. in Europe',
			},
			{
				name: 'SWIFT',
				value: 'swift',
				description: 'An account number and the SWIFT code (BIC) of its bank',
			},
		],
		default: 'iban',
		description: 'How the lender transfers the loan',
		displayOptions: show(),
	},
	{
		displayName: 'IBAN',
		name: 'iban',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. DE89 3704 0044 0532 0130 00',
		description: 'The IBAN of your account, with or without spaces',
		displayOptions: show({ transferType: ['iban'] }),
	},
	{
		displayName: 'BIC',
		name: 'bic',
		type: 'string',
		default: '',
		placeholder: 'e.g. DEUTDEFF',
		description: "Your bank's BIC; optional for an IBAN transfer",
		displayOptions: show({ transferType: ['iban'] }),
	},
	{
		displayName: 'SWIFT Code (BIC)',
		name: 'swiftOrBic',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. BOFAUS3N',
		description: "Your bank's SWIFT code",
		displayOptions: show({ transferType: ['swift'] }),
	},
	{
		displayName: 'Account Number',
		name: 'accountNumber',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 000123456789',
		description: 'Your account number at that bank',
		displayOptions: show({ transferType: ['swift'] }),
	},
	...BANK_TEXTS.map(
		(text): INodeProperties => ({
			displayName: text.displayName,
			name: text.parameter,
			type: 'string',
			default: '',
			placeholder: text.placeholder,
			description: text.description,
			displayOptions: show(),
			...(text.optional ? {} : { required: true }),
		}),
	),
];

/** Checks every parameter and keeps the plain details in the request body until they are encrypted. */
async function readBankDetails(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	const read = (name: string, label: string, check: Check) =>
		requireText(this, label, this.getNodeParameter(name, ''), check);
	const details = {} as FiatDetails;
	const transferType = this.getNodeParameter('transferType', 'iban');
	if (transferType === 'swift') {
		details.swift_transfer_details = {
			swift_or_bic: read('swiftOrBic', 'SWIFT Code (BIC)', checkBic).toUpperCase(),
			account_number: read('accountNumber', 'Account Number', checkAccountNumber),
		};
	} else {
		const bic = String(this.getNodeParameter('bic', '') ?? '').trim();
		details.iban_transfer_details = {
			iban: compactIban(read('iban', 'IBAN', checkIban)),
			bic: bic === '' ? null : read('bic', 'BIC', checkBic).toUpperCase(),
		};
	}
	const texts = details as unknown as Record<string, string | null>;
	for (const text of BANK_TEXTS) {
		const value = String(this.getNodeParameter(text.parameter, '') ?? '').trim();
		const example = text.placeholder.replace(/^e\.g\. /, '');
		texts[text.field] =
			text.optional && value === ''
				? null
				: read(text.parameter, text.displayName, checkBankText(text.maxLength, example));
	}
	return { ...request, body: details as unknown as IDataObject };
}

/** A public key of the contract, as the bytes ECIES encrypts to. */
function keyToEncryptTo(
	context: IExecutePaginationFunctions,
	id: string,
	contract: IDataObject,
	field: 'borrower_pk' | 'lender_pk',
): Uint8Array {
	const value = contract[field];
	const bytes =
		typeof value === 'string' && /^([0-9a-f]{2})+$/i.test(value)
			? Buffer.from(value, 'hex')
			: undefined;
	if (bytes && parsePoint(bytes)) return Uint8Array.from(bytes);
	throw itemError(
		context,
		`Contract ${id} has no ${field} to encrypt the bank details to`,
		`${LABEL}: Lendasat's contract gives ${field} as ${describeValue(value)}, which is not a secp256k1 public key. Nothing was sent.`,
	);
}

/**
 * Reads the contract first: its borrower_pk and lender_pk are the keys the details are encrypted
 * to; a stablecoin loan has no use for them, and Lendasat keeps one set per contract (a second is
 * its 500). Then encrypts and sends.
 */
async function encryptAndSend(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const id = contractIdOf(this);
	const contract = (await api.send(
		{ method: 'GET', url: contractPath(id) },
		'object',
	)) as IDataObject;
	refuseUnlessOpen(this, id, contract);
	const wrapper = encryptFiatDetails(
		request.body as unknown as FiatDetails,
		{
			borrower: keyToEncryptTo(this, id, contract, 'borrower_pk'),
			lender: keyToEncryptTo(this, id, contract, 'lender_pk'),
		},
		randomBytes,
	);
	try {
		await api.send({ ...request, body: wrapper as unknown as IDataObject }, 'empty');
	} catch (error) {
		const failure = failureOf(error);
		throw failure?.kind === 'http' && failure.statusCode === 500
			? withNote(
					error,
					'Lendasat keeps one set of bank details per contract and answers a second one this way; Contract → Get (Simplify off) shows fiat_loan_details_borrower once they are stored.',
				)
			: error;
	}
	return [
		{
			json: {
				id,
				fiat_details_sent: true,
				transfer_type: wrapper.details.iban_transfer_details ? 'iban' : 'swift',
			},
		},
	];
}

function refuseUnlessOpen(
	context: IExecutePaginationFunctions,
	id: string,
	contract: IDataObject,
): void {
	const asset = contract.loan_asset;
	const stablecoin =
		typeof asset === 'string' && LOAN_ASSETS.includes(asset) && !FIAT_LOAN_ASSETS.includes(asset);
	if (stablecoin) {
		throw itemError(
			context,
			`Contract ${id} is not a fiat loan`,
			`${LABEL}: its loan is paid out in ${asset}, a stablecoin, to the borrower's wallet; bank details are only for loans in USD, EUR, CHF or MXN. Nothing was sent.`,
		);
	}
	if (
		contract.fiat_loan_details_borrower !== undefined &&
		contract.fiat_loan_details_borrower !== null
	) {
		throw itemError(
			context,
			`Contract ${id} has its bank details already`,
			`${LABEL}: Lendasat keeps one set of bank details per contract, and this one has them (fiat_loan_details_borrower). Nothing was sent.`,
		);
	}
}
