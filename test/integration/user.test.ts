import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';

let sandbox: Sandbox;

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
