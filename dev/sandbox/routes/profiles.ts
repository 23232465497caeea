/**
 * Public profiles (hub 0.8.2 routes/lender_profiles.rs, routes/borrower_profiles.rs, user_stats.rs,
 * db/user_stats.rs; mounted with the borrower auth at routes/borrower.rs:264-273): the path id is any
 * text, an unknown one makes `fetch_one` fail, which the handlers answer 500 "Something went wrong"
 * (lender_profiles.rs:89-99). `successful_contracts` counts the contracts in Closed or PrincipalGiven
 * (db/user_stats.rs:38-42, 68-72); seeded lenders carry a count of their own.
 */
import { ApiError, SOMETHING_WENT_WRONG, shorten } from '../errors';
import { jsonReply, type Reply, type RequestContext, type Route } from '../router';
import type { SandboxState } from '../state';

const SUCCESSFUL = new Set(['Closed', 'PrincipalGiven']);

function profileNotFound(who: string, id: string): ApiError {
	return new ApiError(404, 'NOT_FOUND', `${who} ${shorten(id)} not found`, SOMETHING_WENT_WRONG);
}

function successfulContracts(state: SandboxState, userId: string): number {
	return (state.contractsByOwner.get(userId) ?? []).filter((entry) =>
		SUCCESSFUL.has(entry.contract.status),
	).length;
}

function lenderProfile(ctx: RequestContext): Reply {
	const lender = ctx.state.lenders.get(ctx.params.id);
	if (!lender) throw profileNotFound('Lender', ctx.params.id);
	const { id, name, successful_contracts, timezone, joined_at, vetted } = lender;
	return jsonReply({ id, name, successful_contracts, timezone, joined_at, vetted });
}

/** A partner (the holder of a master key) is a user of another table, not a borrower. */
function borrowerProfile(ctx: RequestContext): Reply {
	const user = ctx.state.users.get(ctx.params.id);
	const isPartner = [...ctx.state.keys.values()].some(
		(key) => key.userId === ctx.params.id && key.kind === 'master',
	);
	if (!user || isPartner) throw profileNotFound('Borrower', ctx.params.id);
	return jsonReply({
		id: user.id,
		name: user.name,
		successful_contracts: successfulContracts(ctx.state, user.id),
		timezone: user.timezone,
		joined_at: user.created_at,
	});
}

export const profileRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/profiles/lenders/:id',
		auth: 'borrower',
		body: 'none',
		handle: lenderProfile,
	},
	{
		method: 'GET',
		pattern: '/api/profiles/borrowers/:id',
		auth: 'borrower',
		body: 'none',
		handle: borrowerProfile,
	},
];
