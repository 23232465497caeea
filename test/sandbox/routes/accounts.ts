/** POST /api/create-api-account: a partner's master key creates a borrower account and its key. */
import { badRequest } from '../errors';
import { caller, jsonReply, type RequestContext, type Route } from '../router';
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
	email: string;
	timezone: string;
}

function validateAccountRequest(body: JsonObject): AccountRequest {
	requireFields(body, FIELDS);
	const name = requireString(body, 'name', 'INVALID_NAME');
	const email = requireString(body, 'email', 'INVALID_EMAIL');
	const timezone = requireString(body, 'timezone', 'INVALID_TIMEZONE');
	if (name.trim() === '' || name.length > MAX_NAME_LENGTH) {
		throw badRequest('INVALID_NAME', `Field name must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`, {
			message: 'Invalid name',
		});
	}
	if (!isPlausibleEmail(email)) {
		throw badRequest('INVALID_EMAIL', 'Field email must be a valid e-mail address', { message: 'Invalid email address' });
	}
	if (!isAreaCityTimezone(timezone)) {
		throw badRequest('INVALID_TIMEZONE', 'Field timezone must be an IANA time zone of the form Area/City, e.g. Europe/Berlin', {
			message: 'Invalid timezone',
		});
	}
	return { name, email, timezone };
}

function createApiAccount(ctx: RequestContext): ReturnType<Route['handle']> {
	const partner = caller(ctx).user;
	const request = validateAccountRequest(requireObject(ctx.body, FIELDS));
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
	const key = issueKey(state, user.id, 'borrower', `API account key for ${partner.name}`);
	const account: ApiAccount = { id: user.id, ...request, api_key: key.key, createdBy: partner.id };
	state.accounts.push(account);
	return jsonReply(
		{ id: account.id, name: account.name, email: account.email, timezone: account.timezone, api_key: account.api_key },
		ctx.config.createStatus,
	);
}

export const accountRoutes: Route[] = [
	{ method: 'POST', pattern: '/api/create-api-account', auth: 'master', body: 'json', handle: createApiAccount },
];
