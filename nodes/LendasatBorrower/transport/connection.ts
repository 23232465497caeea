import { NodeOperationError, type INode } from 'n8n-workflow';

import { isSealedKey, openSealedKey, sealingSecretProblem } from '../encryption/sealedKeys';
import { ACT_AS_BORROWER_LABEL } from './actAs';
import { baseUrlOf, KEY_TYPE_NAMES, keyTypeOf, type KeyType } from './credentials';

/** Where requests go and with which key: read once from the credential, checked. */
export interface Connection {
	/** The credential's base URL without a trailing slash, e.g. https://apiborrow.lendasat.com. */
	baseUrl: string;
	/** The base URL as messages show it: without a user name or password. */
	shownBaseUrl: string;
	/** The key sent: the credential's, or the borrower's key an operation acts as (Options → Act as Borrower). */
	apiKey: string;
	/** The type of the key sent. */
	keyType: KeyType;
	environment: string;
	/** Every form of a secret a server or a message could carry: redacted wherever they appear. */
	secrets: string[];
	/** Whether `apiKey` is a borrower's key given in Act as Borrower (API Key) rather than the credential's. */
	actingAsBorrower?: boolean;
	/**
	 * The credential's Allowed HTTP Request Domains when it names specific domains (n8n's own
	 * notation, e.g. "apiborrow.lendasat.com, *.example.com"): the base URL is checked against it, and
	 * n8n's HTTP client is given it for every request.
	 */
	allowedDomains?: string;
}

/** The credential's fields the connection reads (n8n adds the domain restriction to every credential with authentication). */
export interface CredentialFields {
	environment?: unknown;
	baseUrl?: unknown;
	keyType?: unknown;
	apiKey?: unknown;
	/** Seals and opens borrowers' keys (encryption/sealedKeys.ts); optional. */
	sealingSecret?: unknown;
	allowedHttpRequestDomains?: unknown;
	allowedDomains?: unknown;
}

/** What is wrong with a key as entered, or undefined: a key is one word of printable ASCII characters. */
function keyProblem(apiKey: string): string | undefined {
	// A key pasted with a line break or space in it would be sent mangled; say so instead.
	if (/[\s\p{Cc}]/u.test(apiKey)) {
		return 'The API key contains a space, line break or control character: paste it again as one line.';
	}
	// An HTTP header carries no other characters intact (a zero-width space would vanish, é change).
	if (/[^\x21-\x7e]/.test(apiKey)) {
		return 'The API key contains a character that is not plain ASCII (for example a zero-width space or a typographic quote): paste it again from its source.';
	}
	return undefined;
}

/** The connection of a credential, or what is wrong with it. */
export function connectionOf(credentials: CredentialFields): Connection | { problem: string } {
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	if (!apiKey)
		return { problem: 'The credential has no API key: enter the key Lendasat gave you.' };
	const problem = keyProblem(apiKey);
	if (problem) return { problem };
	const baseUrl = baseUrlOf(credentials);
	let url: URL;
	try {
		url = new URL(baseUrl);
	} catch {
		return {
			problem: 'The base URL must start with http:// or https://, e.g. http://127.0.0.1:7337.',
		};
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		return {
			problem: 'The base URL must start with http:// or https://, e.g. http://127.0.0.1:7337.',
		};
	}
	const allowedDomains = allowedDomainsOf(credentials);
	if ('problem' in allowedDomains) return allowedDomains;
	if (allowedDomains.list !== undefined && !isHostAllowed(url.hostname, allowedDomains.list)) {
		return {
			problem: `The credential's Allowed HTTP Request Domains (${allowedDomains.list}) do not include ${url.hostname}, the host of its base URL: add it there, or choose All.`,
		};
	}
	// Only the password is secret; a user name like "user" would otherwise be redacted from everything.
	const password = safelyDecoded(url.password);
	const sealingSecret =
		typeof credentials.sealingSecret === 'string' ? credentials.sealingSecret.trim() : '';
	return {
		allowedDomains: allowedDomains.list,
		baseUrl,
		shownBaseUrl: withoutUserInfo(url, baseUrl),
		apiKey,
		keyType: keyTypeOf(credentials),
		environment: String(credentials.environment ?? 'production'),
		secrets: secretForms([
			apiKey,
			...(sealingSecret ? [sealingSecret] : []),
			...(password.length >= 4 ? [password, url.password] : []),
		]),
	};
}

/**
 * The list of Allowed HTTP Request Domains when the credential names specific domains. As in n8n, the
 * list restricts a node's own requests; All and None (which only blocks the HTTP Request node) do not.
 */
function allowedDomainsOf(credentials: CredentialFields): { list?: string } | { problem: string } {
	if (credentials.allowedHttpRequestDomains !== 'domains') return {};
	const list =
		typeof credentials.allowedDomains === 'string' ? credentials.allowedDomains.trim() : '';
	if (list === '') {
		return {
			problem:
				"The credential's Allowed HTTP Request Domains is set to Specific Domains, but names none: add the API's host (e.g. apiborrow.lendasat.com), or choose All.",
		};
	}
	return { list };
}

/**
 * n8n's rule: a listed host matches itself; "*.example.com" matches its subdomains only, never
 * example.com; case, a trailing dot and ports are ignored. Written here although n8n-workflow exports
 * isDomainAllowed with this very rule, because its signature changed from (url, { allowedDomains })
 * in n8n 1.x to ({ url, allowedDomains }) in 2.x and the package runs on n8n's own copy: the 2.x call
 * throws on 1.x, and the 1.x call on 2.x allows every host.
 */
function isHostAllowed(host: string, list: string): boolean {
	const hostname = host.toLowerCase().replace(/\.$/, '');
	return list
		.split(',')
		.map((domain) => domain.trim().toLowerCase().replace(/\.$/, ''))
		.filter(Boolean)
		.some((domain) =>
			domain.startsWith('*.')
				? domain.length > 2 && hostname.endsWith(domain.slice(1))
				: hostname === domain,
		);
}

function safelyDecoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

function withoutUserInfo(url: URL, baseUrl: string): string {
	if (!url.username && !url.password) return baseUrl;
	const shown = new URL(url.href);
	shown.username = '';
	shown.password = '';
	return shown.href.replace(/\/+$/, '');
}

/** A secret as sent, JSON-escaped (inside a JSON string) and URL-encoded. */
function secretForms(secrets: string[]): string[] {
	return longestFirst(
		secrets.flatMap((secret) => [
			secret,
			JSON.stringify(secret).slice(1, -1),
			encodeURIComponent(secret),
		]),
	);
}

/** Each text once, the longest first: a secret containing another is redacted whole. */
function longestFirst(texts: string[]): string[] {
	return [...new Set(texts)].sort((a, b) => b.length - a.length);
}

/** The origin of a URL, relative to `base` when given, as messages may show it (scheme, host and port only). */
export function originOf(url: string, base?: string): string {
	try {
		return new URL(url, base).origin;
	} catch {
		return 'an unreadable address';
	}
}

/** Who asks for a connection, as its errors name it. */
export interface Asker {
	node: INode;
	/** e.g. "Contract → Create", "Loan Offer list". */
	label: string;
	/** How a wrong key type's message names the asker; the label by default. */
	subject?: string;
	keyType: KeyType | 'any';
	itemIndex?: number;
	/** What to do about a wrong key type; by default, which credential to choose. */
	wrongKeyAdvice?: string;
	/** Ends both descriptions, e.g. "You can also enter the contract ID By ID." */
	note?: string;
	/**
	 * A borrower's key to send instead of the credential's (Options → Act as Borrower), already
	 * trimmed; it counts as a Borrower Key. Same base URL and environment as the credential. A sealed
	 * key (lendasat-sealed:…) is opened with the credential's Key Sealing Secret and sent opened.
	 */
	actAs?: string;
	/** The field `actAs` was given in, as messages name it; Act as Borrower (API Key) by default. */
	actAsField?: string;
}

/**
 * The credential's connection, checked before anything is sent: an unusable credential or the wrong
 * key type is an error naming the asker. The one guard of the node, the trigger and the pickers.
 */
export function requireConnection(credentials: CredentialFields, asker: Asker): Connection {
	return requireUsable(credentials, connectionOf(credentials), asker);
}

/**
 * requireConnection for a credential connectionOf has already read: a run reads its credential
 * once and each item asks with its own key type and Act as Borrower key.
 */
export function requireUsable(
	credentials: CredentialFields,
	connection: Connection | { problem: string },
	asker: Asker,
): Connection {
	const withNote = (text: string) => [text, asker.note].filter(Boolean).join(' ');
	if ('problem' in connection) {
		throw new NodeOperationError(asker.node, 'The Lendasat credential cannot be used', {
			itemIndex: asker.itemIndex,
			description: withNote(`${asker.label}: ${connection.problem}`),
		});
	}
	const acting =
		asker.actAs === undefined
			? connection
			: actingAs(connection, openedKey(credentials, asker.actAs, asker), asker);
	const held = acting.keyType;
	if (asker.keyType !== 'any' && held !== asker.keyType) {
		throw new NodeOperationError(
			asker.node,
			`${asker.subject ?? asker.label} needs a ${KEY_TYPE_NAMES[asker.keyType]}, but the credential holds a ${KEY_TYPE_NAMES[held]}`,
			{
				itemIndex: asker.itemIndex,
				description: asker.wrongKeyAdvice ?? WRONG_KEY_ADVICE[asker.keyType],
			},
		);
	}
	return acting;
}

/**
 * The credential's connection with a borrower's key in place of the credential's: the same base URL
 * and environment, the key type Borrower Key (whatever the credential holds), and both keys secret.
 * A key that could not be sent as it is, is refused as the credential's key would be.
 */
function actingAs(connection: Connection, apiKey: string, asker: Asker): Connection {
	const problem = keyProblem(apiKey);
	if (problem) {
		const field = asker.actAsField ?? ACT_AS_BORROWER_LABEL;
		throw new NodeOperationError(asker.node, `Invalid ${field}${itemOf(asker)}`, {
			itemIndex: asker.itemIndex,
			description: `${asker.label}: ${field}: ${problem} Nothing was sent.`,
		});
	}
	return {
		...connection,
		apiKey,
		keyType: 'borrower',
		secrets: longestFirst([...secretForms([apiKey]), ...connection.secrets]),
		actingAsBorrower: true,
	};
}

/**
 * The key as given, or opened when it is sealed: with the credential's Key Sealing Secret, failing
 * closed when the secret is missing or does not open it.
 */
export function openedKey(
	credentials: CredentialFields,
	given: string,
	asker: Pick<Asker, 'node' | 'label' | 'itemIndex' | 'actAsField'>,
): string {
	if (!isSealedKey(given)) return given;
	const field = asker.actAsField ?? ACT_AS_BORROWER_LABEL;
	const secret = requireSealingSecret(
		credentials,
		asker,
		`${field} holds a sealed key, which opens only with the Key Sealing Secret it was sealed with: enter that secret in the credential.`,
	);
	const opened = openSealedKey(given, secret);
	if ('key' in opened) return opened.key;
	throw new NodeOperationError(
		asker.node,
		`Cannot open the sealed key in ${field}${itemOf(asker)}`,
		{
			itemIndex: asker.itemIndex,
			description: `${asker.label}: ${field}: ${opened.problem} Nothing was sent.`,
		},
	);
}

/** What to do about a missing or short Key Sealing Secret when there is nothing sealed yet. */
const NEW_SEALING_SECRET_ADVICE =
	'Generate one of at least 32 characters (e.g. openssl rand -hex 32), enter it in the credential and keep a copy: what it seals opens only with it.';

/**
 * The credential's Key Sealing Secret, trimmed, checked before anything is sent: a missing or short
 * one is an error naming the asker and saying what to do (`advice`), which never repeats the secret.
 */
export function requireSealingSecret(
	credentials: CredentialFields,
	asker: Pick<Asker, 'node' | 'label' | 'itemIndex'>,
	advice = NEW_SEALING_SECRET_ADVICE,
): string {
	const problem = sealingSecretProblem(credentials.sealingSecret);
	if (problem) {
		throw new NodeOperationError(
			asker.node,
			`The credential's Key Sealing Secret cannot be used${itemOf(asker)}`,
			{
				itemIndex: asker.itemIndex,
				description: `${asker.label}: ${problem} ${advice} Nothing was sent.`,
			},
		);
	}
	return String(credentials.sealingSecret).trim();
}

function itemOf(asker: Pick<Asker, 'itemIndex'>): string {
	return asker.itemIndex === undefined ? '' : ` [item ${asker.itemIndex}]`;
}

const WRONG_KEY_ADVICE: Record<KeyType, string> = {
	master:
		'Creating borrower accounts is a partner feature: choose a credential whose Key Type is Partner Master Key.',
	borrower:
		"Choose a credential whose Key Type is Borrower Key (for example the api_key returned by Account → Create). A partner can keep its Partner Master Key credential and act for one of its borrowers instead: set Options → Act as Borrower (API Key) to that borrower's key.",
};
