import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { SETTINGS_PATH, settingsAnswer } from './settings';

export const notificationGetSettingsOperation: INodePropertyOptions = {
	name: 'Get Settings',
	value: 'getSettings',
	action: 'Get notification settings',
	description:
		'Get which alerts the account receives by e-mail and Telegram, as {on_login_email, on_login_telegram, daily_offer_digest_email, new_loan_offer_telegram, contract_status_changed_email, contract_status_changed_telegram, new_chat_message_email, new_chat_message_telegram}, each true or false. An account that never changed them gets all true.',
	routing: apiRoute(
		{
			label: 'Notification → Get Settings',
			toolDescription:
				'Get notification settings: which e-mail and Telegram alerts the account receives, eight true/false switches',
			keyType: 'borrower',
			expects: 'object',
			answer: settingsAnswer,
		},
		{ method: 'GET', url: SETTINGS_PATH },
	),
};
