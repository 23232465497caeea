import { randomUUID } from 'crypto';
import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	NodeOperationError,
} from 'n8n-workflow';

import type { ErrorGuidance } from '../../transport/errors';
import { MOON_CARD_LOAD_ERRORS } from '../card/shared';
import { bitcoinNetworkFor, isLendasatBackend } from '../../transport/credentials';
import { loanOfferModes } from '../../methods/offerPicker';
import { invalidParameter, itemError, type Check } from '../../validation/parameters';
import {
	apiRoute,
	credentialsOf,
	nodeOf,
	oncePerRun,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import {
	checkCollateralAddress,
	checkCompressedPublicKey,
	checkDerivationPath,
	checkNpub,
	checkOneOf,
	checkPositiveAmount,
	checkStablecoinAddress,
	checkUuid,
	checkWholeDays,
	toCents,
	parseJsonObject,
	toNumber,
} from '../../validation/checks';
import { clientContractIdFor, createContractOnce } from './createOnce';
import { CONTRACTS_PATH } from './shared';
import { requireCollateralKind } from './collateralKind';
import {
	borrowerNpubField,
	borrowerPublicKeyField,
	clientContractIdField,
	collateralAddressField,
	derivationPathField,
	loanTypeField,
	repaymentAddressField,
} from '../../descriptions/borrowerFields';
import { LOAN_TYPES } from '../../descriptions/loanTerms';

const showOnlyForContractCreate = { show: { resource: ['contract'], operation: ['create'] } };

/**
 * One value of the request: where the node reads it, which body fields carry it (the
 * specification's name first, then the live backend's), and how it is checked.
 */
interface RequestValue {
	parameter: string;
	label: string;
	/** Read from the Additional Fields collection rather than a parameter of its own. */
	additional?: boolean;
	bodyFields: string[];
	read: (
		value: unknown,
		network: ReturnType<typeof bitcoinNetworkFor>,
	) => { value: string | number } | { problem: string };
	/** The live backend refuses a request without it. */
	liveRequired?: boolean;
	/** What it is, for the error that names it when Lendasat's backend needs it. */
	explanation?: string;
}

const text =
	(check: Check): RequestValue['read'] =>
	(value) => {
		const problem = check(value);
		return problem ? { problem } : { value: String(value).trim() };
	};
const number =
	(check: Check): RequestValue['read'] =>
	(value) => {
		const problem = check(value);
		return problem ? { problem } : { value: toNumber(value) };
	};

/** A sum of money, checked and rounded to cents as Lendasat stores it. */
const money: RequestValue['read'] = (value) => {
	const problem = checkPositiveAmount(value);
	return problem ? { problem } : { value: toCents(toNumber(value)) };
};

const REQUEST_VALUES: RequestValue[] = [
	{
		parameter: 'loanId',
		label: 'Loan Offer',
		bodyFields: ['loan_id', 'id'],
		read: text(checkUuid),
	},
	{
		parameter: 'loanAmount',
		label: 'Loan Amount',
		bodyFields: ['loan_amount'],
		read: money,
	},
	{
		parameter: 'durationDays',
		label: 'Duration (Days)',
		bodyFields: ['duration_days'],
		read: number(checkWholeDays),
	},
	{
		parameter: 'collateralAddress',
		label: 'Collateral Address',
		additional: true,
		bodyFields: ['collateral_address', 'borrower_btc_address'],
		// Either kind here; the offer's collateral asset decides which one it must be (collateralKind.ts).
		read: (value, network) =>
			text((candidate) => checkCollateralAddress(candidate, network, 'either'))(value, network),
		liveRequired: true,
		explanation:
			'your Bitcoin address (an Ark address for an Arkade offer), where the collateral goes back after repayment',
	},
	{
		parameter: 'repaymentAddress',
		label: 'Repayment Address',
		additional: true,
		bodyFields: ['repayment_address', 'borrower_loan_address'],
		read: text(checkStablecoinAddress),
	},
	{
		parameter: 'borrowerPublicKey',
		label: 'Borrower Public Key',
		additional: true,
		bodyFields: ['borrower_pk'],
		read: text(checkCompressedPublicKey),
		liveRequired: true,
		explanation:
			"the compressed public key of your wallet's key that co-signs the collateral escrow",
	},
	{
		parameter: 'derivationPath',
		label: 'Derivation Path',
		additional: true,
		bodyFields: ['borrower_derivation_path'],
		read: text(checkDerivationPath),
		liveRequired: true,
		explanation: "the BIP-32 path of that key in your wallet, e.g. m/84'/0'/0'/0/0",
	},
	{
		parameter: 'loanType',
		label: 'Loan Type',
		additional: true,
		bodyFields: ['loan_type'],
		read: text(checkOneOf(LOAN_TYPES)),
		liveRequired: true,
		explanation: 'how the loan is paid out, e.g. StableCoin',
	},
	{
		parameter: 'clientContractId',
		label: 'Client Contract ID',
		additional: true,
		bodyFields: ['client_contract_id'],
		read: text(checkUuid),
	},
	{
		parameter: 'borrowerNpub',
		label: 'Nostr Public Key (Npub)',
		additional: true,
		bodyFields: ['borrower_npub'],
		read: text(checkNpub),
	},
	{
		parameter: 'moonCardId',
		label: 'Moon Card ID',
		additional: true,
		bodyFields: ['moon_card_id'],
		read: text(checkUuid),
	},
];

/** The live backend's serde rejection names its own field; the user needs the node's. */
const MISSING_FIELD_GUIDANCE: ErrorGuidance[] = REQUEST_VALUES.flatMap(({ label, bodyFields }) =>
	bodyFields.map((field) => ({
		statusCodes: [400, 422],
		text: new RegExp(`missing field \`${field}\``),
		message: `Lendasat needs ${label} (${field})`,
		hint: `set ${label}${REQUEST_VALUES.find((value) => value.label === label)?.additional ? ' in Additional Fields' : ''}; the live backend refuses a contract request without it.`,
	})),
).concat([
	{
		statusCodes: [400],
		text: /borrower loan address/i,
		message: 'Lendasat needs Repayment Address (borrower_loan_address)',
		hint: 'a stablecoin loan paid out directly needs your stablecoin address: set Repayment Address in Additional Fields.',
	},
]);

export const contractCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a contract',
	description: 'Ask for a loan from an offer; needs a borrower key',
	routing: apiRoute(
		{
			label: 'Contract → Create',
			toolDescription:
				'Create a contract request: borrows money by taking a loan offer; the borrower must then lock Bitcoin collateral',
			repeat: 'afterLookup',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'loanId', label: 'loan offer' },
			errors: [...MISSING_FIELD_GUIDANCE, ...MOON_CARD_LOAD_ERRORS],
		},
		{ method: 'POST', url: CONTRACTS_PATH },
		{ prepare: [buildContractRequest], send: createForCollateralKind },
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
		description: "Loan duration in whole days, within the offer's range",
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
			borrowerNpubField('Sent as borrower_npub; without it Lendasat uses its own.'),
			borrowerPublicKeyField("Sent as borrower_pk; Lendasat's backend requires it."),
			clientContractIdField(
				'Your own UUID for this contract, sent as client_contract_id and used to find it again so it is never created twice. Leave empty for one derived from the Idempotency Key.',
			),
			collateralAddressField(
				'Sent as collateral_address and borrower_btc_address. An Arkade offer (collateral_asset ArkadeBtc) takes an Ark address, any other an on-chain one: the node reads the offer to check which.',
			),
			derivationPathField("Sent as borrower_derivation_path; Lendasat's backend requires it."),
			{
				displayName: 'Extra Body Fields (JSON)',
				name: 'extraBodyFields',
				type: 'json',
				default: '{}',
				description: 'More fields for the request body, as a JSON object, e.g. fiat_loan_details',
			},
			loanTypeField("How the loan is paid out. Sent as loan_type; Lendasat's backend requires it."),
			{
				displayName: 'Moon Card ID',
				name: 'moonCardId',
				type: 'string',
				default: '',
				placeholder: 'e.g. 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
				description:
					'For Loan Type PayWithMoon: the PayWithMoon card the loan tops up (the ID of an item of Card → Get Many), sent as moon_card_id. Leave empty and Lendasat issues a new card.',
			},
			repaymentAddressField('Sent as repayment_address and borrower_loan_address.'),
		],
	},
];

/** Contract → Create once the Collateral Address is known to be of the kind the offer takes. */
async function createForCollateralKind(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	await requireCollateralKind(this, api, request.body as IDataObject);
	return await createContractOnce.call(this, api, request);
}

/**
 * Builds the whole body from the checked values, both dialects' names at once, plus the
 * client_contract_id and Idempotency-Key that make the request safe to repeat. The fields carry
 * no `routing.send` of their own: n8n would resolve each of them twice more per item for nothing.
 */
async function buildContractRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const credentials = await credentialsOf(this);
	const fields = this.getNodeParameter('additionalFields', {}) as IDataObject;
	const extra = readExtraBodyFields(this, fields.extraBodyFields);
	const network = bitcoinNetworkFor(credentials.environment);
	const body: IDataObject = {};
	const missing: RequestValue[] = [];

	for (const value of REQUEST_VALUES) {
		const read = readRequestValue(this, value, fields, extra, network);
		if (read === undefined) {
			if (value.liveRequired) missing.push(value);
			continue;
		}
		for (const field of value.bodyFields) body[field] = read;
	}
	if (missing.length && isLendasatBackend(credentials)) throw missingForLendasat(this, missing);

	const options = this.getNodeParameter('options', {}) as IDataObject;
	const idempotencyKey =
		readIdempotencyKey(this, options.idempotencyKey) ??
		(body.client_contract_id as string | undefined);
	const key = idempotencyKey ?? automaticIdempotencyKey(this);
	body.client_contract_id ??= clientContractIdFor(key);
	requestOptions.body = { ...body, ...extra };
	if (options.sendIdempotencyKey !== false) {
		requestOptions.headers = { ...requestOptions.headers, 'Idempotency-Key': key };
	}
	return requestOptions;
}

/**
 * A value from its parameter and from any of its body fields in Extra Body Fields (saved
 * workflows put the live backend's fields there), each checked; all of them must agree.
 * Undefined when none is given. Body fields found are taken out of `extra`.
 */
function readRequestValue(
	context: IExecuteSingleFunctions,
	value: RequestValue,
	fields: IDataObject,
	extra: IDataObject,
	network: ReturnType<typeof bitcoinNetworkFor>,
): string | number | undefined {
	const sources: Array<{ name: string; raw: unknown; fromJson: boolean }> = [];
	const raw = value.additional
		? fields[value.parameter]
		: context.getNodeParameter(
				value.parameter,
				undefined,
				value.parameter === 'loanId' ? { extractValue: true } : {},
			);
	if (raw !== undefined) sources.push({ name: value.label, raw, fromJson: false });
	for (const field of value.bodyFields) {
		if (!(field in extra)) continue;
		sources.push({ name: field, raw: extra[field], fromJson: true });
		delete extra[field];
	}

	let agreed: { name: string; value: string | number } | undefined;
	for (const source of sources) {
		const read = value.read(source.raw, network);
		if ('problem' in read) {
			throw source.fromJson
				? invalidParameter(context, EXTRA_FIELDS_LABEL, `${source.name}: ${read.problem}`)
				: invalidParameter(context, value.label, read.problem);
		}
		if (agreed && !sameValue(agreed.value, read.value)) {
			throw invalidParameter(
				context,
				EXTRA_FIELDS_LABEL,
				`${source.name} is ${JSON.stringify(read.value)} there, but ${agreed.name} is ${JSON.stringify(agreed.value)}; the node already sends ${value.bodyFields.join(' and ')} from ${value.label}, so remove it from the JSON.`,
			);
		}
		agreed ??= { name: source.name, value: read.value };
	}
	return agreed?.value;
}

function sameValue(a: string | number, b: string | number): boolean {
	return typeof a === 'string' && typeof b === 'string'
		? a.toLowerCase() === b.toLowerCase()
		: a === b;
}

const EXTRA_FIELDS_LABEL = 'Extra Body Fields (JSON)';

/** Every field name the node sends itself, as a clash check compares them. */
const OWN_FIELDS = new Map(
	REQUEST_VALUES.flatMap(({ bodyFields }) => bodyFields.map((field) => [looseName(field), field])),
);

/** Lower case, without underscores, dashes, white space or invisible characters. */
function looseName(name: string): string {
	return name.toLowerCase().replace(/[\s_\-\u200b-\u200f\u2060\ufeff]/g, '');
}

/** The extra fields as an object (a copy), refusing near-misses of the node's own field names. */
function readExtraBodyFields(context: IExecuteSingleFunctions, value: unknown): IDataObject {
	if (value === undefined) return {};
	const parsed = parseJsonObject(value);
	if ('error' in parsed) throw invalidParameter(context, EXTRA_FIELDS_LABEL, parsed.error);
	for (const name of Object.keys(parsed.value)) {
		const own = OWN_FIELDS.get(looseName(name));
		if (own !== undefined && own !== name) {
			throw invalidParameter(
				context,
				EXTRA_FIELDS_LABEL,
				`${JSON.stringify(name)} looks like ${own}, which the node sends itself; use the node's parameter instead.`,
			);
		}
	}
	return { ...(parsed.value as IDataObject) };
}

function missingForLendasat(
	context: IExecuteSingleFunctions,
	missing: RequestValue[],
): NodeOperationError {
	const names = missing.map(({ label }) => label).join(', ');
	return itemError(
		context,
		`Lendasat needs ${names} to create a contract`,
		`Contract → Create: Lendasat's backend refuses a contract request without ${missing
			.map(
				({ label, bodyFields, explanation }) =>
					`${label} (${bodyFields.join('/')}: ${explanation})`,
			)
			.join('; ')}. Add ${missing.length === 1 ? 'it' : 'them'} in Additional Fields.`,
	);
}

/** The user's Idempotency Key as text (an expression may give a number), or undefined when empty. */
function readIdempotencyKey(context: IExecuteSingleFunctions, value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const key =
		typeof value === 'number' && Number.isFinite(value)
			? String(value)
			: typeof value === 'string'
				? value.trim()
				: undefined;
	if (key === '') return undefined;
	if (key === undefined || !/^[\x21-\x7e]{1,255}$/.test(key)) {
		throw invalidParameter(
			context,
			'Idempotency Key',
			'use 1 to 255 printable characters without spaces, e.g. order-1042.',
		);
	}
	return key;
}

/** The run index, evaluated once per run: an expression evaluation is costly at a thousand items. */
const runIndexOf = oncePerRun((context) =>
	String(context.evaluateExpression('{{ $runIndex }}', context.getItemIndex())),
);

/**
 * The key must be the same for this item in every retry, ours and n8n's Retry On Fail, and
 * different for every other item, run and node: a repeated key would silently return an earlier
 * contract instead of creating a new one.
 */
function automaticIdempotencyKey(context: IExecuteSingleFunctions): string {
	const executionId = context.getExecutionId();
	// Without an execution ID there is nothing stable to build on; a random key still protects our own retries.
	if (!executionId) return `n8n-${randomUUID()}`;
	return `n8n-${executionId}-${nodeOf(context).id}-${runIndexOf(context)}-${context.getItemIndex()}`;
}
