import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { requireValid } from '../../validation/parameters';
import { apiRoute } from '../../transport/apiRoute';
import { checkWholeDays, describeValue, isRecord, toNumber } from '../../validation/checks';
import { CONTRACTS_PATH, sendToContract, simplifyContracts } from './shared';

/*
 * POST without an idempotency key: the transport retries it only on 429 (not processed), never
 * after a failure where the server may already have created the extension.
 */
export const contractExtendOperation: INodePropertyOptions = {
	name: 'Extend',
	value: 'extend',
	action: 'Extend a contract',
	description:
		'Ask to extend a running loan by a number of days. Returns the new contract; the old one becomes Extended.',
	routing: apiRoute(
		{
			label: 'Contract → Extend',
			toolDescription:
				'Extend a contract: borrows for longer at extra interest; the old contract ends and a new one is returned',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: newContractAnswer,
			notFound: { parameter: 'contractId', label: 'contract' },
			errors: [
				{
					statusCodes: [400],
					codes: ['INVALID_DURATION'],
					text: /maximum extension|duration cannot be zero/i,
					message: 'Too many days to add for this contract',
					hint: "Days to Add must not exceed the contract's extension_max_duration_days (Contract → Get with Simplify off shows it).",
				},
				{
					statusCodes: [400],
					codes: ['INVALID_STATE', 'EXTENSION_NOT_ALLOWED'],
					text: /cannn?ot be extended|only be extended/i,
					message: 'The contract cannot be extended now',
					hint: 'only a running loan (status PrincipalGiven) whose offer allows extensions (can_extend) can be extended, and Lendasat may require half of its duration to have passed. Contract → Get shows status and can_extend.',
				},
			],
		},
		// sendToContract puts the checked contract ID in place of {id}.
		{ method: 'POST', url: `${CONTRACTS_PATH}/{id}/extend` },
		{ prepare: [sendToContract, addExtensionBody], finish: [simplifyContracts] },
	),
};

export const contractExtendFields: INodeProperties[] = [
	{
		displayName: 'Days to Add',
		name: 'days',
		type: 'number',
		required: true,
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 30,
		description:
			"Whole days added to the loan's duration, at most the contract's extension_max_duration_days",
		displayOptions: { show: { resource: ['contract'], operation: ['extend'] } },
	},
];

/** The answer is the new contract: without its id a workflow could not go on with it. */
function newContractAnswer(body: unknown): string | undefined {
	const id = isRecord(body) ? body.id : undefined;
	if (typeof id === 'string' && id.trim() !== '') return undefined;
	return id === undefined
		? 'it holds no id of the new contract'
		: `its id ${describeValue(id)} is not a contract ID`;
}

async function addExtensionBody(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const days = requireValid(this, 'Days to Add', this.getNodeParameter('days'), checkWholeDays);
	requestOptions.body = { new_duration: toNumber(days) };
	return requestOptions;
}
