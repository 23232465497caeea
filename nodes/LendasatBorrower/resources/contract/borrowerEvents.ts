import {
	NodeOperationError,
	type IDataObject,
	type IExecutePaginationFunctions,
	type IExecuteSingleFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { DEFAULT_DAYS_AHEAD, daysAheadField, statusesField } from '../../descriptions/eventFields';
import { readSimplify } from '../../descriptions/fields';
import {
	perRunUnlessExpression,
	type ApiClient,
	type OperationRequest,
} from '../../transport/apiRoute';
import { requireComplete, walkPages } from '../../transport/pagination';
import { withCollateralAndKyc } from '../../trigger/contracts';
import { cannotRead } from '../../trigger/installments';
import { listOf } from '../../trigger/parameters';
import { checkDaysAhead, describeValue, toNumber } from '../../validation/checks';
import { invalidParameter, readStatuses, requireValid } from '../../validation/parameters';
import {
	currentEvents,
	EVENT_NAMES,
	type CurrentEvent,
	type EventName,
	type EventSettings,
	type MalformedContract,
} from './events';
import {
	borrowerSourceFields,
	givenBorrower,
	hiddenWhenFromInputFields,
	holdsKeyForm,
} from './borrowerSource';
import { contractSimplifierOf } from './shared';

/**
 * What Contract → Get Events and Contract → Get New Events share: the borrower's contracts, every
 * page, read as the events they stand at now, and the fields that choose them.
 */
export const BORROWER_EVENT_OPERATIONS = ['getEvents', 'getNewEvents'];

const NOTHING_OUTPUT = 'Nothing was output for this borrower; the next run tries again.';
const INCOMPLETE_ADVICE =
	"Nothing was output for this borrower, so that no event is lost in silence; the next run tries again. Check the credential's base URL: Lendasat's contract list pages completely.";

/** Created first, newest first: an update does not move a contract to another page while the walk reads them. */
const LISTING_ORDER = { sort_by: 'created_at', sort_order: 'desc' };

export function borrowerEventFields(
	operations: string[] = BORROWER_EVENT_OPERATIONS,
): INodeProperties[] {
	const show = { resource: ['contract'], operation: operations };
	return [
		...borrowerSourceFields(operations, ['getNewEvents']),
		hiddenWhenFromInputFields({
			displayName: 'Borrower',
			name: 'borrower',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.borrower_id }}',
			description:
				'Your own reference for the borrower this item acts as (its ID in your list, or a name), copied into every event as borrower. Never the API key: a key here is refused.',
			displayOptions: { show },
		}),
		{
			displayName: 'Events',
			name: 'events',
			type: 'multiOptions',
			default: [...EVENT_NAMES],
			description: 'Which events to give',
			options: [
				{
					name: 'Contract Status Changed',
					value: 'contractStatusChanged',
					description: "Each contract's current status, until 30 days after it ended",
				},
				{
					name: 'Installment Due',
					value: 'installmentDue',
					description:
						'Each open installment of a paid-out loan due within Days Ahead (overdue ones included), and again once it is late',
				},
				{
					name: 'Margin Call',
					value: 'marginCall',
					description:
						'A paid-out loan (Principal Given) in First or Second Margin Call, and a liquidated contract',
				},
			],
			displayOptions: { show },
		},
		statusesField(
			{ ...show, events: ['contractStatusChanged'] },
			'Give Contract Status Changed only for contracts in these statuses. Leave empty for every status.',
		),
		daysAheadField(
			{ ...show, events: ['installmentDue'] },
			'How many days before its due date an installment is given. 0: only installments due now or overdue.',
		),
	];
}

/**
 * The events the borrower's contracts stand at now. A page that cannot be walked, a list that ends
 * short of its total, a contract that cannot be read and an open installment that cannot be placed
 * all fail the borrower's item: nothing of that borrower is output, so that no event is lost in
 * silence and none is made up.
 */
export async function readBorrowerEvents(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
	label: string,
): Promise<{ events: CurrentEvent[]; borrower: string | null }> {
	const settings = readEventSettings(context, api);
	const listing = { ...request, qs: { ...request.qs, ...LISTING_ORDER } };
	const walked = await walkPages(context, api, listing, label, Infinity);
	const contracts = requireComplete(
		context,
		{ label, records: 'contracts' },
		walked,
		INCOMPLETE_ADVICE,
	).map((item) => item.json);
	const { events, unreadable, malformed } = currentEvents(contracts, {
		...settings,
		now: api.clock.now(),
	});
	if (malformed.length) throw unreadableContract(context, label, malformed);
	if (unreadable.length) {
		throw cannotRead(context.getNode(), label, unreadable, {
			who: 'the node',
			then: NOTHING_OUTPUT,
			itemIndex: context.getItemIndex(),
		});
	}
	return { events, borrower: settings.borrower };
}

/** Every parameter checked before anything is sent. */
function readEventSettings(
	context: IExecuteSingleFunctions,
	api: ApiClient,
): Omit<EventSettings, 'now'> {
	return { ...eventChoicesOf(context), borrower: readBorrower(context, api) };
}

/**
 * Which events, in which shape: the same for every item of a run unless one of these parameters is
 * an expression, so read once per run then (a partner's run has an item per borrower).
 */
const eventChoicesOf = perRunUnlessExpression(
	['events', 'statuses', 'daysAhead', 'simplify'],
	readEventChoices,
);

function readEventChoices(
	context: IExecuteSingleFunctions,
): Omit<EventSettings, 'now' | 'borrower'> {
	const events = readEventNames(context);
	const simplify = readSimplify(context)
		? contractSimplifierOf(context)
		: (contract: IDataObject) => contract;
	return {
		events,
		statuses: events.includes('contractStatusChanged')
			? readStatuses(context, 'Statuses', context.getNodeParameter('statuses', []))
			: [],
		daysAhead: events.includes('installmentDue')
			? toNumber(
					requireValid(
						context,
						'Days Ahead',
						context.getNodeParameter('daysAhead', DEFAULT_DAYS_AHEAD),
						checkDaysAhead,
					),
				)
			: DEFAULT_DAYS_AHEAD,
		shape: (contract: IDataObject) => simplify(withCollateralAndKyc(contract)),
	};
}

function readEventNames(context: IExecuteSingleFunctions): EventName[] {
	const names = listOf(context.getNodeParameter('events', [...EVENT_NAMES]));
	const unknown = names.find((name) => !(EVENT_NAMES as readonly string[]).includes(name));
	if (unknown !== undefined || names.length === 0) {
		throw invalidParameter(
			context,
			'Events',
			`Expected one or more of ${EVENT_NAMES.join(', ')}, got ${describeValue(unknown ?? names)}.`,
		);
	}
	return names as EventName[];
}

/**
 * The partner's reference for the borrower, or null when none is given. A key here would be copied
 * into every event, so text holding one (the key this item acts as, the credential's, anything
 * shaped like a Lendasat key, or a sealed key) is refused, and the error does not repeat it.
 */
function readBorrower(context: IExecuteSingleFunctions, api: ApiClient): string | null {
	const { value, label } = givenBorrower(context);
	if (value === undefined || value === null) return null;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidParameter(
			context,
			label,
			`Expected your reference for the borrower as text, such as its ID in your list or its name, got ${Array.isArray(value) ? 'a list' : typeof value}. Nothing was sent.`,
		);
	}
	const text = String(value).trim();
	if (text === '') return null;
	// The item's client knows the key it sends: Options (Act as Borrower) is not evaluated again.
	if (holdsKeyForm(text) || api.holdsSecret(text)) {
		throw invalidParameter(
			context,
			label,
			'It holds an API key. Give your own reference for the borrower instead (its ID in your list, or a name): it is copied into every event, and a key never is. Nothing was sent.',
		);
	}
	return text;
}

/** A contract the node cannot read fails the borrower's item: an event built from it would be made up. */
function unreadableContract(
	context: IExecuteSingleFunctions,
	label: string,
	malformed: MalformedContract[],
): NodeOperationError {
	const [{ contractId, problem }] = malformed;
	const others = malformed.length > 1 ? ` ${malformed.length - 1} more cannot be read either.` : '';
	const which = contractId === undefined ? 'A contract' : `Contract ${contractId}`;
	return new NodeOperationError(
		context.getNode(),
		`${label}: Lendasat sent a contract the node cannot read`,
		{
			itemIndex: context.getItemIndex(),
			description: `${which} ${problem}, so the node cannot tell which events it stands at.${others} ${NOTHING_OUTPUT} Check the credential's Base URL: Lendasat's backend always sends these fields.`,
		},
	);
}
