import type { INodePropertyOptions } from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { liveErrorBodyWithout } from '../../transport/answer';
import { describeValue, isRecord } from '../../validation/checks';

export const bringinGetStatusOperation: INodePropertyOptions = {
	name: 'Get Status',
	value: 'getStatus',
	action: 'Get the Bringin connection status',
	description:
		'Whether this account is connected to Bringin, as {has_key}: true once Bringin has confirmed the connection (a Bringin loan needs it), false before',
	routing: apiRoute(
		{
			label: 'Bringin → Get Status',
			toolDescription:
				'Get whether the account is connected to Bringin (needed for Bringin loans): returns has_key true or false; changes nothing',
			keyType: 'borrower',
			expects: 'object',
			answer: statusAnswer,
		},
		{ method: 'GET', url: '/api/bringin/api-key' },
	),
};

/** `ApiKey {has_key}` (bringin.rs:227-230): true or false, nothing else. */
function statusAnswer(body: unknown): string | undefined {
	const errorBody = liveErrorBodyWithout(body, 'has_key');
	if (errorBody) return errorBody;
	const hasKey = isRecord(body) ? body.has_key : undefined;
	return typeof hasKey === 'boolean'
		? undefined
		: `its has_key is ${describeValue(hasKey)}, not true or false`;
}
