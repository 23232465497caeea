import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { DEFAULT_DAYS_AHEAD, daysAheadField, statusesField } from '../../descriptions/eventFields';
import { readSimplify } from '../../descriptions/fields';
import { actingBorrowerKey } from '../../transport/actAs';
import { apiRoute, nodeOf, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { containsSecret } from '../../transport/errors';
import { holdsSealedKey } from '../../encryption/sealedKeys';
import { requireComplete, walkPages } from '../../transport/pagination';
import { withCollateralAndKyc } from '../../trigger/contracts';
import { cannotRead } from '../../trigger/installments';
import { listOf } from '../../trigger/parameters';
import { checkDaysAhead, describeValue, holdsLendasatKey, toNumber } from '../../validation/checks';
import { invalidParameter, requireValid } from '../../validation/parameters';
import { currentEvents, EVENT_NAMES, type EventName, type EventSettings } from './events';
import { contractSimplifierOf, CONTRACTS_PATH } from './shared';

const LABEL = 'Contract → Get Events';
const LISTED = { label: LABEL, records: 'contracts' };
const INCOMPLETE_ADVICE =
	"Nothing was output for this borrower, so that no event is lost in silence; the next run tries again. Check the credential's base URL: Lendasat's contract list pages completely.";
const NOTHING_OUTPUT = 'Nothing was output for this borrower; the next run tries again.';

/** Created first, newest first: an update does not move a contract to another page while the walk reads them. */
const LISTING_ORDER = { sort_by: 'created_at', sort_order: 'desc' };

const showOnlyForGetEvents = { resource: ['contract'], operation: ['getEvents'] };

export const contractGetEventsOperation: INodePropertyOptions = {
	name: 'Get Events',
	value: 'getEvents',
	action: 'Get contract events',
	description:
		"A borrower's contract events as they stand now (status, margin call, installment due), each with a key for Remove Duplicates",
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Get contract events: the borrower's contracts as events as they stand now (each contract's status, a margin call, installments due within Days Ahead), each with an event_key that stays the same until something changes. Changes nothing.",
			keyType: 'borrower',
			expects: 'page',
		},
		{ method: 'GET', url: CONTRACTS_PATH },
		{ send: readEvents },
	),
};

export const contractGetEventsFields: INodeProperties[] = [
	{
		displayName:
			'Gives every event as it stands now, with an event_key. Follow it with Remove Duplicates (Remove Items Processed in Previous Executions, Value to Dedupe On: {{ $json.event_key }}) so that each event reaches your alert once; the first run reports the current state of every contract.',
		name: 'getEventsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showOnlyForGetEvents },
	},
	{
		displayName: 'Borrower',
		name: 'borrower',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.borrower_id }}',
		description:
			'Your own reference for the borrower this item acts as (its ID in your list, or a name), copied into every event as borrower. Never the API key: a key here is refused.',
		displayOptions: { show: showOnlyForGetEvents },
	},
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
					'A paid-out loan in First or Second Margin Call, and a liquidated one, as in the trigger',
			},
		],
		displayOptions: { show: showOnlyForGetEvents },
	},
	statusesField(
		{ ...showOnlyForGetEvents, events: ['contractStatusChanged'] },
		'Give Contract Status Changed only for contracts in these statuses. Leave empty for every status.',
	),
	daysAheadField(
		{ ...showOnlyForGetEvents, events: ['installmentDue'] },
		'How many days before its due date an installment is given. 0: only installments due now or overdue.',
	),
];

/** The borrower's contracts, every page, as the events they stand at now. */
async function readEvents(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const settings = readEventSettings(this);
	const listing = { ...request, qs: { ...request.qs, ...LISTING_ORDER } };
	const walked = await walkPages(this, api, listing, LABEL, Infinity);
	const contracts = requireComplete(this, LISTED, walked, INCOMPLETE_ADVICE).map(
		(item) => item.json,
	);
	const { items, unreadable } = currentEvents(contracts, { ...settings, now: api.clock.now() });
	if (unreadable.length) {
		throw cannotRead(this.getNode(), LABEL, unreadable, {
			who: 'the node',
			then: NOTHING_OUTPUT,
			itemIndex: this.getItemIndex(),
		});
	}
	return items.map((json) => ({ json }));
}

/** Every parameter checked before anything is sent. */
function readEventSettings(context: IExecuteSingleFunctions): Omit<EventSettings, 'now'> {
	const events = readEventNames(context);
	const simplify = readSimplify(context)
		? contractSimplifierOf(context)
		: (contract: IDataObject) => contract;
	return {
		events,
		statuses: events.includes('contractStatusChanged')
			? listOf(context.getNodeParameter('statuses', []))
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
		borrower: readBorrower(context),
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
 * into every event, so text holding one (the key this item acts as, anything shaped like a Lendasat
 * key, or a sealed key) is refused, and the error does not repeat it.
 */
function readBorrower(context: IExecuteSingleFunctions): string | null {
	const value = context.getNodeParameter('borrower', '');
	if (value === undefined || value === null) return null;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidParameter(
			context,
			'Borrower',
			`Expected your reference for the borrower as text, such as its ID in your list or its name, got ${Array.isArray(value) ? 'a list' : typeof value}. Nothing was sent.`,
		);
	}
	const text = String(value).trim();
	if (text === '') return null;
	const actingKey = actingBorrowerKey(
		context,
		context.getNodeParameter('options', {}) as IDataObject,
		nodeOf(context),
	);
	if (
		holdsLendasatKey(text) ||
		holdsSealedKey(text) ||
		(actingKey !== undefined && containsSecret(text, [actingKey]))
	) {
		throw invalidParameter(
			context,
			'Borrower',
			'It holds an API key. Give your own reference for the borrower instead (its ID in your list, or a name): it is copied into every event, and a key never is. Nothing was sent.',
		);
	}
	return text;
}
