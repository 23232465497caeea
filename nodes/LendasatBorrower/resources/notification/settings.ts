import { describeValue, isRecord } from '../../validation/checks';

/**
 * The eight switches of GET/PUT /api/notification-settings, in the backend's order
 * (BorrowerNotificationSettingsResponse): the field the API uses, the node's parameter name and how
 * the editor shows it.
 */
export interface NotificationSetting {
	field: string;
	parameter: string;
	displayName: string;
	description: string;
}

export const NOTIFICATION_SETTINGS: readonly NotificationSetting[] = [
	{
		field: 'on_login_email',
		parameter: 'onLoginEmail',
		displayName: 'On Login (Email)',
		description: 'Whether an e-mail is sent when someone logs in to the account',
	},
	{
		field: 'on_login_telegram',
		parameter: 'onLoginTelegram',
		displayName: 'On Login (Telegram)',
		description: 'Whether a Telegram message is sent when someone logs in to the account',
	},
	{
		field: 'daily_offer_digest_email',
		parameter: 'dailyOfferDigestEmail',
		displayName: 'Daily Offer Digest (Email)',
		description: 'Whether a daily e-mail lists new loan offers',
	},
	{
		field: 'new_loan_offer_telegram',
		parameter: 'newLoanOfferTelegram',
		displayName: 'New Loan Offer (Telegram)',
		description: 'Whether a Telegram message announces each new loan offer',
	},
	{
		field: 'contract_status_changed_email',
		parameter: 'contractStatusChangedEmail',
		displayName: 'Contract Status Changed (Email)',
		description: 'Whether an e-mail is sent when a contract changes status',
	},
	{
		field: 'contract_status_changed_telegram',
		parameter: 'contractStatusChangedTelegram',
		displayName: 'Contract Status Changed (Telegram)',
		description: 'Whether a Telegram message is sent when a contract changes status',
	},
	{
		field: 'new_chat_message_email',
		parameter: 'newChatMessageEmail',
		displayName: 'New Chat Message (Email)',
		description: 'Whether an e-mail is sent for a new chat message from a lender',
	},
	{
		field: 'new_chat_message_telegram',
		parameter: 'newChatMessageTelegram',
		displayName: 'New Chat Message (Telegram)',
		description: 'Whether a Telegram message is sent for a new chat message from a lender',
	},
];

export const SETTINGS_PATH = '/api/notification-settings';

/** The settings are of use only with all eight switches as true or false. */
export function settingsAnswer(body: unknown): string | undefined {
	const settings = isRecord(body) ? body : {};
	const missing = NOTIFICATION_SETTINGS.filter(({ field }) => settings[field] === undefined).map(
		({ field }) => field,
	);
	if (missing.length) return `it lacks ${missing.join(', ')}`;
	const wrong = NOTIFICATION_SETTINGS.find(({ field }) => typeof settings[field] !== 'boolean');
	return wrong
		? `its ${wrong.field} is ${describeValue(settings[wrong.field])}, not true or false`
		: undefined;
}
