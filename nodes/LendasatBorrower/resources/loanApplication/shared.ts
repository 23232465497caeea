import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { pickFields, simplifyField, simplifyItems } from '../../descriptions/fields';
import type { ErrorGuidance } from '../../transport/errors';
import { invalidParameter, requireIssuedId, type Check } from '../../validation/parameters';
import {
	checkInterestRate,
	checkLoanToValue,
	checkPositiveAmount,
	toCents,
	checkRange,
	checkWholeDays,
	isRecord,
	toNumber,
} from '../../validation/checks';

export const RESOURCE = 'loanApplication';

/** The path of the API's loan applications; one is `${PATH}/{loan_deal_id}`. */
export const LOAN_APPLICATIONS_PATH = '/api/loan-applications';

// ---------------------------------------------------------------------------------------------
// The loan application's ID

export const loanApplicationIdField: INodeProperties = {
	displayName: 'Loan Application ID',
	name: 'loanApplicationId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 7a3f2c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
	description:
		'The loan_deal_id of the application, as Create, Get Many or Update returned it. An Update gives the application a new ID: use the newest one.',
	displayOptions: { show: { resource: [RESOURCE], operation: ['delete', 'get', 'update'] } },
};

/** The loan application ID of the current item, checked, without surrounding white space, in lower case as Lendasat issues them. */
export function loanApplicationIdOf(context: IExecuteSingleFunctions): string {
	return requireIssuedId(
		context,
		'Loan Application ID',
		context.getNodeParameter('loanApplicationId', ''),
	);
}

const hasId = (record: unknown): boolean =>
	isRecord(record) && typeof record.loan_deal_id === 'string' && record.loan_deal_id !== '';

/** An application is of use only with its ID. */
export const applicationAnswer = (body: unknown): string | undefined =>
	hasId(body) ? undefined : 'it has no loan_deal_id, the ID of a loan application';

/** A list of applications is of use only when each has its ID. */
export const applicationListAnswer = (body: unknown): string | undefined =>
	Array.isArray(body) && !body.every(hasId)
		? 'a record in it has no loan_deal_id, the ID of a loan application'
		: undefined;

export function loanApplicationPath(id: string, action?: 'edit' | 'delete'): string {
	return `${LOAN_APPLICATIONS_PATH}/${action ? `${action}/` : ''}${encodeURIComponent(id)}`;
}

// ---------------------------------------------------------------------------------------------
// The six terms Create sets and Update can change

/** The API's names of the terms, in the order the node shows and sends them. */
export type TermName =
	| 'ltv'
	| 'interest_rate'
	| 'loan_amount_min'
	| 'loan_amount_max'
	| 'duration_days_min'
	| 'duration_days_max';

export type LoanTerms = Record<TermName, number>;

interface Term {
	field: TermName;
	parameter: string;
	label: string;
	check: Check;
	/** A sum of money: sent rounded to cents. */
	money?: true;
	property: INodeProperties;
}

export const TERMS: Term[] = [
	{
		field: 'ltv',
		parameter: 'ltv',
		label: 'Loan-to-Value (LTV)',
		check: checkLoanToValue,
		property: {
			displayName: 'Loan-to-Value (LTV)',
			name: 'ltv',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 4 },
			default: 0.5,
			description:
				'How much you borrow against the collateral, as a decimal from 0 to 1: 0.5 means the loan is half the value of your Bitcoin collateral. Sent as ltv.',
		},
	},
	{
		field: 'interest_rate',
		parameter: 'interestRate',
		label: 'Interest Rate',
		check: checkInterestRate,
		property: {
			displayName: 'Interest Rate',
			name: 'interestRate',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 4 },
			default: 0.12,
			description:
				'The yearly interest rate you offer to pay, as a decimal from 0 to 1: 0.12 means 12%. Sent as interest_rate.',
		},
	},
	{
		field: 'loan_amount_min',
		parameter: 'loanAmountMin',
		label: 'Min Loan Amount',
		check: checkPositiveAmount,
		money: true,
		property: {
			displayName: 'Min Loan Amount',
			name: 'loanAmountMin',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				'The smallest amount you would borrow, in the loan asset (e.g. USD for USDC); more than 0. Sent as loan_amount_min.',
		},
	},
	{
		field: 'loan_amount_max',
		parameter: 'loanAmountMax',
		label: 'Max Loan Amount',
		check: checkPositiveAmount,
		money: true,
		property: {
			displayName: 'Max Loan Amount',
			name: 'loanAmountMax',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				'The largest amount you would borrow, at least Min Loan Amount. Sent as loan_amount_max.',
		},
	},
	{
		field: 'duration_days_min',
		parameter: 'durationDaysMin',
		label: 'Min Duration (Days)',
		check: checkWholeDays,
		property: {
			displayName: 'Min Duration (Days)',
			name: 'durationDaysMin',
			type: 'number',
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 30,
			description:
				'The shortest loan you would take, in whole days (at least 1). Sent as duration_days_min.',
		},
	},
	{
		field: 'duration_days_max',
		parameter: 'durationDaysMax',
		label: 'Max Duration (Days)',
		check: checkWholeDays,
		property: {
			displayName: 'Max Duration (Days)',
			name: 'durationDaysMax',
			type: 'number',
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 180,
			description:
				'The longest loan you would take, in whole days, at least Min Duration. Sent as duration_days_max.',
		},
	},
];

/** One term's value, checked on its own; `label` names where it came from. */
export function readTerm(
	context: IExecuteSingleFunctions,
	term: Term,
	value: unknown,
	label = term.label,
): number {
	const problem = term.check(value);
	if (problem) throw invalidParameter(context, label, problem);
	return term.money ? toCents(toNumber(value)) : toNumber(value);
}

/**
 * The ranges of a complete set of terms: minimum amount and duration not above the maximum. `from`
 * says where a value came from when the user did not give it (Update keeps the current value).
 */
export function checkTermRanges(
	context: IExecuteSingleFunctions,
	terms: LoanTerms,
	from: (field: TermName) => string = () => '',
): LoanTerms {
	const label = (field: TermName) =>
		`${TERMS.find((term) => term.field === field)?.label ?? field}${from(field)}`;
	const ranges: Array<[TermName, TermName]> = [
		['loan_amount_min', 'loan_amount_max'],
		['duration_days_min', 'duration_days_max'],
	];
	for (const [min, max] of ranges) {
		const problem = checkRange(terms[min], terms[max], label(max));
		if (problem) throw invalidParameter(context, label(min), problem);
	}
	return terms;
}

// ---------------------------------------------------------------------------------------------
// What the server's refusals mean

/**
 * Lendasat answers 400 "Invalid request" to a jailed (blocked) borrower on create, get and edit;
 * the sandbox's spec dialect answers 403 ACCOUNT_BLOCKED.
 */
export const BLOCKED_ACCOUNT_GUIDANCE: ErrorGuidance = {
	statusCodes: [400, 403],
	codes: ['ACCOUNT_BLOCKED'],
	text: /^invalid request\.?$/i,
	message: 'Lendasat refuses loan applications for this borrower account',
	hint: 'Lendasat answers "Invalid request" when the borrower account is blocked. Trying again will not help: contact Lendasat support.',
};

/** The create handler's own checks (the node makes the same ones first; an edit is not checked by Lendasat). */
export const TERMS_GUIDANCE: ErrorGuidance[] = [
	{
		statusCodes: [400],
		codes: ['INVALID_LTV'],
		text: /^LTV must be between 0 and 1/i,
		message: 'Lendasat rejected the loan-to-value ratio',
		hint: 'Loan-to-Value (LTV) must be a decimal between 0 and 1, e.g. 0.5 for 50%.',
	},
	{
		statusCodes: [400],
		codes: ['INVALID_INTEREST_RATE'],
		text: /^Interest rate must be between 0 and 1/i,
		message: 'Lendasat rejected the interest rate',
		hint: 'Interest Rate is a yearly rate as a decimal between 0 and 1, e.g. 0.12 for 12%.',
	},
	{
		statusCodes: [400],
		codes: ['INVALID_AMOUNT'],
		text: /^Loan amount not valid/i,
		message: 'Lendasat rejected the loan amount range',
		hint: 'Min Loan Amount and Max Loan Amount must both be more than 0, and the minimum must not exceed the maximum.',
	},
	{
		statusCodes: [400],
		codes: ['INVALID_DURATION'],
		text: /^Duration not valid/i,
		message: 'Lendasat rejected the duration range',
		hint: 'Min Duration (Days) must be at least 1 and must not exceed Max Duration (Days).',
	},
];

// ---------------------------------------------------------------------------------------------
// Simplify

/**
 * What a workflow needs of an application: its ID and status, and the terms a lender sees. The
 * full record also carries the borrower's ID, keys and addresses, which the workflow sent itself.
 */
const SIMPLIFIED_FIELDS = [
	'loan_deal_id',
	'status',
	'loan_asset',
	'loan_type',
	'loan_amount_min',
	'loan_amount_max',
	'duration_days_min',
	'duration_days_max',
	'ltv',
	'interest_rate',
	'repayment_plan',
	'client_contract_id',
	'created_at',
	'updated_at',
];

export function simplifyLoanApplication(application: IDataObject): IDataObject {
	return pickFields(application, SIMPLIFIED_FIELDS);
}

/** The finish of the operations' Simplify switch. */
export async function simplifyLoanApplications(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return simplifyItems(this, items, simplifyLoanApplication);
}

export const loanApplicationSimplifyField = simplifyField({
	resource: [RESOURCE],
	operation: ['create', 'get', 'getAll', 'update'],
});

// ---------------------------------------------------------------------------------------------
// Statuses

/**
 * Statuses Lendasat does not guard: an edit posts a Deleted or Taken application again as a new one,
 * and a delete relabels a Taken one as Deleted although its contract goes on. The node refuses those.
 */
export const TAKEN = 'Taken';
export const DELETED = 'Deleted';

export function statusOf(application: IDataObject): string {
	return typeof application.status === 'string' ? application.status : '';
}
