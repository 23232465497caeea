/**
 * Contracts: create (spec §4.2 with the live fields), list, detail, cancel, extend, installment-paid
 * (live-api §2.5).
 */
import { ApiError, badRequest, liveJsonRejection, liveQueryRejection, shorten, SOMETHING_WENT_WRONG } from '../errors';
import {
	CANCELLABLE_STATUSES,
	createContractEntry,
	extendContract,
	findInstallment,
	markInstallmentPaid,
} from '../loans';
import { paginate, parsePageRequest } from '../pagination';
import { caller, emptyReply, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import { changeStatus, nowIso, ownedContract } from '../state';
import type { Contract, ContractEntry, LoanOffer } from '../types';
import {
	formatAmount,
	isPositiveInteger,
	isPositiveNumber,
	isUuid,
	optionalString,
	requireFields,
	requireObject,
	roundMoney,
	type JsonObject,
} from '../validate';
import { offerNotFound } from './offers';

interface ContractRequest {
	offerId: string;
	loanAmount: number;
	durationDays: number;
	collateralAddress?: string;
	repaymentAddress?: string;
}

/** The live backend names the offer `id`; the spec names it `loan_id` (which wins when both are sent). */
function offerIdField(body: JsonObject): string {
	if (body.loan_id === undefined || body.loan_id === null) {
		if (body.id !== undefined && body.id !== null) return 'id';
	}
	return 'loan_id';
}

function validateOfferId(value: unknown, field: string): string {
	if (isUuid(value)) return value;
	throw badRequest(
		'INVALID_LOAN_ID',
		`Field ${field} must be a UUID, got ${shorten(value)}`,
		typeof value === 'string' ? SOMETHING_WENT_WRONG : liveJsonRejection(`${field}: invalid type, expected a string`),
	);
}

function validateAmountType(value: unknown): number {
	if (isPositiveNumber(value)) return roundMoney(value);
	throw badRequest(
		'INVALID_AMOUNT',
		`Field loan_amount must be a positive number, got ${shorten(value)}`,
		typeof value === 'number'
			? { message: `Invalid loan amount: $${shorten(value)}` }
			: liveJsonRejection('loan_amount: invalid type, expected f64'),
	);
}

function validateDurationType(value: unknown): number {
	if (isPositiveInteger(value)) return value;
	const live =
		value === 0
			? { message: 'Loan duration cannot be zero' }
			: typeof value === 'number' && Number.isInteger(value)
				? { message: `Invalid loan duration: ${value} days` }
				: liveJsonRejection('duration_days: invalid type, expected i32');
	throw badRequest('INVALID_DURATION', `Field duration_days must be a positive integer, got ${shorten(value)}`, live);
}

function parseContractRequest(body: JsonObject): ContractRequest {
	const idField = offerIdField(body);
	requireFields(body, [idField, 'loan_amount', 'duration_days']);
	return {
		offerId: validateOfferId(body[idField], idField),
		loanAmount: validateAmountType(body.loan_amount),
		durationDays: validateDurationType(body.duration_days),
		collateralAddress: optionalString(body, 'collateral_address'),
		repaymentAddress: optionalString(body, 'repayment_address'),
	};
}

function availableOffer(ctx: RequestContext, offerId: string): LoanOffer {
	const offer = ctx.state.offers.get(offerId);
	if (offer && offer.status === 'Available') return offer;
	throw offerNotFound(offerId, SOMETHING_WENT_WRONG);
}

function checkOfferBounds(offer: LoanOffer, request: ContractRequest): void {
	const { loanAmount, durationDays } = request;
	if (loanAmount < offer.loan_amount_min || loanAmount > offer.loan_amount_max) {
		throw badRequest(
			'INVALID_AMOUNT',
			`Invalid loan amount: $${formatAmount(loanAmount)} not in range $${formatAmount(offer.loan_amount_min)}-$${formatAmount(offer.loan_amount_max)}`,
		);
	}
	if (durationDays < offer.duration_days_min || durationDays > offer.duration_days_max) {
		throw badRequest(
			'INVALID_DURATION',
			`Invalid loan duration: ${durationDays} days not in range ${offer.duration_days_min}-${offer.duration_days_max}`,
		);
	}
}

/** The spec fields that identify "the same contract request" for duplicate counting. */
function canonicalRequest(request: ContractRequest): string {
	return JSON.stringify([
		request.offerId,
		request.loanAmount,
		request.durationDays,
		request.collateralAddress ?? null,
		request.repaymentAddress ?? null,
	]);
}

function createContract(ctx: RequestContext): Reply {
	const { apiKey, user } = caller(ctx);
	const body = requireObject(ctx.body, ['loan_id', 'loan_amount', 'duration_days']);
	const request = parseContractRequest(body);
	const offer = availableOffer(ctx, request.offerId);
	checkOfferBounds(offer, request);
	const entry = createContractEntry(ctx.state, {
		offer,
		owner: user.id,
		apiKey,
		request: body,
		loanAmount: request.loanAmount,
		durationDays: request.durationDays,
		status: ctx.config.dialect === 'spec' ? 'pending' : 'Requested',
		createdAt: nowIso(ctx.state),
		loanType: optionalString(body, 'loan_type'),
		clientContractId: optionalString(body, 'client_contract_id'),
		borrowerBtcAddress: optionalString(body, 'borrower_btc_address'),
		borrowerLoanAddress: optionalString(body, 'borrower_loan_address'),
		borrowerPk: optionalString(body, 'borrower_pk'),
		borrowerDerivationPath: optionalString(body, 'borrower_derivation_path'),
		collateralAddress: request.collateralAddress,
		repaymentAddress: request.repaymentAddress,
	});
	ctx.hooks.contractCreated(apiKey, canonicalRequest(request));
	return jsonReply(entry.contract, ctx.config.createStatus);
}

const SORT_KEYS: Record<string, (contract: Contract) => string | number> = {
	created_at: (contract) => contract.created_at,
	loan_amount: (contract) => contract.loan_amount,
	expiry_date: (contract) => contract.expiry,
	interest_rate: (contract) => contract.interest_rate,
	status: (contract) => contract.status,
	collateral_sats: (contract) => contract.collateral_sats,
	updated_at: (contract) => contract.updated_at,
};

function queryEnum(query: Record<string, string>, name: string, allowed: string[], fallback: string): string {
	const value = query[name] || fallback;
	if (allowed.includes(value)) return value;
	throw badRequest(
		'INVALID_QUERY',
		`Parameter ${name} must be one of ${allowed.join(', ')}, got ${shorten(value)}`,
		liveQueryRejection(`${name}: unknown variant \`${shorten(value)}\``),
	);
}

/** ContractStatus values compared case- and underscore-insensitively (PrincipalGiven = principal_given). */
function normaliseStatus(status: string): string {
	return status.replace(/[_\-\s]/g, '').toLowerCase();
}

function statusFilter(raw: string | undefined): ((entry: ContractEntry) => boolean) | null {
	const wanted = new Set((raw ?? '').split(',').map(normaliseStatus).filter(Boolean));
	if (wanted.size === 0) return null;
	return (entry) => wanted.has(normaliseStatus(entry.contract.status));
}

function compareBy(key: (contract: Contract) => string | number, descending: boolean) {
	const direction = descending ? -1 : 1;
	return (a: ContractEntry, b: ContractEntry): number => {
		const left = key(a.contract);
		const right = key(b.contract);
		if (left !== right) return (left < right ? -1 : 1) * direction;
		return (a.contract.id < b.contract.id ? -1 : a.contract.id > b.contract.id ? 1 : 0) * direction;
	};
}

function listContracts(ctx: RequestContext): Reply {
	const { user } = caller(ctx);
	const pageRequest = parsePageRequest(ctx.query, { defaultLimit: 10, maxLimit: 100 });
	const sortBy = queryEnum(ctx.query, 'sort_by', Object.keys(SORT_KEYS), 'created_at');
	const sortOrder = queryEnum(ctx.query, 'sort_order', ['asc', 'desc'], 'desc');
	const owned = ctx.state.contractsByOwner.get(user.id) ?? [];
	const filter = statusFilter(ctx.query.status);
	const selected = filter ? owned.filter(filter) : owned.slice();
	selected.sort(compareBy(SORT_KEYS[sortBy], sortOrder === 'desc'));
	const page = paginate(selected, pageRequest);
	return jsonReply({ ...page, data: page.data.map((entry) => entry.contract) });
}

function getContract(ctx: RequestContext): Reply {
	return jsonReply(ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id).contract);
}

function cancelContract(ctx: RequestContext): Reply {
	const entry = ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
	const status = entry.contract.status;
	if (!CANCELLABLE_STATUSES.has(status)) {
		throw badRequest('INVALID_STATE', `Cannot cancel a contract request with status ${status}`);
	}
	changeStatus(ctx.state, entry, 'Cancelled');
	return emptyReply();
}

function extensionDays(body: JsonObject): number {
	requireFields(body, ['new_duration']);
	const value = body.new_duration;
	if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
	throw badRequest(
		'INVALID_DURATION',
		`Field new_duration must be an integer number of days, got ${shorten(value)}`,
		liveJsonRejection('new_duration: invalid type, expected i32'),
	);
}

function checkExtension(contract: Contract, days: number): void {
	if (contract.status !== 'PrincipalGiven') {
		throw badRequest('INVALID_STATE', `Cannot extend a contract with status ${contract.status}`, {
			message: 'The contract cannnot be extended',
		});
	}
	if (!contract.can_extend) {
		throw badRequest('EXTENSION_NOT_ALLOWED', 'The contract cannnot be extended');
	}
	if (days <= 0) throw badRequest('INVALID_DURATION', 'Loan extension duration cannot be zero');
	if (days > contract.extension_max_duration_days) {
		throw badRequest(
			'INVALID_DURATION',
			`Cannot extend contract by ${days} days. Maximum extension is ${contract.extension_max_duration_days} days`,
		);
	}
}

function extend(ctx: RequestContext): Reply {
	const entry = ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
	const days = extensionDays(requireObject(ctx.body, ['new_duration']));
	checkExtension(entry.contract, days);
	return jsonReply(extendContract(ctx.state, entry, days).contract);
}

function installmentPaid(ctx: RequestContext): Reply {
	const entry = ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
	const body = requireObject(ctx.body, ['installment_id', 'payment_id']);
	requireFields(body, ['installment_id', 'payment_id']);
	const installmentId = optionalString(body, 'installment_id') ?? '';
	const paymentId = optionalString(body, 'payment_id') ?? '';
	const status = entry.contract.status;
	if (status !== 'PrincipalGiven') {
		throw badRequest('INVALID_STATE', `Cannot mark an installment as paid for a contract with status ${status}`);
	}
	const installment = findInstallment(entry.contract, installmentId);
	if (!installment) {
		throw new ApiError(400, 'INSTALLMENT_NOT_FOUND', `Installment ${shorten(installmentId)} not found in contract ${entry.contract.id}`);
	}
	markInstallmentPaid(ctx.state, entry, installment, paymentId);
	return emptyReply();
}

export const contractRoutes: Route[] = [
	{ method: 'POST', pattern: '/api/contracts', auth: 'borrower', body: 'json', idempotent: true, handle: createContract },
	{ method: 'GET', pattern: '/api/contracts', auth: 'borrower', body: 'none', handle: listContracts },
	{ method: 'GET', pattern: '/api/contracts/:id', auth: 'borrower', body: 'none', handle: getContract },
	{ method: 'DELETE', pattern: '/api/contracts/:id', auth: 'borrower', body: 'none', handle: cancelContract },
	{ method: 'POST', pattern: '/api/contracts/:id/extend', auth: 'borrower', body: 'json', handle: extend },
	{ method: 'PUT', pattern: '/api/contracts/:id/installment-paid', auth: 'borrower', body: 'json', handle: installmentPaid },
];
