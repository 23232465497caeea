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

const NEW_KEY_PATTERN = /^lndst_sk_[0-9a-f]{12}_[A-Za-z0-9]+$/;

const withKey = (apiKey: string): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey,
});
const borrower = () => withKey(sandbox.keys.borrower);

function apiKeys(
	parameters: Record<string, unknown>,
	credential = borrower(),
	items?: Record<string, unknown>[],
) {
	return runWorkflow(singleNodeWorkflow({ resource: 'apiKey', ...parameters }), {
		credential,
		items,
	});
}

async function listKeys(
	credential = borrower(),
	parameters: Record<string, unknown> = { returnAll: true },
) {
	const { output, error } = await apiKeys({ operation: 'getAll', ...parameters }, credential);
	expect(error).toBeUndefined();
	return output('Lendasat Borrower').map(
		(item) => item.json as { id: number; description: string; created_at: string },
	);
}

async function createKey(description: string, credential = borrower()): Promise<string> {
	const { output, error } = await apiKeys({ operation: 'create', description }, credential);
	expect(error).toBeUndefined();
	return String(output('Lendasat Borrower')[0].json.api_key);
}

describe('API Key → Get Many', () => {
	it("lists the account's own keys, one item each, without the secret", async () => {
		const keys = await listKeys();

		expect(keys).toEqual([
			{
				id: expect.any(Number),
				description: 'Sandbox borrower key',
				created_at: expect.any(String),
			},
		]);
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe('/api/keys');
		expect(request.query).toEqual({});
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it('cuts the list to the Limit after receiving it whole', async () => {
		await apiKeys({ operation: 'create', description: '={{ $json.purpose }}' }, borrower(), [
			{ purpose: 'first' },
			{ purpose: 'second' },
			{ purpose: 'third' },
		]);
		sandbox.requests.length = 0;

		expect(await listKeys(borrower(), { returnAll: true })).toHaveLength(4);
		expect(await listKeys(borrower(), { returnAll: false, limit: 2 })).toHaveLength(2);
		expect(sandbox.requests.map((request) => request.query)).toEqual([{}, {}]);
	});
});

describe('API Key: the life of a key', () => {
	it('create → the new key works as a credential → delete it with itself → it is refused with a clear 401', async () => {
		// Create: the secret comes back once.
		const { output, error } = await apiKeys({
			operation: 'create',
			description: '  Reporting workflow ',
		});
		expect(error).toBeUndefined();
		const created = output('Lendasat Borrower').map((item) => item.json);
		expect(created).toEqual([{ api_key: expect.stringMatching(NEW_KEY_PATTERN) }]);
		const newKey = String(created[0].api_key);
		expect(sandbox.requests).toHaveLength(1);
		expect(sandbox.requests[0]).toEqual(
			expect.objectContaining({
				method: 'POST',
				path: '/api/keys',
				body: { description: 'Reporting workflow' },
			}),
		);

		// The new key is a credential of the same account: it sees both keys.
		const keys = await listKeys(withKey(newKey));
		expect(keys.map((key) => key.description)).toEqual([
			'Sandbox borrower key',
			'Reporting workflow',
		]);
		const newKeyId = keys.find((key) => key.description === 'Reporting workflow')!.id;

		// Delete the key the credential itself holds: that still succeeds.
		sandbox.requests.length = 0;
		const deletion = await apiKeys({ operation: 'delete', apiKeyId: newKeyId }, withKey(newKey));
		expect(deletion.error).toBeUndefined();
		expect(deletion.output('Lendasat Borrower').map((item) => item.json)).toEqual([
			{ id: newKeyId, deleted: true },
		]);
		// The keys are listed first: the live backend answers 200 for an ID that does not exist.
		expect(sandbox.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
			'GET /api/keys',
			`DELETE /api/keys/${newKeyId}`,
		]);
		expect(sandbox.requests[1]).toEqual(
			expect.objectContaining({
				method: 'DELETE',
				path: `/api/keys/${newKeyId}`,
				query: {},
				rawBody: '',
			}),
		);

		// From now on the credential is locked out, and the error says so without showing the key.
		const afterwards = await apiKeys({ operation: 'getAll', returnAll: true }, withKey(newKey));
		expect(afterwards.error?.message).toBe(
			'Lendasat rejected the API key (HTTP 401, UNAUTHORIZED)',
		);
		expect((afterwards.error as { description?: string }).description).toContain(
			'Check the credential',
		);
		expect(everythingVisible(afterwards.run, afterwards.error)).not.toContain(newKey);

		// The original key still works and no longer lists the deleted one.
		expect((await listKeys()).map((key) => key.description)).toEqual(['Sandbox borrower key']);
	});

	it('deletes a key given as text by an expression', async () => {
		await createKey('temporary');
		const { id } = (await listKeys()).find((key) => key.description === 'temporary')!;
		sandbox.requests.length = 0;

		const { output, error } = await apiKeys({ operation: 'delete', apiKeyId: `={{ " ${id} " }}` });

		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower')[0].json).toEqual({ id, deleted: true });
		expect(sandbox.requests[1].path).toBe(`/api/keys/${id}`);
	});

	it.each(['spec', 'live'] as const)(
		'says that a key ID does not exist instead of reporting it deleted (%s dialect; the live one answers 200)',
		async (dialect) => {
			sandbox.configure({ dialect });
			const { error, output } = await apiKeys({ operation: 'delete', apiKeyId: 999999 });
			expect(output('Lendasat Borrower')).toEqual([]);
			expect(error?.message).toBe('No API key with ID 999999');
			expect((error as { description?: string }).description).toMatch(
				/nothing was deleted\. This account's key IDs are \d+/,
			);
			expect(sandbox.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
				'GET /api/keys',
			]);
		},
	);

	it('sends a create once: a POST without idempotency key is not repeated after a server error', async () => {
		sandbox.configure({
			faults: [{ kind: '503', method: 'POST', path: '/api/keys', after: true }],
		});

		const { error } = await apiKeys({ operation: 'create', description: 'once only' });

		expect(error?.message).toMatch(/HTTP 503/);
		expect((error as { description?: string }).description).toContain('Not retried');
		expect(sandbox.requests).toHaveLength(1);
	});
	it('sends a create again after a 429: the server refused it without creating anything', async () => {
		sandbox.configure({ rateLimit: { requestsPerSecond: 1, retryAfter: 'seconds' } });

		const { output, error } = await apiKeys(
			{ operation: 'create', description: '={{ $json.purpose }}' },
			borrower(),
			[{ purpose: 'first' }, { purpose: 'second' }],
		);

		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower')).toHaveLength(2);
		expect(sandbox.stats().rateLimited).toBeGreaterThan(0);
		sandbox.configure({ rateLimit: null });
		expect((await listKeys()).map((key) => key.description).sort()).toEqual([
			'Sandbox borrower key',
			'first',
			'second',
		]);
	});
});

describe('API Key: bad input is refused before any request', () => {
	it.each([
		[
			'a blank description',
			{ operation: 'create', description: '   ' },
			'Invalid Description [item 0]',
			/must not be empty/i,
		],
		[
			'an over-long description',
			{ operation: 'create', description: 'x'.repeat(201) },
			'Invalid Description [item 0]',
			/at most 200/,
		],
		[
			'a key ID that is not a number',
			{ operation: 'delete', apiKeyId: '={{ "abc" }}' },
			'Invalid API Key ID [item 0]',
			/whole-number key ID like 42/,
		],
		[
			'a fractional key ID',
			{ operation: 'delete', apiKeyId: 1.5 },
			'Invalid API Key ID [item 0]',
			/whole number/,
		],
		[
			'key ID 0',
			{ operation: 'delete', apiKeyId: 0 },
			'Invalid API Key ID [item 0]',
			/between 1 and 2147483647/,
		],
		[
			'a key ID beyond int32',
			{ operation: 'delete', apiKeyId: 2 ** 31 },
			'Invalid API Key ID [item 0]',
			/between 1 and 2147483647/,
		],
	])('%s', async (_case, parameters, message, problem) => {
		const { error } = await apiKeys(parameters);
		expect(error?.message).toBe(message);
		expect((error as { description?: string }).description).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('leaves an empty description to n8n, which names it before running', async () => {
		const { error } = await apiKeys({ operation: 'create', description: '' });
		expect(error?.message).toContain('Parameter "Description" is required');
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['create', { description: 'x' }],
		['getAll', {}],
		['delete', { apiKeyId: 1 }],
	])('refuses a partner master key for %s', async (operation, parameters) => {
		const { error } = await apiKeys(
			{ operation, ...parameters },
			{ ...borrower(), keyType: 'master', apiKey: sandbox.keys.master },
		);
		expect(error?.message).toMatch(
			/needs a Borrower Key, but the credential holds a Partner Master Key$/,
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});
