import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type ILoadOptionsFunctions,
	type IN8nHttpFullResponse,
	type INodeListSearchItems,
	type INodeListSearchResult,
	type INodePropertyMode,
	type JsonObject,
} from 'n8n-workflow';

import { baseUrlOf, CREDENTIAL_TYPE, KEY_TYPE_NAMES, keyTypeOf } from './credentials';
import { excerptOf, mapApiError, redactSecrets } from './errors';
import { describeFailure, networkFailure } from './retry';

const PICKER_LABEL = 'Loan Offer list';

/**
 * The two ways to name a loan offer, shared by every parameter that takes one: pick it from the
 * searchable list, or enter its ID. Declared under a `modes` key so that the lint reads them as
 * modes rather than as parameters missing a default.
 */
const loanOfferLocator: { modes: INodePropertyMode[] } = {
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a loan offer...',
			typeOptions: { searchListMethod: 'searchLoanOffers', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 0b7a5f4e-3a49-4c43-9d7e-2f1c7f0c9a11',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$',
						errorMessage: 'Not a loan offer ID: expected a UUID such as 0b7a5f4e-3a49-4c43-9d7e-2f1c7f0c9a11',
					},
				},
			],
		},
	],
};

export const loanOfferModes = loanOfferLocator.modes;

/**
 * The listSearch method behind "From List": every offer the key can see (all loan types, not
 * only the API's default Direct ones), narrowed by the search text, cheapest interest first.
 */
export async function searchLoanOffers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	if (keyTypeOf(credentials) !== 'borrower') {
		throw new NodeOperationError(
			this.getNode(),
			`The ${PICKER_LABEL} needs a ${KEY_TYPE_NAMES.borrower}, but the credential holds a ${KEY_TYPE_NAMES.master}`,
			{ description: 'Choose a credential whose Key Type is Borrower Key, or enter the offer ID By ID.' },
		);
	}
	const offers = await fetchOffers(this, baseUrlOf(credentials), String(credentials.apiKey ?? ''));
	const terms = searchTerms(filter);
	const results = offers
		.filter((offer) => typeof offer.id === 'string' && matchesSearch(offer, terms))
		.sort(byInterestRate)
		.map(toListItem);
	return { results };
}

async function fetchOffers(context: ILoadOptionsFunctions, baseUrl: string, apiKey: string): Promise<IDataObject[]> {
	const request: IHttpRequestOptions = {
		method: 'GET',
		url: `${baseUrl}/api/offers`,
		qs: { loan_type: 'All' },
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
		// The reason goes into the description: n8n replaces a message naming a network code with its own text.
		throw new NodeApiError(context.getNode(), { networkError: networkCodeOf(error) ?? 'unknown' } as JsonObject, {
			message: 'Could not reach Lendasat to load the loan offers',
			description: redactSecrets(
				`${PICKER_LABEL}: the request to ${baseUrl} failed: ${failureReason(error)}. Check the credential's environment or base URL, and that the host is reachable from n8n. You can also enter the offer ID By ID.`,
				[apiKey],
			),
		});
	}
	if (response.statusCode >= 400) throw offerListError(context, response, apiKey);
	if (!Array.isArray(response.body)) throw notAnOfferList(context.getNode(), PICKER_LABEL, response, [apiKey]);
	return response.body.filter(isRecord);
}

function offerListError(context: ILoadOptionsFunctions, response: IN8nHttpFullResponse, apiKey: string): NodeApiError {
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
	const code = networkCodeOf(error);
	if (code) return describeFailure(networkFailure(code));
	const { message } = (error ?? {}) as { message?: unknown };
	return typeof message === 'string' && message ? message : 'unknown error';
}

function networkCodeOf(error: unknown): string | undefined {
	const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
	const candidate = typeof cause?.code === 'string' ? cause.code : code;
	return typeof candidate === 'string' && /^E[A-Z_]+$/.test(candidate) ? candidate : undefined;
}

/** The error for a successful answer that is not the JSON array GET /api/offers returns. */
export function notAnOfferList(
	node: INode,
	label: string,
	response: IN8nHttpFullResponse,
	secrets: string[],
): NodeApiError {
	const body: unknown = response.body;
	const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
	return new NodeApiError(node, { httpCode: String(response.statusCode) } as JsonObject, {
		message: 'Lendasat did not answer with a list of loan offers',
		description: redactSecrets(
			`${label}: expected a JSON array, got: "${excerptOf(text)}". Check the credential's environment or base URL.`,
			secrets,
		),
	});
}

export function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function searchTerms(filter: string | undefined): string[] {
	return (filter ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** Every word of the search must appear in the offer's asset, lender, name or ID. */
function matchesSearch(offer: IDataObject, terms: string[]): boolean {
	const haystack = [offer.loan_asset, lenderNameOf(offer), offer.name, offer.id]
		.filter((part) => typeof part === 'string')
		.join(' ')
		.toLowerCase();
	return terms.every((term) => haystack.includes(term));
}

function byInterestRate(a: IDataObject, b: IDataObject): number {
	const rateA = typeof a.interest_rate === 'number' ? a.interest_rate : Infinity;
	const rateB = typeof b.interest_rate === 'number' ? b.interest_rate : Infinity;
	if (rateA !== rateB) return rateA < rateB ? -1 : 1;
	return String(a.id).localeCompare(String(b.id));
}

function toListItem(offer: IDataObject): INodeListSearchItems {
	return { name: describeOffer(offer), value: offer.id as string };
}

/** The lender's name from the offer's nested `lender` record, if the server sent one. */
export function lenderNameOf(offer: IDataObject): string | undefined {
	const lender = offer.lender;
	return isRecord(lender) && typeof lender.name === 'string' ? lender.name : undefined;
}

/**
 * What a borrower compares, in one line:
 * `UsdcPol · $100–$10,000 · 7–365 days · 12.0% · Northwind Lending`, plus "KYC" when required.
 */
export function describeOffer(offer: IDataObject): string {
	const prefix = currencyPrefix(offer.loan_asset);
	return [
		typeof offer.loan_asset === 'string' ? offer.loan_asset : 'Unknown asset',
		range(offer.loan_amount_min, offer.loan_amount_max, (amount) => `${prefix}${formatAmount(amount)}`),
		`${range(offer.duration_days_min, offer.duration_days_max, String)} days`,
		typeof offer.interest_rate === 'number' ? `${(offer.interest_rate * 100).toFixed(1)}%` : '?%',
		lenderNameOf(offer),
		offer.kyc_link ? 'KYC' : undefined,
	]
		.filter((part): part is string => Boolean(part))
		.join(' · ');
}

const CURRENCY_PREFIXES: Record<string, string> = { Eur: '€', Chf: 'CHF ', Mxn: 'MX$' };

function currencyPrefix(asset: unknown): string {
	if (typeof asset !== 'string') return '';
	return CURRENCY_PREFIXES[asset] ?? (/^usd/i.test(asset) ? '$' : '');
}

function range(min: unknown, max: unknown, format: (value: number) => string): string {
	const low = typeof min === 'number' ? format(min) : '?';
	const high = typeof max === 'number' ? format(max) : '?';
	return low === high ? low : `${low}–${high}`;
}

function formatAmount(amount: number): string {
	return amount.toLocaleString('en-US', { maximumFractionDigits: 2 });
}
