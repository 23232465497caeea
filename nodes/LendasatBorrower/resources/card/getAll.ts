import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { applyLimitToList, checkLimitFirst, returnAllAndLimit } from '../../descriptions/fields';
import { apiRoute } from '../../transport/apiRoute';
import { checkUuid, describeValue, isRecord } from '../../validation/checks';
import { readBoolean } from '../../validation/parameters';

const showOnlyForCardGetAll = { resource: ['card'], operation: ['getAll'] };

/**
 * Lendasat hands out each card's full number (`pan`) and security code (`cvv`) with the list
 * (cards.rs:524-547). Whatever a node outputs stays in n8n's execution log, readable by everyone who
 * can open the workflow, so by default the node keeps only the last four digits of the number.
 */
export const cardGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many cards',
	description:
		"List this account's PayWithMoon cards: each card's ID (the moon_card_id a PayWithMoon contract tops up), balance, available_balance, expiration and pan_last4, the last four digits of its number. The full number and the security code are left out unless Include Card Secrets is on.",
	routing: apiRoute(
		{
			label: 'Card → Get Many',
			toolDescription:
				"Get many PayWithMoon cards: each card's ID, balance, available balance, expiry and the last four digits of its number; changes nothing",
			keyType: 'borrower',
			expects: 'list',
			answer: cardsAnswer,
		},
		{ method: 'GET', url: '/api/moon/cards' },
		{ prepare: [checkLimitFirst], finish: [applyLimitToList, withoutCardSecrets] },
	),
};

export const cardGetAllFields: INodeProperties[] = [
	...returnAllAndLimit(showOnlyForCardGetAll),
	{
		displayName: 'Include Card Secrets',
		name: 'includeCardSecrets',
		type: 'boolean',
		default: false,
		description:
			"Whether to output each card's full number (pan) and security code (cvv). They then stay in the execution log for everyone who can open this workflow; leave off unless a later step pays with the card.",
		displayOptions: { show: showOnlyForCardGetAll },
	},
];

/** Cards are of use only with their ID: the moon_card_id a contract and a top-up need. */
function cardsAnswer(body: unknown): string | undefined {
	const cards = Array.isArray(body) ? body : [];
	const index = cards.findIndex(
		(card) => !isRecord(card) || typeof card.id !== 'string' || checkUuid(card.id) !== null,
	);
	if (index < 0) return undefined;
	const card: unknown = cards[index];
	return `its card ${index + 1} has the ID ${describeValue(isRecord(card) ? card.id : card)}, not a UUID`;
}

async function withoutCardSecrets(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const includeSecrets = readBoolean(this, 'includeCardSecrets', 'Include Card Secrets', false);
	return items.map((item) => ({ ...item, json: cardOutput(item.json, includeSecrets) }));
}

/** A card with the last four digits of its number; the number and the security code only when asked for. */
export function cardOutput(card: IDataObject, includeSecrets: boolean): IDataObject {
	const { pan, cvv, ...rest } = card;
	const digits = typeof pan === 'string' ? pan.replace(/\D/g, '') : '';
	const last4 = digits.length >= 4 ? { pan_last4: digits.slice(-4) } : {};
	return includeSecrets ? { ...rest, ...last4, pan, cvv } : { ...rest, ...last4 };
}
