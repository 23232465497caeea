import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IN8nHttpFullResponse,
	type INodeListSearchItems,
	type INodeListSearchResult,
	type JsonObject,
} from 'n8n-workflow';

import { baseUrlOf, CREDENTIAL_TYPE, KEY_TYPE_NAMES, keyTypeOf } from './credentials';
import { excerptOf, mapApiError, redactSecrets } from './errors';
import { MAX_PAGE_SIZE } from './pagination';

const PICKER_LABEL = 'Contract list';

/**
 * The listSearch method behind the contract "From List" mode: the key's most recently updated
 * contracts (one page of up to 100), narrowed by the search text.
 */
export async function searchContracts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	if (keyTypeOf(credentials) !== 'borrower') {
		throw new NodeOperationError(
			this.getNode(),
			`The ${PICKER_LABEL} needs a ${KEY_TYPE_NAMES.borrower}, but the credential holds a ${KEY_TYPE_NAMES.master}`,
			{ description: 'Choose a credential whose Key Type is Borrower Key, or enter the contract ID By ID.' },
		);
	}
	const contracts = await fetchRecentContracts(this, baseUrlOf(credentials), String(credentials.apiKey ?? ''));
	const terms = searchTerms(filter);
	const results = contracts
		.filter((contract) => typeof contract.id === 'string' && matchesSearch(contract, terms))
		.map(toListItem);
	return { results };
}

async function fetchRecentContracts(
	context: ILoadOptionsFunctions,
	baseUrl: string,
	apiKey: string,
): Promise<IDataObject[]> {
	const request: IHttpRequestOptions = {
		method: 'GET',
		url: `${baseUrl}/api/contracts`,
		qs: { sort_by: 'updated_at', sort_order: 'desc', limit: MAX_PAGE_SIZE },
		headers: { Accept: 'application/json' },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};
	let response: IN8nHttpFullResponse;
	try {
		response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			request,
		)) as IN8nHttpFullResponse;
	} catch (error) {
		// A fresh error from the reason alone: the HTTP client's error carries the request headers, API key included.
		// The network reason goes into the description: n8n replaces a message naming a network code with its own words.
		throw new NodeApiError(context.getNode(), { reason: 'request failed' } as JsonObject, {
			message: redactSecrets(`Could not load your contracts from ${baseUrl}`, [apiKey]),
			description: redactSecrets(
				`${PICKER_LABEL}: the request failed (${failureReason(error)}). Check the credential's environment or base URL, and that the host is reachable from n8n. You can also enter the contract ID By ID.`,
				[apiKey],
			),
		});
	}
	if (response.statusCode >= 400) throw contractListError(context, response, apiKey);
	const page = response.body as IDataObject | undefined;
	if (!isRecord(page) || !Array.isArray(page.data)) {
		throw new NodeApiError(context.getNode(), { httpCode: String(response.statusCode) } as JsonObject, {
			message: 'Lendasat did not answer with a list of contracts',
			description: redactSecrets(
				`${PICKER_LABEL}: expected {data: [...]} from ${baseUrl}/api/contracts, got: "${excerptOf(bodyText(response.body))}". Check the credential's environment or base URL.`,
				[apiKey],
			),
		});
	}
	return page.data.filter(isRecord);
}

function contractListError(
	context: ILoadOptionsFunctions,
	response: IN8nHttpFullResponse,
	apiKey: string,
): NodeApiError {
	const mapped = mapApiError({
		operation: PICKER_LABEL,
		statusCode: response.statusCode,
		headers: response.headers,
		body: response.body,
		requiredKeyType: 'borrower',
		secrets: [apiKey],
	});
	return new NodeApiError(context.getNode(), { httpCode: mapped.httpCode, code: mapped.code ?? null } as JsonObject, {
		message: mapped.message,
		description: mapped.description,
		httpCode: mapped.httpCode,
	});
}

function failureReason(error: unknown): string {
	const { code, cause, message } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
	if (typeof cause?.code === 'string') return cause.code;
	if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
	return typeof message === 'string' && message ? message : 'unknown error';
}

function bodyText(body: unknown): string {
	if (typeof body === 'string') return body;
	return JSON.stringify(body) ?? '';
}

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function searchTerms(filter: string | undefined): string[] {
	return (filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** Every word of the search must appear in the contract's ID, status or loan asset. */
function matchesSearch(contract: IDataObject, terms: string[]): boolean {
	const haystack = [contract.id, contract.status, contract.loan_asset]
		.filter((part) => typeof part === 'string')
		.join(' ')
		.toLowerCase();
	return terms.every((term) => haystack.includes(term));
}

function toListItem(contract: IDataObject): INodeListSearchItems {
	return { name: describeContract(contract), value: contract.id as string };
}

/**
 * One line per contract, e.g. `Requested · UsdcPol · $1,500 · 30 days · 2026-11-20 (7a3f…)`:
 * status, asset, amount, duration, expiry date and the start of the ID. Missing fields are left out.
 */
export function describeContract(contract: IDataObject): string {
	const parts = [
		typeof contract.status === 'string' ? contract.status : undefined,
		typeof contract.loan_asset === 'string' ? contract.loan_asset : undefined,
		typeof contract.loan_amount === 'number'
			? `${currencyPrefix(contract.loan_asset)}${formatAmount(contract.loan_amount)}`
			: undefined,
		typeof contract.duration_days === 'number' ? `${contract.duration_days} days` : undefined,
		typeof contract.expiry === 'string' ? contract.expiry.slice(0, 10) : undefined,
	].filter((part): part is string => Boolean(part));
	return `${parts.join(' · ')} (${String(contract.id).slice(0, 4)}…)`;
}

const CURRENCY_PREFIXES: Record<string, string> = { Eur: '€', Chf: 'CHF ', Mxn: 'MX$' };

/** `$` for dollar stablecoins and USD; the sign or code of other fiat currencies. */
function currencyPrefix(asset: unknown): string {
	if (typeof asset !== 'string') return '';
	return CURRENCY_PREFIXES[asset] ?? (/^usd/i.test(asset) ? '$' : '');
}

function formatAmount(amount: number): string {
	return amount.toLocaleString('en-US', { maximumFractionDigits: 2 });
}
