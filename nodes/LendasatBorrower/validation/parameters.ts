import { NodeOperationError, type IExecuteSingleFunctions } from 'n8n-workflow';

import { checkUuid, describeValue } from './checks';

/** A validator: null when the value is fine, otherwise what is wrong and what a valid value looks like. */
export type Check = (value: unknown) => string | null;

/** An error about the current item, whose message names the item: "… [item 2]". */
export function itemError(
	context: IExecuteSingleFunctions,
	message: string,
	description: string,
): NodeOperationError {
	const itemIndex = context.getItemIndex();
	return new NodeOperationError(context.getNode(), `${message} [item ${itemIndex}]`, {
		itemIndex,
		description,
	});
}

/** The error for a parameter that failed its check, naming the field and the item. */
export function invalidParameter(
	context: IExecuteSingleFunctions,
	displayName: string,
	problem: string,
): NodeOperationError {
	return itemError(context, `Invalid ${displayName}`, `${displayName}: ${problem}`);
}

/** Throws the parameter error when the check fails; returns the value otherwise. */
export function requireValid<T>(
	context: IExecuteSingleFunctions,
	displayName: string,
	value: T,
	check: Check,
): T {
	const problem = check(value);
	if (problem) throw invalidParameter(context, displayName, problem);
	return value;
}

/** For text parameters: checked as the user typed it, sent without the surrounding white space. */
export function requireText(
	context: IExecuteSingleFunctions,
	displayName: string,
	value: unknown,
	check: Check,
): string {
	return String(requireValid(context, displayName, value, check)).trim();
}

/** A switch as the user set it: true or false, nothing else (an expression giving "false" is refused). */
export function readBoolean(
	context: IExecuteSingleFunctions,
	name: string,
	displayName: string,
	fallback: boolean,
): boolean {
	const value = context.getNodeParameter(name, fallback);
	if (typeof value !== 'boolean') {
		throw invalidParameter(
			context,
			displayName,
			`Expected true or false, got ${JSON.stringify(value) ?? String(value)}.`,
		);
	}
	return value;
}

/** An ID that Lendasat issued: checked as a UUID, sent trimmed and in lower case, as Lendasat stores and compares it. */
export function requireIssuedId(
	context: IExecuteSingleFunctions,
	displayName: string,
	value: unknown,
): string {
	return requireText(context, displayName, value, checkUuid).toLowerCase();
}

/** A status as the API spells it (PascalCase; the server also accepts snake_case). */
const STATUS_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Contract statuses chosen in `displayName`, also from an expression giving a list or
 * comma-separated text. A value that is no status (a display name such as "Principal Given") is
 * refused; statuses the node does not list still go through: the server may know newer ones.
 */
export function readStatuses(
	context: IExecuteSingleFunctions,
	displayName: string,
	value: unknown,
): string[] {
	if (value === undefined || value === null || value === '') return [];
	const list = Array.isArray(value)
		? value
		: typeof value === 'string'
			? value.split(',')
			: [value];
	const statuses = list
		.map((status) => (typeof status === 'string' ? status.trim() : status))
		.filter((status) => status !== '');
	const invalid = statuses.find(
		(status) => typeof status !== 'string' || !STATUS_PATTERN.test(status),
	);
	if (invalid !== undefined) {
		throw invalidParameter(
			context,
			displayName,
			`${describeValue(invalid)} is not a contract status. Use values such as PrincipalGiven or Requested.`,
		);
	}
	return statuses as string[];
}
