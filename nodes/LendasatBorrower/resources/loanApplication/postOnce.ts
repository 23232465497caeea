import type { IDataObject, IExecutePaginationFunctions, INodeExecutionData } from 'n8n-workflow';

import { settle, toItems, type ApiClient, type OperationRequest } from '../../transport/apiRoute';
import { CLOCK_ALLOWANCE_MS, mayHaveBeenProcessed, withNote } from '../../transport/exchange';
import { isRecord } from '../../validation/checks';
import { applicationAnswer, applicationListAnswer, LOAN_APPLICATIONS_PATH } from './shared';

/*
 * Lendasat takes no idempotency key for loan applications, and the transport never sends a POST again
 * after a failure that may have happened after Lendasat stored it. So after such a failure (a 5xx, a
 * connection broken after sending, a success answer the node could not use) the node looks at the
 * account's applications: the one posted just now with exactly these fields is the answer; none means
 * it was not posted. The node never sends it again itself, but says which is the case.
 */

/**
 * The fields a posted application repeats as they were sent. Keys and derivation paths are left out:
 * Lendasat writes them in its own notation (e.g. h as '), so they could differ from what was sent.
 */
const SENT_FIELDS = [
	'ltv',
	'interest_rate',
	'loan_amount_min',
	'loan_amount_max',
	'duration_days_min',
	'duration_days_max',
	'loan_asset',
	'loan_type',
	'repayment_plan',
	'borrower_btc_address',
	'client_contract_id',
];

export async function postApplicationOnce(
	this: IExecutePaginationFunctions,
	api: ApiClient,
	request: OperationRequest,
): Promise<INodeExecutionData[]> {
	const sentAt = api.clock.now();
	const sent = await settle(api.send(request, 'object', { check: applicationAnswer }));
	if ('value' in sent) return toItems(sent.value);
	if (!mayHaveBeenProcessed(sent.error)) throw sent.error;

	await api.clock.sleep(api.settings.lookupSettleMs);
	const listed = await settle(
		api.send({ method: 'GET', url: LOAN_APPLICATIONS_PATH }, 'list', {
			check: applicationListAnswer,
		}),
	);
	if ('error' in listed) {
		throw withNote(
			sent.error,
			'It may have been posted, and looking for it failed, so the node did not send it again. Look at Loan Application → Get Many before running this item again.',
		);
	}
	const body = request.body as IDataObject;
	const posted = (listed.value as unknown[]).filter(
		(application) =>
			isRecord(application) &&
			postedSince(application, sentAt - CLOCK_ALLOWANCE_MS) &&
			sameFields(application, body),
	);
	if (posted.length === 1) return toItems(posted[0]);
	throw withNote(
		sent.error,
		posted.length === 0
			? 'Lendasat lists no application with these terms posted since: it was not posted, and running this item again is safe.'
			: `Lendasat lists ${posted.length} applications with these terms posted since, so the node cannot tell which is this one. Look at Loan Application → Get Many before running this item again.`,
	);
}

function postedSince(application: IDataObject, since: number): boolean {
	return (
		application.status === 'Available' &&
		typeof application.created_at === 'string' &&
		Date.parse(application.created_at) >= since
	);
}

function sameFields(application: IDataObject, body: IDataObject): boolean {
	return SENT_FIELDS.every((field) => comparable(body[field]) === comparable(application[field]));
}

/** Text compared without case (addresses and UUIDs may come back in another case), numbers as they are. */
function comparable(value: unknown): unknown {
	return typeof value === 'string' ? value.toLowerCase() : (value ?? null);
}
