/** POST /api/create-api-account: a partner's master key creates a borrower account and its key. */
import { ApiError, badRequest } from '../errors';
import { caller, jsonReply, type RequestContext, type Route } from '../router';
import { deserializeLive } from '../serde';
import { issueKey, nowIso } from '../state';
import type { ApiAccount, User } from '../types';
import {
	MAX_NAME_LENGTH,
	isAreaCityTimezone,
	isPlausibleEmail,
	requireFields,
	requireObject,
	requireString,
	type JsonObject,
} from '../validate';

const FIELDS = ['name', 'email', 'timezone'];

interface AccountRequest {
	name: string;
	email: string | null;
	timezone: string | null;
}

/**
 * hub 0.8.2 utils.rs is_valid_email: this pattern, exactly one '@', a domain with a dot and a
 * top-level domain of at least two characters that is not all digits.
 */
const LIVE_EMAIL =
	/^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

function isLiveValidEmail(email: string): boolean {
	if (!LIVE_EMAIL.test(email)) return false;
	const parts = email.split('@');
	if (parts.length !== 2 || !parts[1].includes('.')) return false;
	const tld = parts[1].split('.').pop() ?? '';
	return !/^\d*$/.test(tld) && tld.length >= 2;
}

/**
 * post_create_api_account: the body is model.rs CreateApiAccountRequest {name: String, email:
 * Option<String>, timezone: Option<String>}; the only check is the e-mail's (400 "Invalid email
 * address"). The name and time zone are stored as sent; the e-mail lower-cased and trimmed
 * (db/borrowers.rs register_api_account).
 */
function liveAccountRequest(ctx: RequestContext): AccountRequest {
	const body = deserializeLive(ctx.rawBody, ctx.body, 'CreateApiAccountRequest', [
		{ name: 'name', type: { kind: 'string' } },
		{ name: 'email', type: { kind: 'string' }, optional: true },
		{ name: 'timezone', type: { kind: 'string' }, optional: true },
	]);
	const email = body.email as string | undefined;
	if (email !== undefined && !isLiveValidEmail(email)) {
		throw new ApiError(400, 'INVALID_EMAIL', 'Invalid email address');
	}
	return {
		name: body.name as string,
		email: email === undefined ? null : email.toLowerCase().trim(),
		timezone: (body.timezone as string | undefined) ?? null,
	};
}

function validateAccountRequest(body: JsonObject): AccountRequest {
	requireFields(body, FIELDS);
	const name = requireString(body, 'name', 'INVALID_NAME');
	const email = requireString(body, 'email', 'INVALID_EMAIL');
	const timezone = requireString(body, 'timezone', 'INVALID_TIMEZONE');
	if (name.trim() === '' || name.length > MAX_NAME_LENGTH) {
		throw badRequest(
			'INVALID_NAME',
			`Field name must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`,
			{
				message: 'Invalid name',
			},
		);
	}
	if (!isPlausibleEmail(email)) {
		throw badRequest('INVALID_EMAIL', 'Field email must be a valid e-mail address', {
			message: 'Invalid email address',
		});
	}
	if (!isAreaCityTimezone(timezone)) {
		throw badRequest(
			'INVALID_TIMEZONE',
			'Field timezone must be an IANA time zone of the form Area/City, e.g. Europe/Berlin',
			{
				message: 'Invalid timezone',
			},
		);
	}
	return { name, email, timezone };
}

function createApiAccount(ctx: RequestContext): ReturnType<Route['handle']> {
	const partner = caller(ctx).user;
	const request =
		ctx.config.dialect === 'live'
			? liveAccountRequest(ctx)
			: validateAccountRequest(requireObject(ctx.body, FIELDS));
	const { state } = ctx;
	const at = nowIso(state);
	const user: User = {
		id: state.ids.uuid(),
		name: request.name,
		email: request.email,
		verified: false,
		timezone: request.timezone,
		locale: null,
		totp_enabled: false,
		created_at: at,
		updated_at: at,
		personal_telegram_token: state.ids.uuid().replace(/-/g, ''),
		personal_referral_codes: [],
		used_referral_code: null,
		first_time_discount_rate: 0,
	};
	state.users.set(user.id, user);
	// db/borrowers.rs register_api_account names the account's key "account key".
	const key = issueKey(state, user.id, 'borrower', 'account key');
	const account: ApiAccount = { id: user.id, ...request, api_key: key.key, createdBy: partner.id };
	state.accounts.push(account);
	return jsonReply(
		{
			id: account.id,
			name: account.name,
			email: account.email,
			timezone: account.timezone,
			api_key: account.api_key,
		},
		ctx.config.createStatus,
	);
}

export const accountRoutes: Route[] = [
	{
		method: 'POST',
		pattern: '/api/create-api-account',
		auth: 'master',
		body: 'json',
		handle: createApiAccount,
	},
];
