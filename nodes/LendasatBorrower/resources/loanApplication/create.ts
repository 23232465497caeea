import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import {
	borrowerNpubField,
	borrowerPublicKeyField,
	clientContractIdField,
	collateralAddressField,
	derivationPathField,
	loanTypeField,
	repaymentAddressField,
} from '../../descriptions/borrowerFields';
import {
	FIAT_LOAN_ASSETS,
	LOAN_ASSET_OPTIONS,
	LOAN_ASSETS,
	LOAN_TYPE_OPTIONS,
	LOAN_TYPES,
	REPAYMENT_PLAN_OPTIONS,
	REPAYMENT_PLANS,
} from '../../descriptions/loanTerms';
import { apiRoute, credentialsOf } from '../../transport/apiRoute';
import { bitcoinNetworkFor } from '../../transport/credentials';
import {
	checkCollateralAddress,
	checkCompressedPublicKey,
	checkDerivationPath,
	checkNpub,
	checkOneOf,
	checkStablecoinAddress,
	checkUuid,
} from '../../validation/checks';
import { invalidParameter, requireText } from '../../validation/parameters';
import { postApplicationOnce } from './postOnce';
import {
	BLOCKED_ACCOUNT_GUIDANCE,
	LOAN_APPLICATIONS_PATH,
	RESOURCE,
	TERMS,
	TERMS_GUIDANCE,
	checkTermRanges,
	readTerm,
	simplifyLoanApplications,
	type LoanTerms,
} from './shared';

const showOnlyForCreate = { show: { resource: [RESOURCE], operation: ['create'] } };

export const loanApplicationCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a loan application',
	description:
		'Post your own loan terms for lenders to take. Returns the application (status Available) with its ID, loan_deal_id.',
	routing: apiRoute(
		{
			label: 'Loan Application → Create',
			toolDescription:
				'Create a loan application: posts your own loan terms (amounts, durations, LTV, interest) for lenders to take; a lender taking it opens a contract that needs your Bitcoin collateral',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			errors: [BLOCKED_ACCOUNT_GUIDANCE, ...TERMS_GUIDANCE],
		},
		{ method: 'POST', url: LOAN_APPLICATIONS_PATH },
		{
			prepare: [buildLoanApplication],
			send: postApplicationOnce,
			finish: [simplifyLoanApplications],
		},
	),
};

/** Fiat needs no stablecoin address: the options say so without the Extra Body Fields Contract → Create has. */
const LOAN_TYPE_OPTIONS_FOR_APPLICATIONS = LOAN_TYPE_OPTIONS.map((option) =>
	option.value === 'Fiat'
		? { ...option, description: 'Bank transfer, in USD, EUR, CHF or MXN' }
		: option,
);

export const loanApplicationCreateFields: INodeProperties[] = [
	...TERMS.map(({ property }) => ({
		...property,
		required: true,
		displayOptions: showOnlyForCreate,
	})),
	{
		displayName: 'Loan Asset',
		name: 'loanAsset',
		type: 'options',
		required: true,
		options: LOAN_ASSET_OPTIONS,
		default: 'UsdcPol',
		description: 'The asset you want the loan paid out in. Sent as loan_asset.',
		displayOptions: showOnlyForCreate,
	},
	{
		...loanTypeField(
			'How the loan is paid out. Sent as loan_type.',
			LOAN_TYPE_OPTIONS_FOR_APPLICATIONS,
		),
		required: true,
		displayOptions: showOnlyForCreate,
	},
	{
		displayName: 'Repayment Plan',
		name: 'repaymentPlan',
		type: 'options',
		required: true,
		options: REPAYMENT_PLAN_OPTIONS,
		default: 'bullet',
		description:
			'How you repay: all at the end, or interest weekly or monthly. Sent as repayment_plan.',
		displayOptions: showOnlyForCreate,
	},
	{
		...borrowerPublicKeyField('Sent as borrower_pk.'),
		required: true,
		displayOptions: showOnlyForCreate,
	},
	{
		...derivationPathField('Sent as borrower_derivation_path.'),
		required: true,
		displayOptions: showOnlyForCreate,
	},
	{
		...collateralAddressField(
			'Sent as borrower_btc_address. An application names no collateral asset, so either kind is accepted.',
		),
		required: true,
		displayOptions: showOnlyForCreate,
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showOnlyForCreate,
		options: [
			clientContractIdField(
				'Your own UUID for your records, sent as client_contract_id and returned with the application',
			),
			borrowerNpubField('Sent as borrower_npub; without it Lendasat uses its own.'),
			repaymentAddressField('Sent as borrower_loan_address.'),
		],
	},
];

/** The request body: every value checked, none sent when any is wrong. */
async function buildLoanApplication(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const terms = {} as LoanTerms;
	for (const term of TERMS)
		terms[term.field] = readTerm(this, term, this.getNodeParameter(term.parameter));
	checkTermRanges(this, terms);

	const loanAsset = requireText(
		this,
		'Loan Asset',
		this.getNodeParameter('loanAsset'),
		checkOneOf(LOAN_ASSETS),
	);
	const loanType = requireText(
		this,
		'Loan Type',
		this.getNodeParameter('loanType'),
		checkOneOf(LOAN_TYPES),
	);
	checkAssetFitsType(this, loanAsset, loanType);
	const repaymentPlan = requireText(
		this,
		'Repayment Plan',
		this.getNodeParameter('repaymentPlan'),
		checkOneOf(REPAYMENT_PLANS),
	);

	const network = bitcoinNetworkFor((await credentialsOf(this)).environment);
	const body: IDataObject = {
		...terms,
		loan_asset: loanAsset,
		loan_type: loanType,
		repayment_plan: repaymentPlan,
		borrower_pk: requireText(
			this,
			'Borrower Public Key',
			this.getNodeParameter('borrowerPublicKey'),
			checkCompressedPublicKey,
		),
		borrower_derivation_path: requireText(
			this,
			'Derivation Path',
			this.getNodeParameter('derivationPath'),
			checkDerivationPath,
		),
		borrower_btc_address: requireText(
			this,
			'Collateral Address',
			this.getNodeParameter('collateralAddress'),
			// An application names no offer, so no collateral asset (CreateLoanApplicationSchema): either kind.
			(value) => checkCollateralAddress(value, network, 'either'),
		),
	};

	const fields = this.getNodeParameter('additionalFields', {}) as IDataObject;
	const optional: Array<[string, string, string, (value: unknown) => string | null]> = [
		['repaymentAddress', 'Repayment Address', 'borrower_loan_address', checkStablecoinAddress],
		['borrowerNpub', 'Nostr Public Key (Npub)', 'borrower_npub', checkNpub],
		['clientContractId', 'Client Contract ID', 'client_contract_id', checkUuid],
	];
	for (const [parameter, label, field, check] of optional) {
		const value = fields[parameter];
		// An empty optional field is left out, as if it was never added.
		if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
			continue;
		body[field] = requireText(this, label, value, check);
	}
	requestOptions.body = body;
	return requestOptions;
}

/**
 * Lendasat takes any pair, but a lender could never pay out a mismatched one: a fiat loan goes by
 * bank transfer, a stablecoin one to a stablecoin address, and Moon cards take USDC on Polygon only.
 */
function checkAssetFitsType(
	context: IExecuteSingleFunctions,
	loanAsset: string,
	loanType: string,
): void {
	const fiat = FIAT_LOAN_ASSETS.includes(loanAsset);
	let problem: string | undefined;
	if (loanType === 'Fiat' && !fiat) {
		problem = `Loan Type Fiat is paid by bank transfer, so the Loan Asset must be USD, EUR, CHF or MXN, not ${loanAsset}.`;
	} else if (loanType === 'StableCoin' && fiat) {
		problem = `Loan Type Stablecoin is paid in a stablecoin, so the Loan Asset must be a USDC or USDT one, not ${loanAsset}; use Loan Type Fiat for a bank transfer.`;
	} else if (
		(loanType === 'PayWithMoon' || loanType === 'MoonCardInstant') &&
		loanAsset !== 'UsdcPol'
	) {
		problem = `Moon cards are topped up in USDC on Polygon only, so the Loan Asset must be UsdcPol, not ${loanAsset}.`;
	}
	if (problem) throw invalidParameter(context, 'Loan Asset', problem);
}
