import type {
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import {
	apiRoute,
	perRunUnlessExpression,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { checkOneOf, describeValue } from '../../validation/checks';
import { invalidParameter, requireValid } from '../../validation/parameters';
import { readBorrowerEvents } from './borrowerEvents';
import { givenReported, hiddenWhenFromInputFields, INPUT_BORROWERS } from './borrowerSource';
import { claimantOf, claimed, findNews, readReported, type Reported } from './reported';
import { CONTRACTS_PATH } from './shared';

const LABEL = 'Contract → Get New Events';

const show = { resource: ['contract'], operation: ['getNewEvents'] };

const FIRST_POLL_CHOICES = ['report', 'record'];
const DEFAULT_CLAIM_MINUTES = 10;

export const contractGetNewEventsOperation: INodePropertyOptions = {
	name: 'Get New Events',
	value: 'getNewEvents',
	action: 'Get new contract events',
	description:
		"A borrower's contract events not reported yet, with what to store once they are delivered",
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Get new contract events: the borrower's contract events (status changes, margin calls, installments due within Days Ahead) that are not in Already Reported, as one item per borrower with the events and the text to store as reported once they are delivered. Changes nothing at Lendasat.",
			keyType: 'borrower',
			expects: 'page',
			inputBorrowers: INPUT_BORROWERS,
		},
		{ method: 'GET', url: CONTRACTS_PATH },
		{ send: readNewEvents },
	),
};

export const contractGetNewEventsNotice: INodeProperties = {
	displayName:
		'Gives one item per borrower with new events: events (not in Already Reported), reported_claim and reported. Store reported with the borrower only once the events were delivered; a borrower with nothing new gives no item. See the partner guide.',
	name: 'getNewEventsNotice',
	type: 'notice',
	default: '',
	displayOptions: { show },
};

export const contractGetNewEventsFields: INodeProperties[] = [
	hiddenWhenFromInputFields({
		displayName: 'Already Reported',
		name: 'reported',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.reported }}',
		description:
			'What this operation gave as reported for this borrower the last time its events were delivered, as you stored it (e.g. a Data table column). Empty for a borrower never polled.',
		displayOptions: { show },
	}),
	{
		displayName: 'First Poll of a Borrower',
		name: 'firstPoll',
		type: 'options',
		default: 'report',
		description: 'What to do for a borrower whose Already Reported is empty',
		options: [
			{
				name: 'Report Current Events',
				value: 'report',
				description: 'Every event that stands now is new',
			},
			{
				name: 'Record Without Reporting',
				value: 'record',
				description:
					'Give no events, only what to store as reported: a watch that starts without alerting what already stands',
			},
		],
		displayOptions: { show },
	},
	{
		displayName: 'Claim For (Minutes)',
		name: 'claimMinutes',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 1440, numberPrecision: 0 },
		default: DEFAULT_CLAIM_MINUTES,
		description:
			"How long reported_claim keeps other polls from sending the same borrower's events while this one sends them. Longer than sending an alert and storing reported take.",
		displayOptions: { show },
	},
];

/** The borrower's events not in Already Reported, as one item, or none when nothing changed. */
async function readNewEvents(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const { value: given, label } = givenReported(this);
	const reported = readAlreadyReported(this, given, label);
	// As stored, so that the Data table's compare-and-set matches the row (null matches an empty cell).
	const before = (given ?? null) as string | null;
	const { recordFirstPoll, claimMs } = newEventChoicesOf(this);
	const { events: current, borrower } = await readBorrowerEvents(this, api, request, LABEL);
	const now = api.clock.now();
	const claimant = claimantOf(this.getExecutionId());
	const finding = findNews(current, reported, { now, claimant, recordFirstPoll });
	if (finding.kind !== 'changed') return [];
	return [
		{
			json: {
				borrower,
				events: finding.news,
				reported_before: before,
				// Only a poll that sends needs the claim; one that only shrinks the memory writes over `before`.
				reported_claim: finding.news.length ? claimed(reported, claimant, now + claimMs) : before,
				reported: finding.reported,
			},
		},
	];
}

/**
 * First Poll of a Borrower and Claim For: the same for every item of a run unless one is an
 * expression, so read once per run then (a partner's run has an item per borrower).
 */
const newEventChoicesOf = perRunUnlessExpression(
	['firstPoll', 'claimMinutes'],
	(context): { recordFirstPoll: boolean; claimMs: number } => {
		const firstPoll = context.getNodeParameter('firstPoll', 'report');
		return {
			recordFirstPoll:
				requireValid(
					context,
					'First Poll of a Borrower',
					firstPoll,
					checkOneOf(FIRST_POLL_CHOICES),
				) === 'record',
			claimMs: readClaimMinutes(context) * 60_000,
		};
	},
);

function readAlreadyReported(
	context: IExecuteSingleFunctions,
	value: unknown,
	label: string,
): Reported | null {
	try {
		return readReported(value);
	} catch (error) {
		throw invalidParameter(
			context,
			label,
			`${(error as Error).message}: expected what this operation gave as reported, such as 1:Ab3dEf9hIjK. Clear it to report every current event of this borrower again. Nothing was sent.`,
		);
	}
}

function readClaimMinutes(context: IExecuteSingleFunctions): number {
	const value = context.getNodeParameter('claimMinutes', DEFAULT_CLAIM_MINUTES);
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 24 * 60) {
		throw invalidParameter(
			context,
			'Claim For (Minutes)',
			`Expected a whole number of minutes from 1 to 1440, got ${describeValue(value)}.`,
		);
	}
	return value;
}
