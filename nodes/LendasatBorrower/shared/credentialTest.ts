import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { baseUrlOf, KEY_TYPE_NAMES, keyTypeOf, type KeyType } from './credentials';
import { excerptOf, redactSecrets } from './errors';

/**
 * Each key type is probed on the one endpoint it is for, with an empty body: the server checks
 * the key first (401 when rejected) and then refuses the empty body (400/422), so a working key
 * is proven without creating anything.
 */
const PROBE_PATHS: Record<KeyType, string> = {
	master: '/api/create-api-account',
	borrower: '/api/contracts',
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
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	const keyType = keyTypeOf(data);
	const baseUrl = baseUrlOf(data);
	if (!apiKey) return { status: 'Error', message: 'Enter an API key.' };
	if (!/^https?:\/\/[^\s/]+/.test(baseUrl)) {
		return { status: 'Error', message: 'The base URL must start with http:// or https://, e.g. http://127.0.0.1:7337.' };
	}
	// n8n gives credential tests only the deprecated `request` helper; the platform's fetch does the same job.
	try {
		const response = await fetch(`${baseUrl}${PROBE_PATHS[keyType]}`, {
			method: 'POST',
			headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json' },
			body: '{}',
			signal: AbortSignal.timeout(20_000),
		});
		const text = await response.text();
		return interpretProbe({
			statusCode: response.status,
			body: parseJsonOrText(text),
			contentType: response.headers.get('content-type') ?? '',
			keyType,
			environment: String(data.environment ?? 'production'),
			baseUrl,
		});
	} catch (error) {
		return {
			status: 'Error',
			message: redactSecrets(
				`Cannot reach ${baseUrl} (${networkReason(error)}). Check the Environment or Base URL, and that n8n can reach that host.`,
				[apiKey],
			),
		};
	}
}

function parseJsonOrText(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

function networkReason(error: unknown): string {
	const cause = (error as { cause?: { code?: string } }).cause;
	if (cause?.code) return cause.code;
	if ((error as Error).name === 'TimeoutError') return 'no answer within 20 seconds';
	return (error as Error).message;
}

/** What the probe's answer says about the key. Pure, so every branch is unit-tested. */
export function interpretProbe(probe: {
	statusCode: number;
	body: unknown;
	contentType: string;
	keyType: KeyType;
	environment: string;
	baseUrl: string;
}): INodeCredentialTestResult {
	const keyName = KEY_TYPE_NAMES[probe.keyType];
	const where = ENVIRONMENT_NAMES[probe.environment] ?? probe.baseUrl;
	const other = KEY_TYPE_NAMES[probe.keyType === 'master' ? 'borrower' : 'master'];
	const looksLikeHtml = /html/i.test(probe.contentType) || (typeof probe.body === 'string' && /<html/i.test(probe.body));

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
		return { status: 'Error', message: `${where} is rate limiting this key right now; test again in a minute.` };
	}
	const said = typeof probe.body === 'string' ? excerptOf(probe.body) : excerptOf(JSON.stringify(probe.body ?? ''));
	return {
		status: 'Error',
		message: `${where} answered HTTP ${probe.statusCode}${said ? `: ${said}` : ''}. The key could not be checked.`,
	};
}
