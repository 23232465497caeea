import type { IDataObject, IExecuteSingleFunctions, INodeProperties } from 'n8n-workflow';

import {
	perRunUnlessExpression,
	type InputBorrowers,
	type KeyFromInput,
	type ListFromInput,
} from '../../transport/apiRoute';
import { ACT_AS_BORROWER_LABEL, ACT_AS_BORROWER_OPTION } from '../../transport/actAs';
import { holdsSealedKey } from '../../encryption/sealedKeys';
import { checkOneOf, describeValue, holdsLendasatKey } from '../../validation/checks';
import { invalidParameter, requireValid } from '../../validation/parameters';

/*
 * Where Contract → Get Events and Get New Events find each borrower's key, reference and memory: in
 * their parameters (Act as Borrower, Borrower, Already Reported), usually expressions such as
 * {{ $json.api_key }}, or in fields of the input item named once for the whole run. n8n evaluates a
 * parameter's expression anew each time the parameter is read, and its declarative engine reads
 * every parameter of the node twice per item before the node does; a field is one property read.
 * Or in the entries of a list in the input item, one per borrower: n8n's own cost per item (its
 * contexts, its reading of every parameter, the item and its output kept until the run ends) is
 * then paid once per list, not once per borrower.
 */

export const BORROWER_FROM_PARAMETERS = 'parameters';
export const BORROWER_FROM_INPUT_FIELDS = 'inputFields';
export const BORROWER_FROM_INPUT_LIST = 'inputList';

export const DEFAULT_KEY_FIELD = 'api_key';
export const DEFAULT_BORROWER_FIELD = 'borrower_id';
export const DEFAULT_REPORTED_FIELD = 'reported';
export const DEFAULT_LIST_FIELD = 'borrowers';

const FROM_FIELDS = { borrowerFrom: [BORROWER_FROM_INPUT_FIELDS, BORROWER_FROM_INPUT_LIST] };

/** Borrower From, and the fields it names when it is Input Item Fields or Input Item List. */
export function borrowerSourceFields(
	operations: string[],
	newEventsOperations: string[],
): INodeProperties[] {
	const show = { resource: ['contract'], operation: operations };
	return [
		{
			displayName: 'Borrower From',
			name: 'borrowerFrom',
			type: 'options',
			default: BORROWER_FROM_PARAMETERS,
			description: "Where each item's borrower key, reference and memory come from",
			options: [
				{
					name: 'Parameters',
					value: BORROWER_FROM_PARAMETERS,
					description: `Borrower and Already Reported below, and Options → ${ACT_AS_BORROWER_LABEL}, usually expressions that read each input item's fields`,
				},
				{
					name: 'Input Item Fields',
					value: BORROWER_FROM_INPUT_FIELDS,
					description:
						'Fields of each input item, named below: what those expressions read, without evaluating an expression per borrower (less CPU in runs over thousands of borrowers)',
				},
				{
					name: 'Input Item List',
					value: BORROWER_FROM_INPUT_LIST,
					description:
						"A list in each input item, one entry per borrower with the fields named below (e.g. an Aggregate node's): one output item per borrower, and a borrower that fails gives an item with its error and does not stop the others. For runs over tens of thousands of borrowers.",
				},
			],
			displayOptions: { show },
		},
		{
			displayName: 'List Field',
			name: 'listField',
			type: 'string',
			default: DEFAULT_LIST_FIELD,
			description:
				"The input item's field holding the list of borrowers, each entry an object with the fields named below",
			displayOptions: { show: { ...show, borrowerFrom: [BORROWER_FROM_INPUT_LIST] } },
		},
		{
			displayName: 'Key Field',
			name: 'keyField',
			type: 'string',
			default: DEFAULT_KEY_FIELD,
			description: `The input item's field holding the borrower's API key, plain or sealed, sent instead of the credential's. Empty: Options → ${ACT_AS_BORROWER_LABEL}, or the credential's key.`,
			displayOptions: { show: { ...show, ...FROM_FIELDS } },
		},
		{
			displayName: 'Borrower Field',
			name: 'borrowerField',
			type: 'string',
			default: DEFAULT_BORROWER_FIELD,
			description:
				"The input item's field holding your own reference for the borrower, copied into every event as borrower (as Borrower would be). Empty: no reference.",
			displayOptions: { show: { ...show, ...FROM_FIELDS } },
		},
		{
			displayName: 'Already Reported Field',
			name: 'reportedField',
			type: 'string',
			default: DEFAULT_REPORTED_FIELD,
			description:
				"The input item's field holding what this operation gave as reported for the borrower, as you stored it (as Already Reported would be); empty in a borrower never polled",
			displayOptions: {
				show: { resource: ['contract'], operation: newEventsOperations, ...FROM_FIELDS },
			},
		},
	];
}

/** Hides a parameter that Borrower From → Input Item Fields replaces. */
export function hiddenWhenFromInputFields(property: INodeProperties): INodeProperties {
	return { ...property, displayOptions: { ...property.displayOptions, hide: FROM_FIELDS } };
}

/** The input fields of a run, or undefined when its items take the parameters. */
interface InputFields {
	key: string;
	borrower: string;
	reported: string;
	/** With Input Item List, the field holding the list whose entries hold the fields above. */
	list?: string;
}

/** Read once per run unless one of these parameters is an expression. */
const inputFieldsOf = perRunUnlessExpression(
	['borrowerFrom', 'keyField', 'borrowerField', 'reportedField', 'listField'],
	(context): InputFields | undefined => {
		const from = requireValid(
			context,
			'Borrower From',
			context.getNodeParameter('borrowerFrom', BORROWER_FROM_PARAMETERS),
			checkOneOf([BORROWER_FROM_PARAMETERS, BORROWER_FROM_INPUT_FIELDS, BORROWER_FROM_INPUT_LIST]),
		);
		if (from === BORROWER_FROM_PARAMETERS) return undefined;
		return {
			list:
				from === BORROWER_FROM_INPUT_LIST
					? fieldName(context, 'List Field', 'listField', DEFAULT_LIST_FIELD)
					: undefined,
			key: fieldName(context, 'Key Field', 'keyField', DEFAULT_KEY_FIELD),
			borrower: fieldName(context, 'Borrower Field', 'borrowerField', DEFAULT_BORROWER_FIELD),
			reported: fieldName(
				context,
				'Already Reported Field',
				'reportedField',
				DEFAULT_REPORTED_FIELD,
			),
		};
	},
);

function fieldName(
	context: IExecuteSingleFunctions,
	label: string,
	parameter: string,
	fallback: string,
): string {
	const value = context.getNodeParameter(parameter, fallback);
	if (typeof value !== 'string') {
		throw invalidParameter(context, label, `Expected a field name, got ${describeValue(value)}.`);
	}
	return value.trim();
}

/**
 * The borrowers listed in the input item with Input Item List, each entry the object whose fields
 * name its key, reference and memory; undefined when each item is one borrower. Each entry needs a
 * key of its own: with no Key Field, every entry would act with the same key.
 */
const listFromInputField: ListFromInput = (context) => {
	const fields = inputFieldsOf(context);
	if (fields?.list === undefined) return undefined;
	if (fields.key === '') {
		throw invalidParameter(
			context,
			'Key Field',
			"Must name the field of each entry that holds the borrower's API key (e.g. api_key): with Input Item List every borrower acts with its own key. Nothing was sent.",
		);
	}
	const label = `List Field (${fields.list})`;
	const list = inputField(context, fields.list, label);
	if (!Array.isArray(list)) {
		throw invalidParameter(
			context,
			label,
			`Expected a list of borrowers, one object per borrower, got ${kindOf(list)}. Nothing was sent.`,
		);
	}
	const notAnEntry = list.findIndex(
		(entry) => entry === null || typeof entry !== 'object' || Array.isArray(entry),
	);
	if (notAnEntry !== -1) {
		throw invalidParameter(
			context,
			label,
			`Expected each entry to be an object holding one borrower's fields; entry ${notAnEntry} is ${kindOf(list[notAnEntry])}. Nothing was sent.`,
		);
	}
	return list as IDataObject[];
};

/** What a value is, never what it holds: a field in the wrong place may hold a key. */
function kindOf(value: unknown): string {
	if (value === null || value === undefined) return 'nothing';
	return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/** A field of the input item (with Input Item List, of the borrower's entry), which must be there; `label` names it in errors. */
function inputField(context: IExecuteSingleFunctions, field: string, label: string): unknown {
	const json: IDataObject = context.getInputData().json ?? {};
	if (!Object.prototype.hasOwnProperty.call(json, field)) {
		throw invalidParameter(
			context,
			label,
			`The input item has no field ${field}. Check the field name, or that the input items are your borrowers' rows. Nothing was sent.`,
		);
	}
	return json[field];
}

/**
 * The borrower key an item acts as, from its Key Field, when Borrower From is Input Item Fields and
 * Key Field names a field; undefined otherwise (Act as Borrower, or the credential's key). A field
 * that gives no key is refused rather than falling back to the credential's key, which could be
 * another borrower's, and so is Act as Borrower set as well: the item would have two keys.
 */
const keyFromInputField: KeyFromInput = (context, options) => {
	const fields = inputFieldsOf(context);
	if (!fields || fields.key === '') return undefined;
	const label = `Key Field (${fields.key})`;
	const actAs = options[ACT_AS_BORROWER_OPTION];
	if (actAs !== undefined && actAs !== null && actAs !== '') {
		throw invalidParameter(
			context,
			label,
			`Options → ${ACT_AS_BORROWER_LABEL} is set too, so the item would have two keys. Remove that option, or clear Key Field. Nothing was sent.`,
		);
	}
	const value = inputField(context, fields.key, label);
	if (typeof value !== 'string' || value.trim() === '') {
		throw invalidParameter(
			context,
			label,
			`Expected the borrower's API key as text, got ${value === '' ? 'nothing' : kindOf(value)}, so the node did not fall back to the credential's key. Nothing was sent.`,
		);
	}
	return { key: value.trim(), field: label };
};

/**
 * The Borrower Field's text, to name a borrower whose item failed, or null: also when the field is
 * missing, is not text or a number, or holds anything like a key (the check of why it failed may be
 * the very one that refused a key there).
 */
function referenceOfFailed(context: IExecuteSingleFunctions): string | null {
	const fields = inputFieldsOf(context);
	if (!fields || fields.borrower === '') return null;
	const json: IDataObject = context.getInputData().json ?? {};
	const value = json[fields.borrower];
	if (typeof value !== 'string' && typeof value !== 'number') return null;
	const text = String(value).trim();
	const key = fields.key === '' ? undefined : json[fields.key];
	const holdsItsKey = typeof key === 'string' && key.trim() !== '' && text.includes(key.trim());
	if (text === '' || holdsItsKey || holdsKeyForm(text)) return null;
	return text;
}

/** Whether a borrower's reference holds a Lendasat key, plain (by its shape) or sealed: it is never copied into an output. */
export function holdsKeyForm(text: string): boolean {
	return holdsLendasatKey(text) || holdsSealedKey(text);
}

/** Where Get Events and Get New Events find their borrowers in the input (see OperationMeta.inputBorrowers). */
export const INPUT_BORROWERS: InputBorrowers = {
	key: keyFromInputField,
	list: listFromInputField,
	reference: referenceOfFailed,
};

/** The borrower reference as given (Borrower, or the Borrower Field), not yet checked, and the label to name it by. */
export function givenBorrower(context: IExecuteSingleFunctions): { value: unknown; label: string } {
	const fields = inputFieldsOf(context);
	if (!fields) return { value: context.getNodeParameter('borrower', ''), label: 'Borrower' };
	if (fields.borrower === '') return { value: null, label: 'Borrower Field' };
	const label = `Borrower Field (${fields.borrower})`;
	return { value: inputField(context, fields.borrower, label), label };
}

/** Already Reported as given (the parameter, or the Already Reported Field), and the label to name it by. */
export function givenReported(context: IExecuteSingleFunctions): { value: unknown; label: string } {
	const fields = inputFieldsOf(context);
	if (!fields)
		return { value: context.getNodeParameter('reported', ''), label: 'Already Reported' };
	if (fields.reported === '') {
		// Read as a borrower never polled at every poll, each would report every event again.
		throw invalidParameter(
			context,
			'Already Reported Field',
			"Must name the input item's field that holds what this operation gave as reported (e.g. reported). Nothing was sent.",
		);
	}
	const label = `Already Reported Field (${fields.reported})`;
	return { value: inputField(context, fields.reported, label), label };
}
