import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type ILoadOptionsFunctions,
	type IN8nHttpFullResponse,
	type INode,
	type INodeListSearchItems,
	type JsonObject,
} from 'n8n-workflow';

import { borrowerRequestError, getWithCredential } from './credentialRequest';
import { baseUrlOf, CREDENTIAL_TYPE, KEY_TYPE_NAMES, keyTypeOf } from './credentials';
import { excerptOf, redactSecrets } from './errors';
import { networkFailureOf } from '../transport/exchange';

/** A resource locator's "From List" picker, as its errors name it. */
export interface ListPicker {
	/** e.g. "Contract list". */
	label: string;
	/** What the user can enter By ID instead, e.g. "contract ID". */
	idName: string;
	/** What to say when the request got no answer; the shared advice is added to the description. */
	unreachable: (failure: { baseUrl: string; networkCode?: string; message: string }) => {
		details: JsonObject;
		message: string;
		/** e.g. "the request failed (ECONNREFUSED)". */
		problem: string;
	};
}

export interface PickerConnection {
	baseUrl: string;
	apiKey: string;
}

/** The credential's base URL and key. Pickers list the borrower's own records, so they need a borrower key. */
async function borrowerConnection(
	context: ILoadOptionsFunctions,
	picker: ListPicker,
): Promise<PickerConnection> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	if (keyTypeOf(credentials) !== 'borrower') {
		throw new NodeOperationError(
			context.getNode(),
			`The ${picker.label} needs a ${KEY_TYPE_NAMES.borrower}, but the credential holds a ${KEY_TYPE_NAMES.master}`,
			{ description: `Choose a credential whose Key Type is Borrower Key, or enter the ${picker.idName} By ID.` },
		);
	}
	return { baseUrl: baseUrlOf(credentials), apiKey: String(credentials.apiKey ?? '') };
}

/**
 * GET of the list behind a picker with the credential's borrower key, returning the successful
 * answer. An error status becomes the mapped API error; a request without an answer becomes what
 * the picker's `unreachable` says about it.
 */
export async function getPickerList(
	context: ILoadOptionsFunctions,
	picker: ListPicker,
	request: { path: string; qs: IDataObject },
): Promise<{ response: IN8nHttpFullResponse; connection: PickerConnection }> {
	const connection = await borrowerConnection(context, picker);
	const { baseUrl, apiKey } = connection;
	let response: IN8nHttpFullResponse;
	try {
		response = await getWithCredential(context, `${baseUrl}${request.path}`, request.qs);
	} catch (error) {
		// A fresh error from the reason alone: the HTTP client's error carries the request headers, API key included.
		// The reason goes into the description: n8n replaces a message naming a network code with its own words.
		const { details, message, problem } = picker.unreachable({
			baseUrl,
			networkCode: networkCodeOf(error),
			message: messageOf(error),
		});
		throw new NodeApiError(context.getNode(), details, {
			message: redactSecrets(message, [apiKey]),
			description: redactSecrets(
				`${picker.label}: ${problem}. Check the credential's environment or base URL, and that the host is reachable from n8n. You can also enter the ${picker.idName} By ID.`,
				[apiKey],
			),
		});
	}
	if (response.statusCode >= 400) throw borrowerRequestError(context.getNode(), picker.label, response, apiKey);
	return { response, connection };
}

function networkCodeOf(error: unknown): string | undefined {
	const failure = networkFailureOf(error);
	return failure?.kind === 'network' ? failure.code : undefined;
}

function messageOf(error: unknown): string {
	const { message } = (error ?? {}) as { message?: unknown };
	return typeof message === 'string' && message ? message : 'unknown error';
}

/** The error for a successful answer that is not the list asked for. */
export function notAList(
	node: INode,
	list: { label: string; of: string; expected: string },
	response: IN8nHttpFullResponse,
	secrets: string[],
): NodeApiError {
	const body: unknown = response.body;
	const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
	return new NodeApiError(node, { httpCode: String(response.statusCode) } as JsonObject, {
		message: `Lendasat did not answer with a list of ${list.of}`,
		description: redactSecrets(
			`${list.label}: expected ${list.expected}, got: "${excerptOf(text)}". Check the credential's environment or base URL.`,
			secrets,
		),
	});
}

/**
 * The records with an ID whose searched fields hold every word of the search text, as picker
 * entries in the order given.
 */
export function searchResults(
	records: IDataObject[],
	filter: string | undefined,
	searchedFields: (record: IDataObject) => unknown[],
	describe: (record: IDataObject) => string,
): INodeListSearchItems[] {
	const terms = (filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
	return records
		.filter((record) => typeof record.id === 'string' && containsAll(searchedFields(record), terms))
		.map((record) => ({ name: describe(record), value: record.id as string }));
}

function containsAll(fields: unknown[], terms: string[]): boolean {
	const haystack = fields
		.filter((field) => typeof field === 'string')
		.join(' ')
		.toLowerCase();
	return terms.every((term) => haystack.includes(term));
}

const CURRENCY_PREFIXES: Record<string, string> = { Eur: '€', Chf: 'CHF ', Mxn: 'MX$' };

/** An amount of a loan asset: `$` for dollar stablecoins and USD, the sign or code of other fiat currencies. */
export function formatMoney(asset: unknown, amount: number): string {
	return `${currencyPrefix(asset)}${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
}

function currencyPrefix(asset: unknown): string {
	if (typeof asset !== 'string') return '';
	return CURRENCY_PREFIXES[asset] ?? (/^usd/i.test(asset) ? '$' : '');
}
