/**
 * The n8n workflows of the contenders: our node's and a hand-wired HTTP Request node's. They send
 * what the fetch loop sends (bench/lib/requests.ts): the same headers and the same body.
 */
import { singleNodeWorkflow, type WorkflowFixture } from '../../harness/n8n';
import { HTTP_REQUEST_NODE_TYPE, HTTP_REQUEST_NODE_VERSION } from './httpRequestNode';
import { DURATION_DAYS, LIVE_FIELDS, OFFER_ID, liveContractRequestBody } from './requests';
import type { HttpRequestVariant, LiveTarget, PartnerBorrowerFrom } from './types';

/**
 * Contract → Create with default settings (no Options), the amount taken from each input item. For
 * the live dialect, the Additional Fields the live backend requires (the node then also sends a
 * client_contract_id, by which it looks for the contract after an ambiguous failure). With
 * `maxConcurrent`, Options → Max Parallel Requests set to it.
 */
export function nodeCreateWorkflow(live?: LiveTarget, maxConcurrent?: number): WorkflowFixture {
	return singleNodeWorkflow({
		resource: 'contract',
		operation: 'create',
		loanId: { __rl: true, mode: 'id', value: live?.offerId ?? OFFER_ID },
		loanAmount: '={{ $json.amount }}',
		durationDays: DURATION_DAYS,
		...(live && {
			additionalFields: {
				collateralAddress: LIVE_FIELDS.borrowerBtcAddress,
				repaymentAddress: LIVE_FIELDS.borrowerLoanAddress,
				borrowerPublicKey: LIVE_FIELDS.borrowerPk,
				derivationPath: LIVE_FIELDS.derivationPath,
				loanType: LIVE_FIELDS.loanType,
			},
		}),
		...(maxConcurrent !== undefined && { options: { maxConcurrent } }),
	});
}

/** The HTTP Request node's JSON body: the fetch loop's, with the amount from the input item. */
function httpRequestJsonBody(live?: LiveTarget): string {
	if (!live)
		return `={ "loan_id": "${OFFER_ID}", "loan_amount": {{ $json.amount }}, "duration_days": ${DURATION_DAYS} }`;
	const fields = Object.entries(liveContractRequestBody(live, 0)).map(([name, value]) =>
		name === 'loan_amount'
			? '"loan_amount": {{ $json.amount }}'
			: `${JSON.stringify(name)}: ${JSON.stringify(value)}`,
	);
	return `={ ${fields.join(', ')} }`;
}

/**
 * The partner template's Lendasat node (templates/partner-borrower-alerts.json, "New events"):
 * Contract → Get New Events for each input item (a row of the borrower table), acting with its
 * api_key, Borrower its borrower_id, Already Reported its `reported` column; or Contract → Get
 * Events with the same Borrower and key. Under "Continue (using regular output)" so that a failed
 * borrower shows as an item. With `events`, the Events parameter set to them (e.g. only Margin
 * Call: no event stands).
 */
export function nodePartnerPollWorkflow(
	operation: 'getNewEvents' | 'getEvents',
	maxConcurrent?: number,
	events?: string[],
	borrowerFrom: PartnerBorrowerFrom = 'parameters',
): WorkflowFixture {
	// Input Item Fields / List: the same row fields (api_key, borrower_id, reported, the fields' defaults), no expression.
	const perBorrower =
		borrowerFrom !== 'parameters'
			? { borrowerFrom }
			: {
					borrower: '={{ $json.borrower_id }}',
					...(operation === 'getNewEvents' && { reported: '={{ $json.reported }}' }),
				};
	return singleNodeWorkflow(
		{
			resource: 'contract',
			operation,
			...perBorrower,
			...(events && { events }),
			options: {
				...(borrowerFrom === 'parameters' && { borrowerApiKey: '={{ $json.api_key }}' }),
				...(maxConcurrent !== undefined && { maxConcurrent }),
			},
		},
		{ typeVersion: 1.1, onError: 'continueRegularOutput' },
	);
}

/** Borrowers per input item with Input Item List: an Aggregate node's output over a page of the table. */
export const PARTNER_LIST_SIZE = 500;

/** The poll's input items: a row per item, or with Input Item List the rows in lists of PARTNER_LIST_SIZE (field borrowers). */
export function partnerPollInput(
	rows: Array<Record<string, unknown>>,
	borrowerFrom: PartnerBorrowerFrom,
): Array<Record<string, unknown>> {
	if (borrowerFrom !== 'inputList') return rows;
	const lists = [];
	for (let start = 0; start < rows.length; start += PARTNER_LIST_SIZE)
		lists.push({ borrowers: rows.slice(start, start + PARTNER_LIST_SIZE) });
	return lists;
}

/**
 * n8n's floor for one request per borrower: its HTTP Request node sending the GET that the poll
 * sends first (the contract list, newest first, one page of 100) with the row's key in a header
 * expression, and nothing read from the answer.
 */
export function httpRequestPartnerPollWorkflow(baseUrl: string): WorkflowFixture {
	return httpRequestWorkflow(
		'b3f1c5e2-0000-4000-8000-0000000000b2',
		{
			method: 'GET',
			url: `${baseUrl}/api/contracts`,
			sendQuery: true,
			queryParameters: {
				parameters: [
					{ name: 'sort_by', value: 'created_at' },
					{ name: 'sort_order', value: 'desc' },
					{ name: 'page', value: '1' },
					{ name: 'limit', value: '100' },
				],
			},
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'x-api-key', value: '={{ $json.api_key }}' }] },
			options: {},
		},
		{ onError: 'continueRegularOutput' },
	);
}

/** A workflow of one n8n HTTP Request node: its parameters and its node settings (retries, On Error). */
function httpRequestWorkflow(
	id: string,
	parameters: Record<string, unknown>,
	settings: Record<string, unknown>,
): WorkflowFixture {
	return {
		nodes: [
			{
				id,
				name: 'HTTP Request',
				type: HTTP_REQUEST_NODE_TYPE,
				typeVersion: HTTP_REQUEST_NODE_VERSION,
				position: [0, 0],
				parameters,
				...settings,
			},
		],
		connections: {},
	};
}

/** Contract → Get Many with Return All, full records (Simplify off: the same data the raw loop keeps). */
export function nodeListWorkflow(): WorkflowFixture {
	return singleNodeWorkflow({
		resource: 'contract',
		operation: 'getAll',
		returnAll: true,
		simplify: false,
	});
}

/**
 * What a user builds by hand in n8n's HTTP Request node for Contract → Create: POST with the key in
 * a header and the JSON body from an expression; optionally an Idempotency-Key header built from the
 * execution ID and item index (what our node sends by default), Retry On Fail and Batching.
 */
export function httpRequestCreateWorkflow(
	baseUrl: string,
	apiKey: string,
	variant: HttpRequestVariant,
	live?: LiveTarget,
): WorkflowFixture {
	const headers = [
		{ name: 'x-api-key', value: apiKey },
		{ name: 'Accept', value: 'application/json' },
	];
	if (variant.idempotencyKey) {
		headers.push({
			name: 'Idempotency-Key',
			value: "={{ 'n8n-' + $execution.id + '-' + $itemIndex }}",
		});
	}
	const options = variant.batching
		? {
				batching: {
					batch: { batchSize: variant.batching.size, batchInterval: variant.batching.intervalMs },
				},
			}
		: {};
	const retry = variant.retryOnFail
		? { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 }
		: {};
	return httpRequestWorkflow(
		'b3f1c5e2-0000-4000-8000-0000000000b1',
		{
			method: 'POST',
			url: `${baseUrl}/api/contracts`,
			sendHeaders: true,
			headerParameters: { parameters: headers },
			sendBody: true,
			contentType: 'json',
			specifyBody: 'json',
			jsonBody: httpRequestJsonBody(live),
			options,
		},
		retry,
	);
}
