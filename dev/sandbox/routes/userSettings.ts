/**
 * PUT /api/users (time zone) and PUT /api/users/locale (language): hub 0.8.2
 * routes/borrower/profile.rs. Both take plain `axum::Json` (:69, :114), so their body rejections are
 * axum's plain text, and both answer an empty 200 (`Result<(), Error>`).
 */
import { ApiError, badRequest } from '../errors';
import { caller, emptyReply, type RequestContext, type Route } from '../router';
import { deserializeLivePlain } from '../serde';
import { nowIso } from '../state';
import { isAreaCityTimezone, optionalString, requireObject, requireString } from '../validate';

/**
 * [INF] `tzdb::tz_by_name` (profile.rs:80): the tz database's names, matched case-insensitively as
 * the tzdb crate documents; ICU (Intl) knows the same names.
 */
function isTzdbName(name: string): boolean {
	try {
		new Intl.DateTimeFormat('en', { timeZone: name });
		return !/^[+-]|^\d/.test(name);
	} catch {
		return false;
	}
}

/** profile.rs:91-94: both an empty and an unknown zone are 400 "Invalid timezone provided". */
function invalidTimezone(zone: string): ApiError {
	return badRequest(
		'INVALID_TIMEZONE',
		`Field timezone must be an IANA time zone of the form Area/City, e.g. Europe/Berlin, got ${JSON.stringify(zone).slice(0, 60)}`,
		{ message: 'Invalid timezone provided' },
	);
}

/** update_profile (profile.rs:66-90): UpdateProfile {timezone: String}, stored as sent. */
function updateTimezone(ctx: RequestContext): ReturnType<Route['handle']> {
	const user = caller(ctx).user;
	let timezone: string;
	if (ctx.config.dialect === 'live') {
		const body = deserializeLivePlain(ctx.rawBody, ctx.body, 'UpdateProfile', [
			{ name: 'timezone', type: { kind: 'string' } },
		]);
		timezone = body.timezone as string;
		if (timezone === '' || !isTzdbName(timezone)) throw invalidTimezone(timezone);
	} else {
		timezone = requireString(requireObject(ctx.body, ['timezone']), 'timezone', 'INVALID_TIMEZONE');
		if (!isAreaCityTimezone(timezone)) throw invalidTimezone(timezone);
	}
	user.timezone = timezone;
	user.updated_at = nowIso(ctx.state);
	return emptyReply();
}

/**
 * update_locale (profile.rs:111-123): UpdateLocale {locale: Option<String>}, no check at all: any text
 * is stored, null or a missing field clears it. The spec dialect wants a string or null as well.
 */
function updateLocale(ctx: RequestContext): ReturnType<Route['handle']> {
	const user = caller(ctx).user;
	const locale =
		ctx.config.dialect === 'live'
			? deserializeLivePlain(ctx.rawBody, ctx.body, 'UpdateLocale', [
					{ name: 'locale', type: { kind: 'string' }, optional: true },
				]).locale
			: optionalString(requireObject(ctx.body, ['locale']), 'locale');
	user.locale = typeof locale === 'string' ? locale : null;
	user.updated_at = nowIso(ctx.state);
	return emptyReply();
}

export const userSettingsRoutes: Route[] = [
	{
		method: 'PUT',
		pattern: '/api/users',
		auth: 'borrower',
		body: 'json',
		plainJsonRejections: true,
		handle: updateTimezone,
	},
	{
		method: 'PUT',
		pattern: '/api/users/locale',
		auth: 'borrower',
		body: 'json',
		plainJsonRejections: true,
		handle: updateLocale,
	},
];
