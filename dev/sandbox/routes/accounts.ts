/**
 * POST /api/create-api-account: a partner's master key creates a borrower account and its key.
 * POST /api/create-api-account/byok: a referral code and a key the client made do the same, no key needed.
 */
import { ApiError, SOMETHING_WENT_WRONG, badRequest } from '../errors';
import { caller, jsonReply, type RequestContext, type Route } from '../router';
import { deserializeLive } from '../serde';
import { issueKey, nowIso, type SandboxState } from '../state';
import type { ApiAccount, User } from '../types';
import {
	MAX_NAME_LENGTH,
	isAreaCityTimezone,
	isPlausibleEmail,
	optionalString,
	requireFields,
	requireObject,
	requireString,
	type JsonObject,
} from '../validate';

const FIELDS = ['name', 'email', 'timezone'];

export interface AccountRequest {
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

function validateName(body: JsonObject): string {
	const name = requireString(body, 'name', 'INVALID_NAME');
	if (name.trim() === '' || name.length > MAX_NAME_LENGTH) {
		throw badRequest(
			'INVALID_NAME',
			`Field name must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`,
			{
				message: 'Invalid name',
			},
		);
	}
	return name;
}

function validateEmail(body: JsonObject): string {
	const email = requireString(body, 'email', 'INVALID_EMAIL');
	if (!isPlausibleEmail(email)) {
		throw badRequest('INVALID_EMAIL', 'Field email must be a valid e-mail address', {
			message: 'Invalid email address',
		});
	}
	return email;
}

function validateTimezone(timezone: string): string {
	if (!isAreaCityTimezone(timezone)) {
		throw badRequest(
			'INVALID_TIMEZONE',
			'Field timezone must be an IANA time zone of the form Area/City, e.g. Europe/Berlin',
			{
				message: 'Invalid timezone',
			},
		);
	}
	return timezone;
}

function validateAccountRequest(body: JsonObject): AccountRequest {
	requireFields(body, FIELDS);
	const name = validateName(body);
	const email = validateEmail(body);
	const timezone = validateTimezone(requireString(body, 'timezone', 'INVALID_TIMEZONE'));
	return { name, email, timezone };
}

function newUser(state: SandboxState, request: AccountRequest): User {
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
	return user;
}

function accountReply(ctx: RequestContext, account: ApiAccount): ReturnType<Route['handle']> {
	ctx.state.accounts.push(account);
	return accountJson(ctx, account);
}

function accountJson(ctx: RequestContext, account: ApiAccount): ReturnType<Route['handle']> {
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

function createApiAccount(ctx: RequestContext): ReturnType<Route['handle']> {
	const partner = caller(ctx).user;
	const request =
		ctx.config.dialect === 'live'
			? liveAccountRequest(ctx)
			: validateAccountRequest(requireObject(ctx.body, FIELDS));
	return accountJson(ctx, registerApiAccount(ctx.state, partner.id, request));
}

/**
 * What POST /api/create-api-account stores for a partner's borrower: the user, its key (named "account
 * key", as register_api_account does in hub/src/db/borrowers.rs:221, lendasat/iframe 49781f87) and
 * the account. Also the benchmark's bulk onboarding (admin.ts), which makes thousands at once
 * without a request each.
 */
export function registerApiAccount(
	state: SandboxState,
	partnerId: string,
	request: AccountRequest,
): ApiAccount {
	const user = newUser(state, request);
	const key = issueKey(state, user.id, 'borrower', 'account key');
	const account: ApiAccount = { id: user.id, ...request, api_key: key.key, createdBy: partnerId };
	state.accounts.push(account);
	return account;
}

// ---------------------------------------------------------------------------------------------
// BYOK (hub 0.8.2 routes/borrower/api_accounts.rs:119-182)

const BYOK_FIELDS = ['name', 'email', 'api_key', 'referral_code'];

interface ByokRequest extends AccountRequest {
	email: string;
	api_key: string;
	referral_code: string;
}

/**
 * CreateApiAccountByokRequest (api_accounts.rs:27-35): name, email, timezone?, api_key, referral_code.
 * Unlike the master-key route, the e-mail is not checked at all (only lower-cased and trimmed when
 * stored, db/borrowers.rs:259), nor is the time zone (Lendasat's own e2e test sends "UTC").
 */
function readByokRequest(ctx: RequestContext): ByokRequest {
	if (ctx.config.dialect === 'live') {
		const body = deserializeLive(ctx.rawBody, ctx.body, 'CreateApiAccountByokRequest', [
			{ name: 'name', type: { kind: 'string' } },
			{ name: 'email', type: { kind: 'string' } },
			{ name: 'timezone', type: { kind: 'string' }, optional: true },
			{ name: 'api_key', type: { kind: 'string' } },
			{ name: 'referral_code', type: { kind: 'string' } },
		]);
		return {
			name: body.name as string,
			email: body.email as string,
			timezone: (body.timezone as string | undefined) ?? null,
			api_key: body.api_key as string,
			referral_code: body.referral_code as string,
		};
	}
	const body = requireObject(ctx.body, BYOK_FIELDS);
	requireFields(body, BYOK_FIELDS);
	const timezone = optionalString(body, 'timezone');
	return {
		name: validateName(body),
		email: validateEmail(body),
		timezone: timezone === undefined ? null : validateTimezone(timezone),
		api_key: requireString(body, 'api_key', 'INVALID_API_KEY_FORMAT'),
		referral_code: requireString(body, 'referral_code', 'INVALID_REFERRAL_CODE'),
	};
}

/** ApiKey::from_string (api_keys.rs:51-62): four parts split at `_`, lndst, sk, a 12-character key ID. */
function keyIdOf(key: string): string | null {
	const parts = key.split('_');
	return parts.length === 4 && parts[0] === 'lndst' && parts[1] === 'sk' && parts[2].length === 12
		? parts[2]
		: null;
}

/** db/borrowers_referral_code.rs:97-114 is_referral_code_valid: exact code, active, not expired. */
function isReferralCodeValid(ctx: RequestContext, code: string): boolean {
	const entry = ctx.state.referralCodes.get(code);
	return (
		entry !== undefined && entry.active && Date.parse(entry.expires_at) > ctx.state.now().getTime()
	);
}

/**
 * post_create_api_account_byok in its order: the referral code (400 "Invalid referral code"), the key's
 * format (400 "Invalid API key format. Expected format: lndst_sk_{key_id}_{secret}"), then the insert:
 * an e-mail already stored (unique, lower-cased) is 400 "Email already in use"; a key whose key ID is
 * already stored fails the key insert, which the handler does not model: 500 "Something went wrong"
 * (as Lendasat's e2e test api_account_byok.rs expects). The answer echoes the key as given. The spec
 * dialect answers {error, code, details} with the same checks (a used key: 409 API_KEY_IN_USE).
 */
function createApiAccountByok(ctx: RequestContext): ReturnType<Route['handle']> {
	const request = readByokRequest(ctx);
	if (!isReferralCodeValid(ctx, request.referral_code)) {
		throw new ApiError(
			400,
			'INVALID_REFERRAL_CODE',
			'The referral code is unknown, inactive or expired',
			{
				message: 'Invalid referral code',
			},
		);
	}
	const keyId = keyIdOf(request.api_key);
	if (keyId === null) {
		throw new ApiError(
			400,
			'INVALID_API_KEY_FORMAT',
			'Field api_key must have the form lndst_sk_{key_id}_{secret}',
			{
				message: 'Invalid API key format. Expected format: lndst_sk_{key_id}_{secret}',
			},
		);
	}
	const email = request.email.toLowerCase().trim();
	if ([...ctx.state.users.values()].some((user) => user.email?.toLowerCase() === email)) {
		throw new ApiError(400, 'EMAIL_IN_USE', 'An account with this e-mail address exists already', {
			message: 'Email already in use',
		});
	}
	if ([...ctx.state.keys.keys()].some((key) => keyIdOf(key) === keyId)) {
		throw new ApiError(
			409,
			'API_KEY_IN_USE',
			'An API key with this key ID exists already',
			SOMETHING_WENT_WRONG,
		);
	}
	const user = newUser(ctx.state, { name: request.name, email, timezone: request.timezone });
	issueKey(ctx.state, user.id, 'borrower', 'byok account key', request.api_key);
	return accountReply(ctx, {
		id: user.id,
		name: user.name,
		email,
		timezone: request.timezone,
		api_key: request.api_key,
		// The borrower whose referral code it was.
		createdBy: ctx.state.referralCodes.get(request.referral_code)?.owner ?? '',
	});
}

export const accountRoutes: Route[] = [
	{
		method: 'POST',
		pattern: '/api/create-api-account/byok',
		// Registered after the master-key layer (api_accounts.rs:37-46): no key is needed or read.
		auth: 'none',
		body: 'json',
		handle: createApiAccountByok,
	},
	{
		method: 'POST',
		pattern: '/api/create-api-account',
		auth: 'master',
		body: 'json',
		handle: createApiAccount,
	},
];
