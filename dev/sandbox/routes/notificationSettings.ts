/**
 * Notification settings (live-api §2.7; lendasat/iframe 49781f87 hub/src/routes/borrower/notification_settings.rs,
 * GET :71-101, PUT :103-148, struct :42-52; defaults db/notification_settings.rs:127-178): which
 * alerts a borrower gets by e-mail and Telegram. GET answers the stored settings, or all true for a
 * borrower who never stored any (nothing is inserted); PUT needs all eight booleans (no serde default),
 * ignores unknown fields, upserts and answers what it stored.
 */
import { badRequest, shorten } from '../errors';
import { caller, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import { deserializeLive, type FieldSpec } from '../serde';
import type { NotificationSettings } from '../types';
import { requireFields, requireObject } from '../validate';

/** The struct's fields in declaration order: serde reports the first missing one in this order. */
export const NOTIFICATION_SETTING_FIELDS = [
	'on_login_email',
	'on_login_telegram',
	'daily_offer_digest_email',
	'new_loan_offer_telegram',
	'contract_status_changed_email',
	'contract_status_changed_telegram',
	'new_chat_message_email',
	'new_chat_message_telegram',
] as const satisfies ReadonlyArray<keyof NotificationSettings>;

const FIELD_SPECS: FieldSpec[] = NOTIFICATION_SETTING_FIELDS.map((name) => ({
	name,
	type: { kind: 'bool' },
}));

/** model/notifications.rs: the settings of a borrower without a row, every alert on. */
export function defaultNotificationSettings(): NotificationSettings {
	return Object.fromEntries(
		NOTIFICATION_SETTING_FIELDS.map((field) => [field, true]),
	) as unknown as NotificationSettings;
}

/** Exactly the eight fields, in the struct's order (unknown fields of the request are dropped). */
function settingsOf(values: Record<string, unknown>): NotificationSettings {
	return Object.fromEntries(
		NOTIFICATION_SETTING_FIELDS.map((field) => [field, values[field]]),
	) as unknown as NotificationSettings;
}

function readSettings(ctx: RequestContext): NotificationSettings {
	if (ctx.config.dialect === 'live') {
		return settingsOf(
			deserializeLive(ctx.rawBody, ctx.body, 'BorrowerNotificationSettingsResponse', FIELD_SPECS),
		);
	}
	// The spec dialect: the same rules, in its {error, code, details} envelope (400 for any bad body).
	const body = requireObject(ctx.body, [...NOTIFICATION_SETTING_FIELDS]);
	requireFields(body, [...NOTIFICATION_SETTING_FIELDS]);
	for (const field of NOTIFICATION_SETTING_FIELDS) {
		if (typeof body[field] !== 'boolean') {
			throw badRequest(
				'INVALID_FIELD',
				`Field ${field} must be true or false, got ${shorten(body[field])}`,
			);
		}
	}
	return settingsOf(body);
}

function getSettings(ctx: RequestContext): Reply {
	const stored = ctx.state.notificationSettings.get(caller(ctx).user.id);
	return jsonReply(stored ? { ...stored } : defaultNotificationSettings());
}

function putSettings(ctx: RequestContext): Reply {
	const settings = readSettings(ctx);
	ctx.state.notificationSettings.set(caller(ctx).user.id, settings);
	return jsonReply({ ...settings });
}

export const notificationSettingsRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/notification-settings',
		auth: 'borrower',
		body: 'none',
		handle: getSettings,
	},
	{
		method: 'PUT',
		pattern: '/api/notification-settings',
		auth: 'borrower',
		body: 'json',
		handle: putSettings,
	},
];
