/**
 * PUT /api/contracts/{id}/fiat-details: hub 0.8.2 routes/borrower/contracts.rs:969-1012
 * (put_provide_fiat_loan_details) and db/fiat_loan_details.rs:8-74 (insert_borrower).
 */
import { ApiError, SOMETHING_WENT_WRONG } from '../errors';
import { caller, emptyReply, type RequestContext, type Route } from '../router';
import { deserializeLive } from '../serde';
import { nowIso, ownedContract } from '../state';
import { requireFields, requireObject, requireString } from '../validate';
import { FIAT_WRAPPER_FIELDS } from './contracts';

const WRAPPER_FIELDS = [
	'details',
	'encrypted_encryption_key_borrower',
	'encrypted_encryption_key_lender',
];

/**
 * FiatLoanDetailsWrapper through AppJson (serde 422s), then the caller's contract (unknown or
 * foreign: 500 "Something went wrong"), then the insert: fiat_loan_details_borrower has UNIQUE
 * (contract_id) (migrations/20250210082513_add_fiat_loans.up.sql:79-102), so a second set is the
 * same 500. No status, loan asset or content is checked: the fields are ciphertext to the server.
 * Answers an empty 200. The contract then shows {details, encrypted_encryption_key} (the borrower's)
 * as fiat_loan_details_borrower. The spec dialect: 404 CONTRACT_NOT_FOUND, 409 FIAT_DETAILS_EXIST.
 */
function provideFiatDetails(ctx: RequestContext): ReturnType<Route['handle']> {
	let body: Record<string, unknown>;
	if (ctx.config.dialect === 'live') {
		body = deserializeLive(ctx.rawBody, ctx.body, 'FiatLoanDetailsWrapper', FIAT_WRAPPER_FIELDS);
	} else {
		body = requireObject(ctx.body, WRAPPER_FIELDS);
		requireFields(body, WRAPPER_FIELDS);
		requireObject(body.details, []);
		requireString(body, 'encrypted_encryption_key_borrower', 'INVALID_FIELD');
		requireString(body, 'encrypted_encryption_key_lender', 'INVALID_FIELD');
	}
	const entry = ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
	if (entry.contract.fiat_loan_details_borrower) {
		throw new ApiError(
			409,
			'FIAT_DETAILS_EXIST',
			'This contract has its bank details already',
			SOMETHING_WENT_WRONG,
		);
	}
	entry.contract.fiat_loan_details_borrower = {
		details: ctx.body && (ctx.body as Record<string, unknown>).details,
		encrypted_encryption_key: body.encrypted_encryption_key_borrower as string,
	};
	entry.contract.updated_at = nowIso(ctx.state);
	return emptyReply();
}

export const fiatDetailsRoutes: Route[] = [
	{
		method: 'PUT',
		pattern: '/api/contracts/:id/fiat-details',
		auth: 'borrower',
		body: 'json',
		handle: provideFiatDetails,
	},
];
