/**
 * Bringin (hub 0.8.2 routes/borrower/bringin.rs at 49781f87, mounted at /api/bringin,
 * routes/borrower.rs:276; bringin.rs for the call to Bringin):
 * - GET /api-key (170-199): `{has_key}`, true once Bringin called back with the user's key
 *   (`sandbox.admin.confirmBringin(key)` plays that callback, 149-168).
 * - POST /connect (56-112): the body through plain `axum::Json` (83), so its rejections are axum's
 *   plain text (422 for a missing field); then `is_valid_email` (utils.rs:58-105), else 400
 *   `{"message": "Invalid email"}`; then Bringin: an address with a Bringin account is e-mailed a
 *   request to approve and the answer's `signup_url` is null, any other gets a sign-up link
 *   (bringin.rs:214-240). A failure at Bringin is 500 "Something went wrong" (299-305).
 * [INF] The sign-up link's form is Bringin's; the sandbox's is made up. The borrower's own e-mail
 * address has a Bringin account in the seed.
 */
import { ApiError, asPlainText } from '../errors';
import { sha256Hex } from '../ids';
import { caller, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import { deserializeLive } from '../serde';
import { requireFields, requireObject, requireString } from '../validate';

const EMAIL_PATTERN =
	/^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** utils.rs:58-105 `is_valid_email`: the pattern, a dot in the domain, a top-level domain of 2+ not all digits. */
export function isValidEmailForHub(email: string): boolean {
	if (!EMAIL_PATTERN.test(email)) return false;
	const domain = email.split('@')[1];
	if (!domain.includes('.')) return false;
	const tld = domain.split('.').pop() ?? '';
	return !/^\d*$/.test(tld) && tld.length >= 2;
}

function bringinEmail(ctx: RequestContext): string {
	if (ctx.config.dialect === 'live') {
		try {
			const body = deserializeLive(ctx.rawBody, ctx.body, 'PostConnectWithBringinRequest', [
				{ name: 'bringin_email', type: { kind: 'string' } },
			]);
			return body.bringin_email as string;
		} catch (error) {
			throw error instanceof ApiError ? asPlainText(error) : error;
		}
	}
	const body = requireObject(ctx.body, ['bringin_email']);
	requireFields(body, ['bringin_email']);
	return requireString(body, 'bringin_email', 'INVALID_EMAIL');
}

function hasKey(ctx: RequestContext): Reply {
	return jsonReply({ has_key: ctx.state.bringinKeys.has(caller(ctx).user.id) });
}

function connect(ctx: RequestContext): Reply {
	const email = bringinEmail(ctx);
	if (!isValidEmailForHub(email)) {
		throw new ApiError(400, 'INVALID_EMAIL', 'Field bringin_email must be a valid e-mail address', {
			message: 'Invalid email',
		});
	}
	const { user } = caller(ctx);
	ctx.state.bringinRequests.set(user.id, email);
	const hasAccount = ctx.state.bringinAccounts.has(email.toLowerCase());
	const token = sha256Hex(`${ctx.state.seed}:bringin:${user.id}:${email}`).slice(0, 24);
	return jsonReply({
		signup_url: hasAccount ? null : `https://bringin.sandbox.example/signup?ref=${token}`,
	});
}

export const bringinRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/bringin/api-key',
		auth: 'borrower',
		body: 'none',
		handle: hasKey,
	},
	{
		method: 'POST',
		pattern: '/api/bringin/connect',
		auth: 'borrower',
		body: 'json',
		plainJsonRejections: true,
		handle: connect,
	},
];
