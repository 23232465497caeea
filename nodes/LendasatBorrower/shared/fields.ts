import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { toNumber } from './validation';

type DisplayOptions = NonNullable<INodeProperties['displayOptions']>;

/** "Return All" and "Limit" for a Get Many operation. */
export function returnAllAndLimit(show: DisplayOptions['show'], maxLimit?: number): INodeProperties[] {
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

/**
 * The postReceive of a Get Many whose endpoint has no paging: the whole list arrives at once
 * and the Limit is applied to it.
 */
export async function applyLimitToList(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if (this.getNodeParameter('returnAll', false)) return items;
	return items.slice(0, toNumber(this.getNodeParameter('limit', 50)));
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

/** The fields of a record that it has, in the order given; fields it lacks are left out, not set to null. */
export function pickFields(record: IDataObject, fields: string[]): IDataObject {
	const picked: IDataObject = {};
	for (const field of fields) {
		if (record[field] !== undefined) picked[field] = record[field];
	}
	return picked;
}
