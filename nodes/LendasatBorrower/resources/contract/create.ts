import { randomUUID } from 'crypto';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { bitcoinNetworkFor } from '../../shared/credentials';
import { loanOfferModes } from '../../shared/offerPicker';
import { invalidParameter, requireText, requireValid } from '../../shared/parameters';
import { apiRoute, credentialsOf } from '../../shared/transport';
import {
	checkBitcoinAddress,
	checkPositiveAmount,
	checkStablecoinAddress,
	checkUuid,
	checkWholeDays,
	parseJsonObject,
	toNumber,
} from '../../shared/validation';

const showOnlyForContractCreate = { show: { resource: ['contract'], operation: ['create'] } };

/** Body fields the node sends itself; extra JSON may not override them. */
const SPEC_BODY_FIELDS = ['loan_id', 'loan_amount', 'duration_days', 'collateral_address', 'repayment_address'];

export const contractCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a contract request',
	description: 'Ask for a loan from an offer; needs a borrower key',
	routing: apiRoute(
		{
			resource: 'contract',
			operation: 'create',
			label: 'Contract → Create',
			keyType: 'borrower',
			notFound: { parameter: 'loanId', label: 'loan offer' },
		},
		{ method: 'POST', url: '/api/contracts' },
		{ preSend: [validateContractRequest, addExtraBodyFields, addIdempotencyKey] },
	),
};

export const contractCreateFields: INodeProperties[] = [
	{
		displayName: 'Loan Offer',
		name: 'loanId',
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		description: 'The loan offer to take',
		displayOptions: showOnlyForContractCreate,
		// "From List" first; saved "By ID" values and plain ID strings keep working.
		modes: loanOfferModes,
	},
	{
		displayName: 'Loan Amount',
		name: 'loanAmount',
		type: 'number',
		required: true,
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: "Amount to borrow, in the offer's loan asset (e.g. USD for USDC)",
		displayOptions: showOnlyForContractCreate,
	},
	{
		displayName: 'Duration (Days)',
		name: 'durationDays',
		type: 'number',
		required: true,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 30,
		description: 'Loan duration in whole days, within the offer\'s range',
		displayOptions: showOnlyForContractCreate,
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: showOnlyForContractCreate,
		options: [
			{
				displayName: 'Collateral Address',
				name: 'collateralAddress',
				type: 'string',
				default: '',
				placeholder: 'e.g. bc1q…',
				description:
					"Bitcoin address of the borrower (mainnet in production; tb1…, m…, n… or 2… in development)",
			},
			{
				displayName: 'Extra Body Fields (JSON)',
				name: 'extraBodyFields',
				type: 'json',
				default: '{}',
				description:
					'More fields to send in the request body, as a JSON object. The live Lendasat backend also needs e.g. borrower_btc_address, borrower_pk, borrower_derivation_path, loan_type and borrower_loan_address.',
			},
			{
				displayName: 'Repayment Address',
				name: 'repaymentAddress',
				type: 'string',
				default: '',
				placeholder: 'e.g. 0x52908400098527886E0F7030069857D2E4169EE7',
				description: 'Address on the stablecoin chain of the loan',
			},
		],
	},
];

/**
 * Builds the whole body from the checked values. The fields carry no `routing.send` of their own:
 * n8n would resolve each of them twice more per item for nothing.
 */
async function validateContractRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const body = requestOptions.body as IDataObject;
	const loanId = this.getNodeParameter('loanId', '', { extractValue: true });
	body.loan_id = requireText(this, 'Loan Offer', loanId, checkUuid);
	body.loan_amount = toNumber(requireValid(this, 'Loan Amount', this.getNodeParameter('loanAmount'), checkPositiveAmount));
	body.duration_days = toNumber(requireValid(this, 'Duration (Days)', this.getNodeParameter('durationDays'), checkWholeDays));

	const fields = this.getNodeParameter('additionalFields', {}) as IDataObject;
	if ('collateralAddress' in fields) {
		const { environment } = await credentialsOf(this);
		const network = bitcoinNetworkFor(environment);
		body.collateral_address = requireText(this, 'Collateral Address', fields.collateralAddress, (value) =>
			checkBitcoinAddress(value, network),
		);
	}
	if ('repaymentAddress' in fields) {
		body.repayment_address = requireText(
			this,
			'Repayment Address',
			fields.repaymentAddress,
			checkStablecoinAddress,
		);
	}
	return requestOptions;
}

async function addExtraBodyFields(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const { extraBodyFields } = this.getNodeParameter('additionalFields', {}) as IDataObject;
	if (extraBodyFields === undefined) return requestOptions;
	const parsed = parseJsonObject(extraBodyFields);
	if ('error' in parsed) throw invalidParameter(this, 'Extra Body Fields (JSON)', parsed.error);
	const clashes = Object.keys(parsed.value).filter((field) => SPEC_BODY_FIELDS.includes(field));
	if (clashes.length) {
		throw invalidParameter(
			this,
			'Extra Body Fields (JSON)',
			`${clashes.join(', ')} ${clashes.length === 1 ? 'is' : 'are'} already sent from the node's own parameters; remove ${clashes.length === 1 ? 'it' : 'them'} from the JSON.`,
		);
	}
	Object.assign(requestOptions.body as IDataObject, parsed.value);
	return requestOptions;
}

/**
 * The key must be the same for this item in every retry, ours and n8n's Retry On Fail, and
 * different for every other item, run and node: a repeated key would silently return an earlier
 * contract instead of creating a new one.
 */
async function addIdempotencyKey(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const options = this.getNodeParameter('options', {}) as IDataObject;
	if (options.sendIdempotencyKey === false) return requestOptions;
	const custom = typeof options.idempotencyKey === 'string' ? options.idempotencyKey.trim() : '';
	const key = custom || automaticIdempotencyKey(this);
	if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
		throw invalidParameter(
			this,
			'Idempotency Key',
			'use 1 to 255 printable characters without spaces, e.g. order-1042.',
		);
	}
	requestOptions.headers = { ...requestOptions.headers, 'Idempotency-Key': key };
	return requestOptions;
}

/** The run index, evaluated once per run of the node: all items of a run share its execute data. */
const runIndexOfRun = new WeakMap<object, string>();

function runIndexOf(context: IExecuteSingleFunctions): string {
	const run: unknown = context.getExecuteData();
	if (!run || typeof run !== 'object') return String(context.evaluateExpression('{{ $runIndex }}', context.getItemIndex()));
	let runIndex = runIndexOfRun.get(run);
	if (runIndex === undefined) {
		runIndex = String(context.evaluateExpression('{{ $runIndex }}', context.getItemIndex()));
		runIndexOfRun.set(run, runIndex);
	}
	return runIndex;
}

function automaticIdempotencyKey(context: IExecuteSingleFunctions): string {
	const executionId = context.getExecutionId();
	// Without an execution ID there is nothing stable to build on; a random key still protects our own retries.
	if (!executionId) return `n8n-${randomUUID()}`;
	return `n8n-${executionId}-${context.getNode().id}-${runIndexOf(context)}-${context.getItemIndex()}`;
}
