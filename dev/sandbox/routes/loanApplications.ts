/**
 * Loan applications (live-api §2.6): create, list, get, edit, delete.
 *
 * Live dialect = lendasat/iframe 49781f87 hub/src/routes/borrower/loan_applications.rs (LA), quirks included:
 * - create and edit read the body with plain `axum::Json` (LA:76, LA:335): its rejections (415, 400
 *   syntax, 422 serde) are plain text, not `{"message": …}`; the handlers' own errors are `{"message": …}`;
 * - create checks, in order (LA:78-120): jail (400 "Invalid request"), LTV, interest rate, amounts, durations;
 * - the list is a bare array of everything the borrower ever had (Deleted included), unordered
 *   (db/loan_applications.rs:111-151);
 * - get of an unknown or foreign id is 400 "Loan application does not exist" (LA:450-453);
 * - edit takes exactly the six terms, checks none of them and no status, inserts a NEW application
 *   (new id, Available) with the rest copied, then marks the old one Deleted (LA:337-391);
 * - delete is a PUT that marks the caller's application Deleted whatever its status, and answers
 *   200 `null` even for an unknown id (LA:231-273, db/loan_applications.rs:194-216);
 * - a jailed borrower gets 400 "Invalid request" on create, get and edit (not on list and delete).
 *
 * Spec dialect: the same endpoints with `{error, code, details}`, 404 LOAN_APPLICATION_NOT_FOUND for an
 * unknown id (delete included), edit checked like create, a blocked account 403 ACCOUNT_BLOCKED.
 */
import { ApiError } from '../errors';
import {
	insertLoanApplication,
	loanApplicationsOf,
	ownLoanApplication,
	type LoanApplicationDraft,
} from '../loanApplications';
import { caller, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import {
	collateralAddressProblem,
	derivationPathProblem,
	deserializeLivePlain,
	publicKeyProblem,
	type FieldSpec,
} from '../serde';
import { nowIso } from '../state';
import type { LoanApplication } from '../types';
import { BECH32_CHARSET, bech32Checksum } from '../bitcoin';

/** model.rs LoanAsset, in declaration order. */
export const LOAN_ASSETS = [
	'UsdcPol',
	'UsdtPol',
	'UsdcEth',
	'UsdtEth',
	'UsdcStrk',
	'UsdtStrk',
	'UsdcSol',
	'UsdtSol',
	'Usd',
	'Eur',
	'Chf',
	'Mxn',
	'UsdtLiquid',
] as const;

/** model.rs LoanType, in declaration order. */
const LOAN_TYPES = ['PayWithMoon', 'MoonCardInstant', 'StableCoin', 'Fiat', 'Bringin'] as const;

/** model.rs RepaymentPlan (`rename_all = "snake_case"`). */
const REPAYMENT_PLANS = ['bullet', 'interest_only_weekly', 'interest_only_monthly'] as const;

// ---------------------------------------------------------------------------------------------
// Npub (model/npub.rs: nostr's PublicKey::from_bech32; "Invalid npub format: {e}")

/** A bech32 (not bech32m) string with hrp npub and 32 bytes of data; the curve check is left out [INF texts]. */
function npubProblem(value: string): string | null {
	const lower = value.toLowerCase();
	if (value !== lower && value !== value.toUpperCase()) return 'Invalid npub format: mixed case';
	if (!lower.startsWith('npub1')) return 'Invalid npub format: wrong prefix';
	const data = [...lower.slice(5)].map((char) => BECH32_CHARSET.indexOf(char));
	if (data.some((word) => word < 0)) return 'Invalid npub format: invalid character';
	if (bech32Checksum('npub', data) !== 1) {
		return 'Invalid npub format: invalid checksum';
	}
	if (data.length !== 52 + 6 || (data[51] & 0x0f) !== 0)
		return 'Invalid npub format: invalid length';
	return null;
}

// ---------------------------------------------------------------------------------------------
// Bodies

/** model.rs CreateLoanApplicationSchema, in declaration order. */
const CREATE_FIELDS: FieldSpec[] = [
	{ name: 'ltv', type: { kind: 'decimal' } },
	{ name: 'interest_rate', type: { kind: 'decimal' } },
	{ name: 'loan_amount_min', type: { kind: 'decimal' } },
	{ name: 'loan_amount_max', type: { kind: 'decimal' } },
	{ name: 'duration_days_min', type: { kind: 'i32' } },
	{ name: 'duration_days_max', type: { kind: 'i32' } },
	{ name: 'loan_asset', type: { kind: 'enum', variants: LOAN_ASSETS } },
	{ name: 'loan_type', type: { kind: 'enum', variants: LOAN_TYPES } },
	{ name: 'borrower_loan_address', type: { kind: 'string' }, optional: true },
	{
		name: 'borrower_btc_address',
		// An application names no collateral asset (CreateLoanApplicationSchema): either kind [INF].
		type: { kind: 'string', expecting: 'a Bitcoin address', check: collateralAddressProblem },
	},
	{
		name: 'borrower_pk',
		type: { kind: 'string', expecting: 'an ASCII hex string', check: publicKeyProblem },
	},
	{
		name: 'borrower_derivation_path',
		type: { kind: 'string', expecting: 'a BIP-32 derivation path', check: derivationPathProblem },
	},
	{ name: 'borrower_npub', type: { kind: 'string', check: npubProblem }, optional: true },
	{ name: 'client_contract_id', type: { kind: 'uuid' }, optional: true },
	{ name: 'repayment_plan', type: { kind: 'enum', variants: REPAYMENT_PLANS } },
];

/** LA:275-291 EditLoanApplicationRequest: the six terms, all required, in declaration order. */
const EDIT_FIELDS: FieldSpec[] = [
	{ name: 'loan_amount_min', type: { kind: 'decimal' } },
	{ name: 'loan_amount_max', type: { kind: 'decimal' } },
	{ name: 'duration_days_min', type: { kind: 'i32' } },
	{ name: 'duration_days_max', type: { kind: 'i32' } },
	{ name: 'interest_rate', type: { kind: 'decimal' } },
	{ name: 'ltv', type: { kind: 'decimal' } },
];

type Terms = Pick<
	LoanApplication,
	| 'ltv'
	| 'interest_rate'
	| 'loan_amount_min'
	| 'loan_amount_max'
	| 'duration_days_min'
	| 'duration_days_max'
>;

/** The body as the Rust struct, or serde's rejection: plain text in the live dialect (plain axum::Json). */
function readBody(
	ctx: RequestContext,
	structName: string,
	fields: FieldSpec[],
): Record<string, unknown> {
	return deserializeLivePlain(ctx.rawBody, ctx.body, structName, fields);
}

// ---------------------------------------------------------------------------------------------
// Checks

function handlerError(
	status: number,
	code: string,
	message: string,
	live: { status?: number } = {},
): ApiError {
	return new ApiError(status, code, message, { status: live.status ?? status, message });
}

/** LA:454 "Invalid request" for a jailed borrower (spec: 403 ACCOUNT_BLOCKED). */
function refuseJailed(ctx: RequestContext): void {
	if (!ctx.state.jailedUsers.has(caller(ctx).user.id)) return;
	throw new ApiError(403, 'ACCOUNT_BLOCKED', 'This borrower account is blocked', {
		status: 400,
		message: 'Invalid request',
	});
}

/** LA:78-120, in its order; the messages are the live ones. */
function checkTerms(terms: Terms): void {
	const { ltv, interest_rate: rate, loan_amount_min: min, loan_amount_max: max } = terms;
	if (ltv > 1 || ltv < 0)
		throw handlerError(400, 'INVALID_LTV', `LTV must be between 0 and 1 but was ${ltv}`);
	if (rate > 1 || rate < 0)
		throw handlerError(
			400,
			'INVALID_INTEREST_RATE',
			`Interest rate must be between 0 and 1 but was ${rate}`,
		);
	if (min === 0 || max === 0 || min > max)
		throw handlerError(400, 'INVALID_AMOUNT', `Loan amount not valid. Was ${min}`);
	const { duration_days_min: daysMin, duration_days_max: daysMax } = terms;
	if (daysMin > daysMax || daysMin <= 0)
		throw handlerError(400, 'INVALID_DURATION', `Duration not valid. Was ${daysMin}`);
}

/** LA:450-453: 400 "Loan application does not exist" (the documented 404 never happens; spec: 404). */
function notFound(id: string): ApiError {
	return new ApiError(
		404,
		'LOAN_APPLICATION_NOT_FOUND',
		`Loan application ${id.slice(0, 60)} not found`,
		{
			status: 400,
			message: 'Loan application does not exist',
		},
	);
}

function ownOrNotFound(ctx: RequestContext, id: string): LoanApplication {
	const application = ownLoanApplication(ctx.state, caller(ctx).user.id, id);
	if (!application) throw notFound(id);
	return application;
}

// ---------------------------------------------------------------------------------------------
// Handlers

function createApplication(ctx: RequestContext): Reply {
	const body = readBody(
		ctx,
		'CreateLoanApplicationSchema',
		CREATE_FIELDS,
	) as unknown as LoanApplicationDraft;
	refuseJailed(ctx);
	checkTerms(body);
	return jsonReply(insertLoanApplication(ctx.state, caller(ctx).user.id, body, nowIso(ctx.state)));
}

function listApplications(ctx: RequestContext): Reply {
	return jsonReply(loanApplicationsOf(ctx.state, caller(ctx).user.id));
}

function getApplication(ctx: RequestContext): Reply {
	refuseJailed(ctx);
	return jsonReply(ownOrNotFound(ctx, ctx.params.id));
}

/** LA:337-391: a new application from the six terms and the old one's other fields; then the old one is Deleted. */
function editApplication(ctx: RequestContext): Reply {
	const terms = readBody(ctx, 'EditLoanApplicationRequest', EDIT_FIELDS) as unknown as Terms;
	refuseJailed(ctx);
	const old = ownOrNotFound(ctx, ctx.params.id);
	// None of create's checks run on an edit in the live backend.
	if (ctx.config.dialect === 'spec') checkTerms(terms);
	const at = nowIso(ctx.state);
	const kept: LoanApplicationDraft = {
		...terms,
		loan_asset: old.loan_asset,
		loan_type: old.loan_type,
		borrower_loan_address: old.borrower_loan_address,
		borrower_btc_address: old.borrower_btc_address,
		borrower_pk: old.borrower_pk,
		borrower_derivation_path: old.borrower_derivation_path,
		borrower_npub: old.borrower_npub,
		client_contract_id: old.client_contract_id,
		repayment_plan: old.repayment_plan,
	};
	const created = insertLoanApplication(ctx.state, old.borrower_id, kept, at);
	old.status = 'Deleted';
	old.updated_at = at;
	return jsonReply(created);
}

/** LA:231-273: `UPDATE … SET status = 'Deleted'` for the caller's id, no existence or status check. */
function deleteApplication(ctx: RequestContext): Reply {
	const application = ownLoanApplication(ctx.state, caller(ctx).user.id, ctx.params.id);
	if (application) {
		application.status = 'Deleted';
		application.updated_at = nowIso(ctx.state);
	} else if (ctx.config.dialect === 'spec') {
		throw notFound(ctx.params.id);
	}
	return jsonReply(null);
}

export const loanApplicationRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/loan-applications',
		auth: 'borrower',
		body: 'none',
		handle: listApplications,
	},
	{
		method: 'POST',
		pattern: '/api/loan-applications',
		auth: 'borrower',
		body: 'json',
		plainJsonRejections: true,
		handle: createApplication,
	},
	{
		method: 'GET',
		pattern: '/api/loan-applications/:id',
		auth: 'borrower',
		body: 'none',
		handle: getApplication,
	},
	{
		method: 'PUT',
		pattern: '/api/loan-applications/edit/:id',
		auth: 'borrower',
		body: 'json',
		plainJsonRejections: true,
		handle: editApplication,
	},
	{
		method: 'PUT',
		pattern: '/api/loan-applications/delete/:id',
		auth: 'borrower',
		body: 'none',
		handle: deleteApplication,
	},
];
