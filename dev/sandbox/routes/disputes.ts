/**
 * Disputes (lendasat/iframe 49781f87 hub/src/routes/borrower/dispute.rs; schema.d.ts /api/disputes*):
 * GET /api/disputes?contract_id= (:63-75), POST /api/disputes (:101-158), PUT /api/disputes/{dispute_id}
 * (:182-193), PUT /api/disputes/{dispute_id}/resolve (:220-238). Bodies go through AppJson, so their
 * rejections are `{message}` (:250-320); the query and the path are axum's own extractors, whose
 * rejections are plain text. Every database failure is 500 "Something went wrong" (:305-308).
 *
 * The live backend checks little: GET lists the disputes of any contract, the caller's or not (no
 * ownership check), and an unknown one gives []; a message can be added to any dispute, another
 * borrower's or a closed one (add_borrower_message inserts without a check; an unknown dispute id
 * fails the foreign key: 500); a dispute can be opened on a contract in any status. The specification
 * has no disputes: its dialect serves the same routes strictly (the caller's contracts and disputes
 * only, 404 otherwise) with `{error, code, details}`.
 */
import { ApiError, badRequest, liveQueryRejection, shorten, SOMETHING_WENT_WRONG } from '../errors';
import {
	addDisputeMessage,
	closeDispute,
	disputesOf,
	hasOpenDispute,
	openDispute,
	resolveProblem,
	withoutMessages,
	type Party,
} from '../disputes';
import {
	caller,
	emptyReply,
	jsonReply,
	type Reply,
	type RequestContext,
	type Route,
} from '../router';
import { deserializeLive, uuidProblem, type FieldSpec } from '../serde';
import { ownedContract } from '../state';
import type { ContractEntry, DisputeWithMessages } from '../types';
import { requireFields, requireObject, requireString } from '../validate';

function borrowerOf(ctx: RequestContext): Party {
	return { type: 'Borrower', id: caller(ctx).user.id };
}

/** The database error every failed query of these handlers becomes. */
function databaseError(details: string, code = 'NOT_FOUND', status = 404): ApiError {
	return new ApiError(status, code, details, SOMETHING_WENT_WRONG);
}

// ---------------------------------------------------------------------------------------------
// GET /api/disputes?contract_id=

function contractIdQuery(ctx: RequestContext): string {
	const contractId = ctx.query.contract_id;
	if (contractId !== undefined) return contractId;
	// Query<DisputeQueryParams>: axum's plain-text rejection (serde_urlencoded's words).
	throw badRequest(
		'INVALID_QUERY',
		'Query parameter contract_id is required',
		liveQueryRejection('missing field `contract_id`'),
	);
}

function listDisputes(ctx: RequestContext): Reply {
	const contractId = contractIdQuery(ctx);
	// The specification's dialect keeps to the caller's contracts.
	if (ctx.config.dialect === 'spec') ownedContract(ctx.state, caller(ctx).user.id, contractId);
	return jsonReply(disputesOf(ctx.state, contractId));
}

// ---------------------------------------------------------------------------------------------
// POST /api/disputes {contract_id, reason, comment}

/** model.rs DisputeRequestBodySchema: three strings, free text (no length or content check). */
const DISPUTE_REQUEST_FIELDS: FieldSpec[] = [
	{ name: 'contract_id', type: { kind: 'string' } },
	{ name: 'reason', type: { kind: 'string' } },
	{ name: 'comment', type: { kind: 'string' } },
];

interface DisputeRequest {
	contract_id: string;
	reason: string;
	comment: string;
}

function disputeRequest(ctx: RequestContext): DisputeRequest {
	if (ctx.config.dialect === 'live') {
		return deserializeLive(
			ctx.rawBody,
			ctx.body,
			'DisputeRequestBodySchema',
			DISPUTE_REQUEST_FIELDS,
		) as unknown as DisputeRequest;
	}
	const fields = DISPUTE_REQUEST_FIELDS.map((field) => field.name);
	const body = requireObject(ctx.body, fields);
	requireFields(body, fields);
	return {
		contract_id: requireString(body, 'contract_id', 'INVALID_FIELD'),
		reason: requireString(body, 'reason', 'INVALID_FIELD'),
		comment: requireString(body, 'comment', 'INVALID_FIELD'),
	};
}

function createDispute(ctx: RequestContext): Reply {
	const request = disputeRequest(ctx);
	// load_contract_by_contract_id_and_borrower_id (fetch_one): unknown or foreign is a 500.
	const entry = ownedContract(ctx.state, caller(ctx).user.id, request.contract_id);
	if (hasOpenDispute(ctx.state, entry.contract.id)) {
		throw badRequest(
			'DISPUTE_IN_PROGRESS',
			`Contract ${entry.contract.id} already has an open dispute`,
			{ message: 'Dispute already in progress' },
		);
	}
	// dispute.rs:127: the comment is kept in the reason, not as a message.
	const reason = `${request.reason}. ${request.comment}`;
	const dispute = openDispute(ctx.state, entry, borrowerOf(ctx), reason);
	return jsonReply(withoutMessages(dispute));
}

// ---------------------------------------------------------------------------------------------
// PUT /api/disputes/{dispute_id} {message}; PUT /api/disputes/{dispute_id}/resolve

/**
 * Path<Uuid>: a segment that is no UUID is axum's plain-text 400 "Invalid URL: " with uuid's serde
 * text ("UUID parsing failed: …"); the exact words were not checked [INF].
 */
function disputeIdParam(ctx: RequestContext): string {
	const raw = ctx.params.dispute_id;
	const problem = uuidProblem(raw);
	if (problem === null) return raw.toLowerCase();
	throw badRequest('INVALID_DISPUTE_ID', `Dispute id ${shorten(raw)} is not a UUID`, {
		message: `Invalid URL: UUID parsing failed: ${problem}`,
		plain: true,
	});
}

/** The dispute with that id; the spec dialect also requires it to be on one of the caller's contracts. */
function findDispute(ctx: RequestContext, id: string): DisputeWithMessages {
	const dispute = ctx.state.disputes.get(id);
	const foreign =
		dispute !== undefined &&
		ctx.state.contracts.get(dispute.contract_id)?.owner !== caller(ctx).user.id;
	if (dispute && !(foreign && ctx.config.dialect === 'spec')) return dispute;
	throw databaseError(`Dispute ${shorten(id)} not found`, 'DISPUTE_NOT_FOUND');
}

const DISPUTE_MESSAGE_FIELDS: FieldSpec[] = [{ name: 'message', type: { kind: 'string' } }];

function messageOf(ctx: RequestContext): string {
	if (ctx.config.dialect === 'live') {
		return deserializeLive(ctx.rawBody, ctx.body, 'DisputeMessage', DISPUTE_MESSAGE_FIELDS)
			.message as string;
	}
	const body = requireObject(ctx.body, ['message']);
	requireFields(body, ['message']);
	return requireString(body, 'message', 'INVALID_FIELD');
}

function addMessage(ctx: RequestContext): Reply {
	const id = disputeIdParam(ctx);
	const message = messageOf(ctx);
	// The insert fails on the foreign key for an unknown id (500); nothing else is checked.
	addDisputeMessage(ctx.state, findDispute(ctx, id), borrowerOf(ctx), message);
	return emptyReply();
}

function contractOfDispute(ctx: RequestContext, dispute: DisputeWithMessages): ContractEntry {
	// resolve_borrower loads the contract by borrower (fetch_one): another borrower's is a 500.
	return ownedContract(ctx.state, caller(ctx).user.id, dispute.contract_id);
}

function resolve(ctx: RequestContext): Reply {
	const dispute = findDispute(ctx, disputeIdParam(ctx));
	// dispute.rs:229-231: only an open dispute the borrower started (a Closed one is refused too).
	if (dispute.status !== 'DisputeStartedBorrower') {
		throw badRequest(
			'DISPUTE_NOT_STARTED_BY_BORROWER',
			`Dispute ${dispute.id} has status ${dispute.status}; only an open dispute you started can be resolved`,
			{ message: 'Dispute was not started by you' },
		);
	}
	const entry = contractOfDispute(ctx, dispute);
	// resolve_dispute bails (the transaction rolls back, the dispute stays open): 500.
	const problem = resolveProblem(entry.contract);
	if (problem) throw badRequest('INVALID_STATE', problem, SOMETHING_WENT_WRONG);
	closeDispute(ctx.state, dispute, entry);
	return emptyReply();
}

export const disputeRoutes: Route[] = [
	{ method: 'GET', pattern: '/api/disputes', auth: 'borrower', body: 'none', handle: listDisputes },
	{
		method: 'POST',
		pattern: '/api/disputes',
		auth: 'borrower',
		body: 'json',
		handle: createDispute,
	},
	{
		method: 'PUT',
		pattern: '/api/disputes/:dispute_id',
		auth: 'borrower',
		body: 'json',
		handle: addMessage,
	},
	{
		method: 'PUT',
		pattern: '/api/disputes/:dispute_id/resolve',
		auth: 'borrower',
		body: 'none',
		handle: resolve,
	},
];
