import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyMode,
} from 'n8n-workflow';

import { invalidParameter, readBoolean } from '../validation/parameters';
import { describeValue, toNumber } from '../validation/checks';

type DisplayOptions = NonNullable<INodeProperties['displayOptions']>;

/** "Return All" and "Limit" for a Get Many operation. */
export function returnAllAndLimit(
	show: DisplayOptions['show'],
	maxLimit?: number,
): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, ...(maxLimit ? { maxValue: maxLimit } : {}) },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
	];
}

/** Return All and Limit as the user set them, checked: Limit is a whole number of at least 1. */
export function readLimit(context: IExecuteSingleFunctions): { returnAll: boolean; limit: number } {
	const returnAll = context.getNodeParameter('returnAll', false);
	if (typeof returnAll !== 'boolean') {
		throw invalidParameter(
			context,
			'Return All',
			`Expected true or false, got ${describeValue(returnAll)}.`,
		);
	}
	if (returnAll) return { returnAll, limit: Infinity };
	const value = context.getNodeParameter('limit', 50);
	const limit = toNumber(value);
	if (!Number.isInteger(limit) || limit < 1) {
		throw invalidParameter(
			context,
			'Limit',
			`Expected a whole number of at least 1, like 50, got ${describeValue(value)}.`,
		);
	}
	return { returnAll, limit };
}

/** A prepare step of a Get Many: Limit and Return All are checked before anything is sent. */
export async function checkLimitFirst(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	readLimit(this);
	return request;
}

/** The finish of a Get Many whose endpoint has no paging: the whole list arrives at once and the Limit applies to it. */
export async function applyLimitToList(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const { limit } = readLimit(this);
	return items.slice(0, limit);
}

/** The "Simplify" switch of an operation returning big records. */
export function simplifyField(show: DisplayOptions['show']): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: 'Whether to return a simplified version of the response instead of the raw data',
		displayOptions: { show },
	};
}

/**
 * The two ways to name a record whose ID Lendasat issued: pick it From List (the searchable list of
 * `searchListMethod`), or enter it By ID, where the editor accepts a UUID (white space around it
 * allowed) and otherwise says what it expected, e.g. "Not a contract ID". Declared under a `modes` key
 * so that the lint reads them as modes rather than as parameters missing a default.
 */
export function uuidLocatorModes(
	list: { placeholder: string; searchListMethod: string },
	what: string,
	example: string,
): INodePropertyMode[] {
	const locator: { modes: INodePropertyMode[] } = {
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: list.placeholder,
				typeOptions: { searchListMethod: list.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: `e.g. ${example}`,
				validation: [
					{
						type: 'regex',
						properties: {
							regex:
								'^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$',
							errorMessage: `Not a ${what} ID: expected a UUID such as ${example}`,
						},
					},
				],
			},
		],
	};
	return locator.modes;
}

/** The switch of simplifyField as the user set it: on unless turned off. */
export function readSimplify(context: IExecuteSingleFunctions): boolean {
	return readBoolean(context, 'simplify', 'Simplify', true);
}

/** The finish of a Simplify switch: with it on, each item's record through `simplify`; off, the items as they came. */
export function simplifyItems(
	context: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	simplify: (record: IDataObject) => IDataObject,
): INodeExecutionData[] {
	if (!readSimplify(context)) return items;
	return items.map((item) => ({ ...item, json: simplify(item.json) }));
}

/** The fields of a record that it has, in the order given; fields it lacks are left out, not set to null. */
export function pickFields(record: IDataObject, fields: string[]): IDataObject {
	const picked: IDataObject = {};
	for (const field of fields) {
		if (record[field] !== undefined) picked[field] = record[field];
	}
	return picked;
}
