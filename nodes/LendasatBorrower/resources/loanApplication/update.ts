import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import {
	apiRoute,
	takingTurnsPerRun,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { describeValue, isRecord } from '../../validation/checks';
import { invalidParameter, itemError } from '../../validation/parameters';
import {
	BLOCKED_ACCOUNT_GUIDANCE,
	DELETED,
	applicationAnswer,
	LOAN_APPLICATIONS_PATH,
	RESOURCE,
	TAKEN,
	TERMS,
	TERMS_GUIDANCE,
	checkTermRanges,
	loanApplicationIdOf,
	loanApplicationPath,
	readTerm,
	simplifyLoanApplications,
	statusOf,
	type LoanTerms,
	type TermName,
} from './shared';

const LABEL = 'Loan Application → Update';

export const loanApplicationUpdateOperation: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	action: 'Update a loan application',
	description:
		'Change the terms of one of your loan applications; fields you leave out keep their current value. Lendasat posts the changed application under a new ID (loan_deal_id in the output) and marks the old one (previous_loan_deal_id) Deleted.',
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				'Update a loan application: changes its amounts, durations, LTV or interest rate; Lendasat replaces it, so the result has a NEW loan_deal_id and the old ID becomes Deleted',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			notFound: { parameter: 'loanApplicationId', label: 'loan application' },
			errors: [
				BLOCKED_ACCOUNT_GUIDANCE,
				...TERMS_GUIDANCE,
				{
					// Lendasat inserts the new application, then marks the old one Deleted in a second step.
					statusCodes: [500, 502, 503, 504],
					message: 'Lendasat could not confirm the update of the loan application',
					hint: 'it may already have posted the changed application under a new ID. Before running this again, look at Loan Application → Get Many with Include Deleted: a new Available application with the new terms means the update happened.',
				},
			],
		},
		// The preSend puts the checked ID into the path.
		{ method: 'PUT', url: `${LOAN_APPLICATIONS_PATH}/edit` },
		{
			prepare: [checkUpdate],
			send: readMergeWrite,
			finish: [simplifyLoanApplications, namePreviousId],
		},
	),
};

export const loanApplicationUpdateFields: INodeProperties[] = [
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'The terms to change; the others keep their current value',
		displayOptions: { show: { resource: [RESOURCE], operation: ['update'] } },
		options: TERMS.map(({ property }) => property).sort((a, b) =>
			a.displayName.localeCompare(b.displayName),
		),
	},
];

/** The changed terms, each checked on its own; at least one. */
function readChanges(context: IExecuteSingleFunctions): Partial<LoanTerms> {
	const fields: unknown = context.getNodeParameter('updateFields', {});
	if (!isRecord(fields))
		throw invalidParameter(
			context,
			'Update Fields',
			`Expected a collection of fields, got ${describeValue(fields)}.`,
		);
	const changes: Partial<LoanTerms> = {};
	for (const term of TERMS) {
		if (fields[term.parameter] !== undefined)
			changes[term.field] = readTerm(context, term, fields[term.parameter]);
	}
	if (Object.keys(changes).length === 0) {
		throw invalidParameter(
			context,
			'Update Fields',
			'Add at least one field to change. An update with nothing changed would still replace the application with a copy under a new ID.',
		);
	}
	return changes;
}

/** Everything the user gave is checked before anything is sent; the ID goes into the path. */
async function checkUpdate(
	this: IExecuteSingleFunctions,
	request: OperationRequest,
): Promise<OperationRequest> {
	const id = loanApplicationIdOf(this);
	readChanges(this);
	return { ...request, url: loanApplicationPath(id, 'edit') };
}

/**
 * Lendasat's edit needs all six terms and checks none of them, and it revives a Deleted or Taken
 * application as a new one: so the application is read first, refused in those states, merged with
 * the changes and checked like Create before the PUT.
 */
async function readMergeWrite(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const id = loanApplicationIdOf(this);
	const changes = readChanges(this);
	// Items of one run updating the same application take turns: the second then finds it Deleted.
	const updated = await inTurn(this, api, `${api.keyIdentity} ${id}`, () =>
		readAndReplace(this, api, request, id, changes),
	);
	return [{ json: updated as IDataObject }];
}

/** Per key and application, the update of the item before in this run. */
const inTurn = takingTurnsPerRun();

async function readAndReplace(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
	id: string,
	changes: Partial<LoanTerms>,
): Promise<unknown> {
	const current = (await api.send({ method: 'GET', url: loanApplicationPath(id) }, 'object', {
		check: applicationAnswer,
	})) as IDataObject;
	refuseFinished(context, id, statusOf(current));

	const terms = {} as LoanTerms;
	for (const term of TERMS) {
		terms[term.field] =
			changes[term.field] ??
			readTerm(
				context,
				term,
				current[term.field],
				`${term.label} (the application's current value)`,
			);
	}
	const fromApplication = (field: TermName) =>
		changes[field] === undefined ? " (the application's current value)" : '';
	checkTermRanges(context, terms, fromApplication);

	return await api.send({ ...request, body: terms }, 'object', { check: applicationAnswer });
}

function refuseFinished(context: IExecuteSingleFunctions, id: string, status: string): void {
	if (status !== DELETED && status !== TAKEN) return;
	const why =
		status === DELETED
			? 'It was deleted, or an earlier Update replaced it with a new ID. Lendasat would post it again as a new application. Update its newest ID instead (Loan Application → Get Many lists them), or use Create.'
			: 'A lender took it and a contract was opened from it. Lendasat would post it again as a new application. Use Create to post new terms.';
	throw itemError(
		context,
		`Loan application ${id} is ${status} and cannot be updated`,
		`${LABEL}: nothing was changed. ${why}`,
	);
}

/** The output says which ID is new and which one Lendasat retired. */
async function namePreviousId(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const previous = loanApplicationIdOf(this);
	return items.map((item) => {
		const { loan_deal_id: id, ...rest } = item.json;
		const replaced = typeof id === 'string' && id !== previous;
		return {
			...item,
			json: {
				loan_deal_id: id,
				previous_loan_deal_id: previous,
				...rest,
				note: replaced
					? `Lendasat posted the updated application under a new ID: use loan_deal_id ${id} from now on. The previous ID ${previous} is now Deleted.`
					: 'The application kept its ID.',
			},
		};
	});
}
