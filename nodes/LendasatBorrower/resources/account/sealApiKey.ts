import { randomBytes } from 'crypto';
import type {
	IExecuteSingleFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { sealKey } from '../../encryption/sealedKeys';
import { apiRoute, credentialsOf, nodeOf } from '../../transport/apiRoute';
import { openedKey, requireSealingSecret } from '../../transport/connection';
import { isRecord } from '../../validation/checks';
import { checkSealingSecretFirst } from './sealing';

const OPERATION = 'sealApiKey';
const LABEL = 'Account → Seal API Key';
const KEY_PARAMETER = 'keyToSeal';
const KEY_LABEL = 'API Key to Seal';

/** The account the key belongs to, as GET /api/users/me answers ({user: {id, name, …}}). */
const userOf = (body: unknown) =>
	isRecord(body) && isRecord(body.user) && typeof body.user.id === 'string' ? body.user : undefined;

export const accountSealApiKeyOperation: INodePropertyOptions = {
	name: 'Seal API Key',
	value: OPERATION,
	action: 'Seal an API key',
	description:
		"Check that a borrower's API key works and give it back sealed with the credential's Key Sealing Secret, to store instead of the key. Changes nothing at Lendasat.",
	routing: apiRoute(
		{
			label: LABEL,
			toolDescription:
				"Seal a borrower API key: checks with Lendasat that the key works (reads the account it belongs to) and returns it sealed with the credential's Key Sealing Secret as api_key_sealed, with the account's id and name, never the key itself. Changes nothing at Lendasat.",
			// The key checked is the one given, sent as Act as Borrower's would be; the credential's
			// key is not sent, so either key type does.
			keyType: 'any',
			sendsKeyOf: { parameter: KEY_PARAMETER, label: KEY_LABEL },
			expects: 'object',
			answer: (body) => (userOf(body) ? undefined : 'it holds no user with an id'),
			errors: [
				{
					statusCodes: [401],
					message: 'Lendasat rejected the key to seal',
					hint: `the key in ${KEY_LABEL} does not work: it was deleted, is mistyped, belongs to another environment than the credential's, or is a Partner Master Key. It was not sealed.`,
				},
			],
		},
		{ method: 'GET', url: '/api/users/me' },
		{ prepare: [checkSealingSecretFirst(LABEL, () => true)], finish: [sealCheckedKey] },
	),
};

export const accountSealApiKeyFields: INodeProperties[] = [
	{
		displayName: KEY_LABEL,
		name: KEY_PARAMETER,
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.api_key }}',
		description:
			"A borrower's API key as stored in plain text, usually an expression reading it from your list. It is sent to Lendasat once (GET /api/users/me) to check that it works, then output sealed, as api_key_sealed; it is never output or shown in an error. A key already sealed is opened and sealed again.",
		displayOptions: { show: { resource: ['account'], operation: [OPERATION] } },
	},
];

/** The key that Lendasat just accepted, sealed, with the account it belongs to. */
async function sealCheckedKey(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const credentials = await credentialsOf(this);
	const asker = { node: nodeOf(this), label: LABEL, itemIndex: this.getItemIndex() };
	const secret = requireSealingSecret(credentials, asker);
	// The transport sent this very key, opened the same way; here it is only sealed.
	const key = openedKey(credentials, String(this.getNodeParameter(KEY_PARAMETER)).trim(), {
		...asker,
		actAsField: KEY_LABEL,
	});
	return items.map((item) => {
		const user = userOf(item.json);
		return {
			json: {
				id: user?.id,
				name: user?.name ?? null,
				api_key_sealed: sealKey(key, secret, randomBytes),
			},
		};
	});
}
