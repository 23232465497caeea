/** Health, version and the current user (live-api §2.1, §2.8). */
import { caller, jsonReply, type Route } from '../router';

export const SANDBOX_VERSION = {
	tag: '0.8.11-sandbox',
	commit_hash: '5a4db0c0ffee5a4db0c0ffee5a4db0c0ffee5a4d',
};

export const miscRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/health',
		auth: 'none',
		body: 'none',
		handle: () => jsonReply({ message: 'Up and running' }),
	},
	{
		method: 'GET',
		pattern: '/api/version',
		auth: 'none',
		body: 'none',
		handle: () => jsonReply({ ...SANDBOX_VERSION }),
	},
	{
		method: 'GET',
		pattern: '/api/users/me',
		auth: 'borrower',
		body: 'none',
		handle: (ctx) => jsonReply({ user: caller(ctx).user, enabled_features: [] }),
	},
];
