import type { IDataObject, IExecuteSingleFunctions, INode } from 'n8n-workflow';

import { invalidParameter } from '../validation/parameters';
import type { ErrorGuidance } from './errors';

/**
 * Partners act for their borrowers: Options → Act as Borrower (API Key) on every operation that
 * needs a Borrower Key sends that borrower's key instead of the credential's. The credential still
 * gives the base URL and the environment; its own key is not sent, and both keys are secret. A
 * sealed key is opened with the credential's Key Sealing Secret (transport/connection.ts).
 */
export const ACT_AS_BORROWER_OPTION = 'borrowerApiKey';

/** The option as users read it. */
export const ACT_AS_BORROWER_LABEL = 'Act as Borrower (API Key)';

/**
 * The borrower key this item acts as, trimmed and as given (plain or sealed), or undefined to use
 * the credential's key (the option is not set or empty). An expression that gives no key for the
 * item is refused rather than falling back to the credential's key, which could be another
 * borrower's. The value never appears in an error. `node` is the node as saved, where an expression
 * shows as one.
 */
export function actingBorrowerKey(
	context: IExecuteSingleFunctions,
	options: IDataObject,
	node: INode,
): string | undefined {
	const value = options[ACT_AS_BORROWER_OPTION];
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	if (value !== undefined && value !== null && typeof value !== 'string') {
		throw invalidParameter(
			context,
			ACT_AS_BORROWER_LABEL,
			`Expected the borrower's API key as text, got a ${Array.isArray(value) ? 'list' : typeof value}. Nothing was sent.`,
		);
	}
	const saved = (node.parameters.options as IDataObject | undefined)?.[ACT_AS_BORROWER_OPTION];
	if (typeof saved === 'string' && saved.startsWith('=')) {
		throw invalidParameter(
			context,
			ACT_AS_BORROWER_LABEL,
			"The expression gave no key for this item, so the node did not fall back to the credential's key. Check that the input item has the field the expression reads (e.g. api_key or api_key_sealed from Account → Create), or remove the option to use the credential's key. Nothing was sent.",
		);
	}
	return undefined;
}

/** What a rejected key means when the key sent was the one given in Act as Borrower. */
export const ACT_AS_BORROWER_GUIDANCE: ErrorGuidance[] = [
	{
		statusCodes: [401],
		message: 'Lendasat rejected the Act as Borrower API key',
		hint:
			`the key in Options → ${ACT_AS_BORROWER_LABEL} was sent instead of the credential's. It must be a Borrower Key ` +
			"of the credential's environment that still exists, e.g. the api_key that Account → Create returned; a Partner " +
			'Master Key does not work there.',
	},
];

/** What a rejected key means when the key sent came from a field of the input item (`field` as messages name it). */
export function inputKeyGuidance(field: string): ErrorGuidance[] {
	return [
		{
			statusCodes: [401],
			message: "Lendasat rejected the borrower's API key from the input item",
			hint:
				`the key in the input item's ${field} was sent instead of the credential's. It must be a Borrower Key ` +
				"of the credential's environment that still exists, e.g. the api_key that Account → Create returned (or " +
				'its sealed form); a Partner Master Key does not work there.',
		},
	];
}
