import type { IExecuteSingleFunctions, INodeProperties } from 'n8n-workflow';

import { liveErrorBodyWithout } from '../../transport/answer';
import type { ErrorGuidance } from '../../transport/errors';
import { requireIssuedId, requireText } from '../../validation/parameters';
import { checkText, checkUuid, isRecord, type TextRules } from '../../validation/checks';

export const RESOURCE = 'dispute';

/** The API's disputes; one is `${DISPUTES_PATH}/{dispute_id}`. */
export const DISPUTES_PATH = '/api/disputes';

export function disputePath(id: string, suffix = ''): string {
	return `${DISPUTES_PATH}/${encodeURIComponent(id)}${suffix}`;
}

// ---------------------------------------------------------------------------------------------
// The dispute's ID

export const disputeIdField: INodeProperties = {
	displayName: 'Dispute ID',
	name: 'disputeId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 5d0c7a52-3f7e-4b0b-9a8e-2f1c6b4d9e10',
	description: 'The ID of the dispute, as Create or Get Many returned it',
	displayOptions: { show: { resource: [RESOURCE], operation: ['addMessage', 'resolve'] } },
};

/** The dispute ID of the current item, checked, without surrounding white space, in lower case. */
export function disputeIdOf(context: IExecuteSingleFunctions): string {
	return requireIssuedId(context, 'Dispute ID', context.getNodeParameter('disputeId', ''));
}

// ---------------------------------------------------------------------------------------------
// What the borrower writes: read by the lender and Lendasat's support

/** Lendasat stores any length; these keep a reason to one line and a message to a few pages. */
const REASON_RULES: TextRules = {
	what: 'a reason',
	example: '"Payment issue: Did not receive loan amount"',
	maxLength: 200,
	multiline: false,
};
const MESSAGE_RULES: TextRules = {
	what: 'a message',
	example: '"The collateral confirmed on 2 May; the loan has not been paid out since."',
	maxLength: 5000,
	multiline: true,
};

/** The Message parameter (`message`) of the operations that write to a dispute. */
export function messageField(
	operation: string,
	text: { placeholder: string; description: string },
): INodeProperties {
	return {
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		...text,
		displayOptions: { show: { resource: [RESOURCE], operation: [operation] } },
	};
}

export function reasonOf(context: IExecuteSingleFunctions): string {
	return requireText(
		context,
		'Reason',
		context.getNodeParameter('reason', ''),
		checkText(REASON_RULES),
	);
}

export function messageOf(context: IExecuteSingleFunctions): string {
	return requireText(
		context,
		'Message',
		context.getNodeParameter('message', ''),
		checkText(MESSAGE_RULES),
	);
}

// ---------------------------------------------------------------------------------------------
// Answers

const hasDisputeId = (record: unknown): boolean =>
	isRecord(record) && checkUuid(record.id) === null;

/** A dispute is of use only with its ID, which Add Message and Resolve need. */
export function disputeAnswer(body: unknown): string | undefined {
	return (
		liveErrorBodyWithout(body, 'id') ??
		(hasDisputeId(body) ? undefined : 'it has no id, the ID of a dispute')
	);
}

/** Every dispute of a list needs its ID too. */
export function disputeListAnswer(body: unknown): string | undefined {
	return Array.isArray(body) && !body.every(hasDisputeId)
		? 'a dispute in it has no id, the ID of a dispute'
		: undefined;
}

/** Add Message and Resolve answer an empty 200; Lendasat's error body with a 200 is no confirmation. */
export function confirmationAnswer(body: unknown): string | undefined {
	return liveErrorBodyWithout(body, 'id');
}

// ---------------------------------------------------------------------------------------------
// Failures (routes/borrower/dispute.rs in Lendasat's backend 0.8.2)

export const DISPUTE_IN_PROGRESS: ErrorGuidance = {
	statusCodes: [400],
	codes: ['DISPUTE_IN_PROGRESS'],
	text: /dispute already in progress/i,
	message: 'The contract already has an open dispute',
	hint: 'a contract has one open dispute at a time. Dispute → Get Many lists it; add to it with Dispute → Add Message, or resolve it first.',
};

export const NOT_RESOLVABLE_BY_YOU: ErrorGuidance = {
	statusCodes: [400],
	codes: ['DISPUTE_NOT_STARTED_BY_BORROWER'],
	text: /not started by you/i,
	message: 'Only an open dispute that you started can be resolved',
	hint: 'the dispute is already resolved (status Closed), or the lender started it (DisputeStartedLender), which only the lender or Lendasat can close. Dispute → Get Many shows its status.',
};

/** The live backend's 500 for a resolve it could not do, whichever of the three reasons. */
export const RESOLVE_FAILED: ErrorGuidance = {
	statusCodes: [500],
	text: /^something went wrong\.?$/i,
	message: 'Lendasat could not resolve the dispute',
	hint:
		'Lendasat answers 500 "Something went wrong" when the dispute ID does not exist, the dispute is on another ' +
		"account's contract, or its contract is no longer in a dispute status (DisputeBorrowerStarted). Dispute → Get Many " +
		'shows the disputes of a contract, Contract → Get its status.',
};
