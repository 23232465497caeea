import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const borrower = (apiKey = sandbox.keys.borrower): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey,
});

function getMe(credential = borrower()) {
	return runWorkflow(singleNodeWorkflow({ resource: 'user', operation: 'getMe' }), { credential });
}

describe('User → Get Me', () => {
	it('returns the account of the key as {user, enabled_features}', async () => {
		const { output, error } = await getMe();

		expect(error).toBeUndefined();
		const items = output('Lendasat Borrower').map((item) => item.json);
		expect(items).toHaveLength(1);
		const [me] = items as [{ user: Record<string, unknown>; enabled_features: unknown }];
		expect(Object.keys(me).sort()).toEqual(['enabled_features', 'user']);
		expect(me.enabled_features).toEqual([]);
		expect(me.user).toEqual(
			expect.objectContaining({
				id: 'b0000000-0000-4000-8000-000000000001',
				name: expect.any(String),
				email: expect.any(String),
				verified: true,
				timezone: expect.any(String),
				totp_enabled: false,
				created_at: expect.any(String),
				personal_referral_codes: [],
			}),
		);

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe('/api/users/me');
		expect(request.query).toEqual({});
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it("leaves out the personal Telegram token, which would let anyone follow the account's notifications", async () => {
		const token = sandbox.state.users.get(
			'b0000000-0000-4000-8000-000000000001',
		)!.personal_telegram_token;
		expect(token).toEqual(expect.any(String));

		const { output, run } = await getMe();

		expect(output('Lendasat Borrower')[0].json.user).not.toHaveProperty('personal_telegram_token');
		expect(everythingVisible(run)).not.toContain(token);
	});

	it('answers for whichever account the key belongs to', async () => {
		const { output } = await getMe(borrower(sandbox.keys.otherBorrower));
		expect((output('Lendasat Borrower')[0].json.user as { id: string }).id).toBe(
			'b0000000-0000-4000-8000-000000000002',
		);
	});

	it('maps a revoked or unknown key to a clear 401 without showing the key', async () => {
		const wrongKey = 'lndst_sk_0123456789ab_NotARealKeyAtAll';
		const { error, run } = await getMe(borrower(wrongKey));
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect((error as { description?: string }).description).toContain(
			'User → Get Me: this operation needs a Borrower Key.',
		);
		expect(everythingVisible(run, error)).not.toContain(wrongKey);
	});

	it('refuses a partner master key before sending anything', async () => {
		const { error } = await getMe({ ...borrower(sandbox.keys.master), keyType: 'master' });
		expect(error?.message).toBe(
			'User → Get Me needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('User → Update: a borrower sets the account’s time zone and language', () => {
	const ME = 'b0000000-0000-4000-8000-000000000001';
	const stored = () => sandbox.state.users.get(ME)!;

	function update(updateFields: Record<string, unknown>, credential = borrower()) {
		return runWorkflow(
			singleNodeWorkflow({ resource: 'user', operation: 'update', updateFields }),
			{
				credential,
			},
		);
	}

	it('sets both with one request each and returns what was set', async () => {
		const { output, error } = await update({ timezone: 'America/New_York', locale: 'de-DE' });
		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower').map((item) => item.json)).toEqual([
			{ timezone: 'America/New_York', locale: 'de-DE', updated: true },
		]);
		expect(sandbox.requests.map((request) => [request.method, request.path, request.body])).toEqual(
			[
				['PUT', '/api/users', { timezone: 'America/New_York' }],
				['PUT', '/api/users/locale', { locale: 'de-DE' }],
			],
		);
		expect(stored()).toMatchObject({ timezone: 'America/New_York', locale: 'de-DE' });
	});

	it('sends only the request for what is given', async () => {
		const { output, error } = await update({ locale: 'en-US' });
		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower')[0].json).toEqual({ locale: 'en-US', updated: true });
		expect(sandbox.requests.map((request) => request.path)).toEqual(['/api/users/locale']);

		sandbox.reset();
		await update({ timezone: 'Asia/Tokyo' });
		expect(sandbox.requests.map((request) => request.path)).toEqual(['/api/users']);
	});

	it('clears the language with System Default (sent as null), against the live backend too', async () => {
		sandbox.configure({ dialect: 'live' });
		stored().locale = 'de-DE';
		const { output, error } = await update({ locale: 'systemDefault' });
		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower')[0].json).toEqual({ locale: null, updated: true });
		expect(sandbox.requests[0].body).toEqual({ locale: null });
		expect(stored().locale).toBeNull();
	});

	it('takes another language tag from an expression', async () => {
		const { error } = await update({ locale: '={{ "pt-BR" }}' });
		expect(error).toBeUndefined();
		expect(sandbox.requests[0].body).toEqual({ locale: 'pt-BR' });
	});

	it.each([
		['nothing to update', {}, 'Update Fields', /Add Timezone or Locale/],
		['a zone that is not Area/City', { timezone: 'UTC' }, 'Timezone', /Area\/City/],
		['an unknown zone', { timezone: '={{ "Europe/Atlantis" }}' }, 'Timezone', /Area\/City/],
		['a locale with an underscore', { locale: '={{ "de_DE" }}' }, 'Locale', /like de-DE/],
		['a locale that is no tag', { locale: '={{ "German" }}' }, 'Locale', /not a language tag/],
	])('refuses %s before sending anything', async (_case, fields, field, problem) => {
		const { error } = await update(fields);
		expect(error?.message).toBe(`Invalid ${field} [item 0]`);
		expect((error as { description?: string }).description).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it("maps the live backend's refusal of a time zone", async () => {
		// The node checks the zone first, so only a server that knows fewer zones refuses one it accepts.
		const server = http.createServer((_request, response) => {
			response.writeHead(400, { 'content-type': 'application/json' });
			response.end('{"message":"Invalid timezone provided"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const { error } = await update({ timezone: 'Europe/Kyiv' }, { ...borrower(), baseUrl });
			expect(error?.message).toBe('Lendasat does not know this time zone (HTTP 400)');
			expect((error as { description?: string }).description).toContain(
				'User → Update: use an IANA time zone of the form Area/City',
			);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it('says the time zone was already set when the language then fails, and never sends either again', async () => {
		sandbox.configure({ faults: [{ kind: '500', method: 'PUT', path: '/api/users/locale' }] });
		const { error, output } = await update({ timezone: 'Asia/Tokyo', locale: 'de-DE' });
		expect(output('Lendasat Borrower')).toEqual([]);
		expect(error?.message).toMatch(/^Lendasat had an internal error \(HTTP 500/);
		expect((error as { description?: string }).description).toMatch(
			/The time zone was already set to Asia\/Tokyo\.$/,
		);
		expect(sandbox.requests.map((request) => request.path)).toEqual([
			'/api/users',
			'/api/users/locale',
		]);
		expect(stored().timezone).toBe('Asia/Tokyo');
	});

	it("refuses the live backend's error body sent with a 200, and shows no key", async () => {
		const server = http.createServer((_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end('{"message":"Something went wrong"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const { error, run } = await update({ locale: 'de-DE' }, { ...borrower(), baseUrl });
			expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
			expect((error as { description?: string }).description).toMatch(
				/it is an error message, although the status says success/,
			);
			expect(everythingVisible(run, error)).not.toContain(sandbox.keys.borrower);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it('needs a borrower key, and explains a rejected one without showing it', async () => {
		const master = await update(
			{ locale: 'de-DE' },
			{ ...borrower(sandbox.keys.master), keyType: 'master' },
		);
		expect(master.error?.message).toBe(
			'User → Update needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);

		const wrongKey = 'lndst_sk_0123456789ab_NotARealKeyAtAll';
		const { error, run } = await update({ locale: 'de-DE' }, borrower(wrongKey));
		expect(error?.message).toBe('Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)');
		expect(everythingVisible(run, error)).not.toContain(wrongKey);
	});

	it('Get Me then shows the new settings', async () => {
		await update({ timezone: 'Asia/Tokyo', locale: 'de-DE' });
		const { output } = await getMe();
		expect(output('Lendasat Borrower')[0].json.user).toMatchObject({
			timezone: 'Asia/Tokyo',
			locale: 'de-DE',
		});
	});
});
