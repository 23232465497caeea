import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems } from 'n8n-workflow';

import type { Expectation } from '../transport/answer';
import { requireConnection } from '../transport/connection';
import { exchange, settle, withNote, type TransportSettings } from '../transport/exchange';
import { systemClock } from '../transport/clock';
import { viaN8n } from '../transport/senders';
import { DEFAULT_MAX_CONCURRENT, LOOKUP_SETTLE_MS } from '../transport/settings';
import { CREDENTIAL_TYPE } from '../transport/credentials';

/** A resource locator's "From List" picker, as its errors name it. */
export interface ListPicker {
	/** e.g. "Contract list". */
	label: string;
	/** What the user can enter By ID instead, e.g. "contract ID". */
	idName: string;
}

/** Someone is waiting for the list in the editor: one quick retry at most. */
const PICKER_SETTINGS: TransportSettings = {
	retry: {
		maxRetries: 1,
		initialDelayMs: 300,
		maxDelayMs: 2_000,
		retryOn: ['rateLimit', 'serverUnavailable', 'network'],
	},
	attemptTimeoutMs: 15_000,
	budgetMs: 30_000,
	maxConcurrent: DEFAULT_MAX_CONCURRENT,
	lookupSettleMs: LOOKUP_SETTLE_MS,
};

/**
 * GET of the list behind a picker with the credential's borrower key, through the same transport as
 * the node's operations. Its errors end with the way around a list that cannot be loaded: By ID.
 */
export async function getPickerList(
	context: ILoadOptionsFunctions,
	picker: ListPicker,
	request: { path: string; qs: IDataObject },
	expect: Expectation,
): Promise<unknown> {
	const byId = `You can also enter the ${picker.idName} By ID.`;
	const connection = requireConnection(await context.getCredentials(CREDENTIAL_TYPE), {
		node: context.getNode(),
		label: picker.label,
		subject: `The ${picker.label}`,
		keyType: 'borrower',
		// Lists are read with the credential's key: Act as Borrower is an option of the run, often an expression of its items.
		wrongKeyAdvice: `Choose a credential whose Key Type is Borrower Key, or enter the ${picker.idName} By ID (the list is always read with the credential's key, also when the node acts as a borrower through Options → Act as Borrower).`,
		note: byId,
	});
	const transport = {
		connection,
		settings: PICKER_SETTINGS,
		send: viaN8n(context),
		caller: { node: context.getNode(), label: picker.label, requiredKeyType: 'borrower' as const },
		clock: systemClock,
	};
	const answer = await settle(
		exchange(transport, { method: 'GET', path: request.path, qs: request.qs }, expect),
	);
	if ('value' in answer) return answer.value;
	throw withNote(answer.error, byId);
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
