import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INode,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { headerText } from '../transport/answer';
import { systemClock } from '../transport/clock';
import { connectionOf, originOf } from '../transport/connection';
import { probe, type Transport } from '../transport/exchange';
import { viaCredentialTest } from '../transport/senders';
import { readTransportSettings } from '../transport/settings';
import { KEY_TYPE_NAMES, type KeyType } from '../transport/credentials';
import { excerptOf } from '../transport/errors';
import { describeFailure } from '../transport/retry';
import { CONTRACTS_PATH } from '../resources/contract/shared';

/**
 * Each key type is probed on the one endpoint it is for, with an empty body: the server checks
 * the key first (401 when rejected) and then refuses the empty body (400/422), so a working key
 * is proven without creating anything.
 */
const PROBE_PATHS: Record<KeyType, string> = {
	master: '/api/create-api-account',
	borrower: CONTRACTS_PATH,
};

const ENVIRONMENT_NAMES: Record<string, string> = {
	production: 'Production',
	development: 'Development',
};

export async function lendasatApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const connection = connectionOf(data);
	if ('problem' in connection) return { status: 'Error', message: connection.problem };
	const transport: Transport = {
		connection,
		settings: readTransportSettings(undefined, {}),
		send: viaCredentialTest(this),
		caller: { node: CREDENTIAL_TEST_NODE, label: 'Credential test' },
		clock: systemClock,
	};
	const probed = await probe(transport, {
		method: 'POST',
		path: PROBE_PATHS[connection.keyType],
		body: {},
	});
	if ('failure' in probed) {
		return {
			status: 'Error',
			message: `Cannot reach ${connection.shownBaseUrl} (${describeFailure(probed.failure)}). Check the Environment or Base URL, and that n8n can reach that host.`,
		};
	}
	const { answer } = probed;
	return interpretProbe({
		statusCode: answer.statusCode,
		body: parseJsonOrText(answer.text),
		contentType: headerText(answer.headers, 'content-type'),
		location: headerText(answer.headers, 'location'),
		keyType: connection.keyType,
		environment: connection.environment,
		baseUrl: connection.shownBaseUrl,
	});
}

/** The credential test runs outside any workflow; errors it builds name no node. */
const CREDENTIAL_TEST_NODE = {
	id: 'lendasat-credential-test',
	name: 'Lendasat credential test',
	type: 'lendasatApi',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as INode;

function parseJsonOrText(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

/** What the probe's answer says about the key. Pure, so every branch is unit-tested. */
export function interpretProbe(probe: {
	statusCode: number;
	body: unknown;
	contentType: string;
	/** The Location of a redirect, which the test does not follow. */
	location?: string;
	keyType: KeyType;
	environment: string;
	baseUrl: string;
}): INodeCredentialTestResult {
	const keyName = KEY_TYPE_NAMES[probe.keyType];
	const where = ENVIRONMENT_NAMES[probe.environment] ?? probe.baseUrl;
	const other = KEY_TYPE_NAMES[probe.keyType === 'master' ? 'borrower' : 'master'];
	const looksLikeHtml =
		/html/i.test(probe.contentType) ||
		(typeof probe.body === 'string' && /<html/i.test(probe.body));

	if (probe.statusCode >= 300 && probe.statusCode < 400) {
		return {
			status: 'Error',
			message: `${probe.baseUrl} answered with a redirect${probe.location ? ` to ${originOf(probe.location, probe.baseUrl)}` : ''} (HTTP ${probe.statusCode}), which the node does not follow so that the key goes nowhere else. Enter the address the API really answers on as the Base URL.`,
		};
	}
	if ([400, 415, 422].includes(probe.statusCode) && !looksLikeHtml) {
		return { status: 'OK', message: `The ${keyName} works on ${where}.` };
	}
	if (probe.statusCode >= 200 && probe.statusCode < 300) {
		return { status: 'OK', message: `The ${keyName} was accepted by ${where}.` };
	}
	if (probe.statusCode === 401 || probe.statusCode === 403) {
		return {
			status: 'Error',
			message:
				`${where} rejected the ${keyName}. Check the key, that Key Type is right (a ${other} does not work here), ` +
				'and that the key was issued for this environment (development keys do not work in production and the reverse).',
		};
	}
	if (probe.statusCode === 404 || probe.statusCode === 405 || looksLikeHtml) {
		return {
			status: 'Error',
			message: `${probe.baseUrl} does not look like the Lendasat borrower API (HTTP ${probe.statusCode}${looksLikeHtml ? ', an HTML page' : ''}). Check the Environment or Base URL.`,
		};
	}
	if (probe.statusCode === 429) {
		return {
			status: 'Error',
			message: `${where} is rate limiting this key right now; test again in a minute.`,
		};
	}
	const said =
		typeof probe.body === 'string'
			? excerptOf(probe.body)
			: excerptOf(JSON.stringify(probe.body ?? ''));
	return {
		status: 'Error',
		message: `${where} answered HTTP ${probe.statusCode}${said ? `: ${said}` : ''}. The key could not be checked.`,
	};
}
