import { randomBytes } from 'crypto';
import type { IDataObject, IExecuteSingleFunctions, INodeExecutionData } from 'n8n-workflow';

import { sealKey } from '../../encryption/sealedKeys';
import {
	credentialsOf,
	nodeOf,
	type Finish,
	type OperationRequest,
	type Prepare,
} from '../../transport/apiRoute';
import { requireSealingSecret } from '../../transport/connection';
import { invalidParameter } from '../../validation/parameters';

/** Options → Seal API Key of Account → Create and Create With Own Key, as the user set it. */
function sealsApiKey(context: IExecuteSingleFunctions): boolean {
	const value = (context.getNodeParameter('options', {}) as IDataObject).sealApiKey;
	if (value === undefined) return false;
	if (typeof value !== 'boolean') {
		throw invalidParameter(
			context,
			'Seal API Key',
			`Expected true or false, got ${JSON.stringify(value) ?? String(value)}. Nothing was sent.`,
		);
	}
	return value;
}

async function sealingSecretOf(context: IExecuteSingleFunctions, label: string): Promise<string> {
	return requireSealingSecret(await credentialsOf(context), {
		node: nodeOf(context),
		label,
		itemIndex: context.getItemIndex(),
	});
}

/**
 * With Seal API Key on (or whenever `seals` says), the credential's Key Sealing Secret is checked
 * before anything is sent: an account created with a key that cannot be sealed would leave the key
 * lost, or in plain text.
 */
export function checkSealingSecretFirst(
	label: string,
	seals: (context: IExecuteSingleFunctions) => boolean = sealsApiKey,
): Prepare {
	return async function (this: IExecuteSingleFunctions, request: OperationRequest) {
		if (seals(this)) await sealingSecretOf(this, label);
		return request;
	};
}

/** With Seal API Key on, each item's api_key becomes api_key_sealed, in its place; the key is in no output. */
export function sealedWhenAsked(label: string): Finish {
	return async function (this: IExecuteSingleFunctions, items: INodeExecutionData[]) {
		if (!sealsApiKey(this)) return items;
		const secret = await sealingSecretOf(this, label);
		return items.map((item) => ({ ...item, json: withKeySealed(item.json, secret) }));
	};
}

function withKeySealed(json: IDataObject, secret: string): IDataObject {
	return Object.fromEntries(
		Object.entries(json).map(([field, value]) =>
			field === 'api_key'
				? ['api_key_sealed', typeof value === 'string' ? sealKey(value, secret, randomBytes) : null]
				: [field, value],
		),
	);
}
