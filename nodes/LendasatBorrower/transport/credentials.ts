export type KeyType = 'borrower' | 'master';

export type Environment = 'production' | 'development' | 'custom';

export const CREDENTIAL_TYPE = 'lendasatApi';

export const ENVIRONMENT_BASE_URLS: Record<Exclude<Environment, 'custom'>, string> = {
	production: 'https://apiborrow.lendasat.com',
	development: 'https://apiborrowersignet.lendasat.com',
};

export const KEY_TYPE_NAMES: Record<KeyType, string> = {
	borrower: 'Borrower Key',
	master: 'Partner Master Key',
};

/**
 * Where the credential's requests go. A trailing slash or a pasted "/api" suffix on a custom URL is
 * tolerated.
 */
export function baseUrlOf(credentials: { environment?: unknown; baseUrl?: unknown }): string {
	if (credentials.environment === 'custom') {
		return String(credentials.baseUrl ?? '')
			.trim()
			.replace(/\/+$/, '')
			.replace(/\/api$/, '');
	}
	return credentials.environment === 'development'
		? ENVIRONMENT_BASE_URLS.development
		: ENVIRONMENT_BASE_URLS.production;
}

export function keyTypeOf(credentials: { keyType?: unknown }): KeyType {
	return credentials.keyType === 'master' ? 'master' : 'borrower';
}

/** Which Bitcoin network a collateral address must belong to in an environment. */
export function bitcoinNetworkFor(environment: unknown): 'mainnet' | 'test' | 'any' {
	if (environment === 'production') return 'mainnet';
	if (environment === 'development') return 'test';
	return 'any';
}

/**
 * Whether the credential points at Lendasat's own backend (its production or development
 * environment, or a custom URL on lendasat.com), whose Create Contract needs more than the
 * specification's fields.
 */
export function isLendasatBackend(credentials: {
	environment?: unknown;
	baseUrl?: unknown;
}): boolean {
	if (credentials.environment !== 'custom') return true;
	try {
		const { hostname } = new URL(baseUrlOf(credentials));
		return hostname === 'lendasat.com' || hostname.endsWith('.lendasat.com');
	} catch {
		return false;
	}
}
