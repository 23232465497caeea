import type { INodeProperties } from 'n8n-workflow';

import { CONTRACT_STATUS_OPTIONS } from './contractStatuses';

type Show = NonNullable<INodeProperties['displayOptions']>['show'];

/** Days Ahead's default: the trigger's Installment Due and Contract → Get Events alike. */
export const DEFAULT_DAYS_AHEAD = 3;

/** Days Ahead (`daysAhead`): how many days before its due date an installment is news. */
export function daysAheadField(show: Show, description: string): INodeProperties {
	return {
		displayName: 'Days Ahead',
		name: 'daysAhead',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: DEFAULT_DAYS_AHEAD,
		description,
		displayOptions: { show },
	};
}

/** Statuses (`statuses`): contract status events only for these; empty for all. */
export function statusesField(show: Show, description: string): INodeProperties {
	return {
		displayName: 'Statuses',
		name: 'statuses',
		type: 'multiOptions',
		options: CONTRACT_STATUS_OPTIONS,
		default: [],
		description,
		displayOptions: { show },
	};
}
