import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * Bringin, where a Bringin loan pays out: connect the account by e-mail, then see whether Bringin has
 * confirmed it. Against the sandbox's live dialect (hub 0.8.2 routes/borrower/bringin.rs).
 */

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => {
	sandbox.reset();
	sandbox.configure({ dialect: 'live' });
});

const NODE = 'Lendasat Borrower';
/** The seeded borrower's own address, which has a Bringin account in the sandbox. */
const KNOWN_TO_BRINGIN = 'borrower@sandbox.example';

const credential = (apiKey = sandbox.keys.borrower): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey,
});

async function bringin(
	operation: 'getStatus' | 'connect',
	parameters: Record<string, unknown> = {},
	used = credential(),
) {
	const result = await runWorkflow(
		singleNodeWorkflow({ resource: 'bringin', operation, ...parameters }),
		{ credential: used },
	);
	expect(everythingVisible(result.run, result.error)).not.toContain(used.apiKey);
	return { ...result, items: result.output(NODE).map((item) => item.json) };
}

const describedBy = (error: unknown) => String((error as { description?: string }).description);

describe('connecting Bringin: ask by e-mail, then wait for Bringin to confirm', () => {
	it('is not connected, asks an address without a Bringin account to sign up, and is connected once Bringin confirms', async () => {
		expect((await bringin('getStatus')).items).toEqual([{ has_key: false }]);
		expect(sandbox.requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/bringin/api-key' });

		const { items, error } = await bringin('connect', { bringinEmail: ' new.user@example.com ' });

		expect(error).toBeUndefined();
		const request = sandbox.requests.at(-1)!;
		expect(request).toMatchObject({ method: 'POST', path: '/api/bringin/connect' });
		expect(request.body).toEqual({ bringin_email: 'new.user@example.com' });
		expect(items).toEqual([
			{
				bringin_email: 'new.user@example.com',
				signup_url: expect.stringMatching(/^https:\/\//),
				next_step: expect.stringContaining('has no Bringin account yet: sign up at signup_url'),
			},
		]);

		// Bringin calls Lendasat back once the user has signed up (outside the API).
		sandbox.admin.confirmBringin(sandbox.keys.borrower);

		expect((await bringin('getStatus')).items).toEqual([{ has_key: true }]);
	});

	it('tells an existing Bringin user to approve the e-mail Bringin sent', async () => {
		const { items } = await bringin('connect', { bringinEmail: KNOWN_TO_BRINGIN });

		expect(items).toEqual([
			{
				bringin_email: KNOWN_TO_BRINGIN,
				signup_url: null,
				next_step: `Bringin e-mailed ${KNOWN_TO_BRINGIN} a link to approve the connection. Bringin → Get Status says has_key true once it is approved.`,
			},
		]);
	});

	it("maps Lendasat's own refusal of an address the node lets through (a domain label over 63 characters)", async () => {
		const { error } = await bringin('connect', {
			bringinEmail: `name@${'x'.repeat(64)}.com`,
		});

		expect(error?.message).toBe('Lendasat refused the e-mail address (HTTP 400)');
		expect(describedBy(error)).toContain('Server said: "Invalid email".');
	});

	it('is sent once: after a failure that may have reached Bringin, never again', async () => {
		sandbox.configure({
			faults: [{ kind: '503', method: 'POST', path: '/api/bringin/connect', after: true }],
		});

		const { error } = await bringin('connect', { bringinEmail: 'new.user@example.com' });

		expect(error?.message).toMatch(/HTTP 503/);
		expect(sandbox.requests).toHaveLength(1);
	});

	it.each([
		['getStatus', '/api/bringin/api-key'],
		['connect', '/api/bringin/connect'],
	] as const)('%s refuses an error body sent with 200', async (operation, path) => {
		sandbox.configure({ faults: [{ kind: 'bad-200', body200: 'message-body', path }] });

		const { items, error } = await bringin(operation, { bringinEmail: KNOWN_TO_BRINGIN });

		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(describedBy(error)).toMatch(/error message, although the status says success/);
	});
});

describe('Bringin: bad input never reaches the API', () => {
	it.each([
		['not-an-email', /has no @/],
		['jürgen@example.com', /outside a–z; Lendasat takes only plain ASCII addresses/],
		['name@example', /no domain ending/],
		['  ', /Must not be empty/],
	])('Bringin Email = %j', async (bringinEmail, problem) => {
		const { error } = await bringin('connect', { bringinEmail });

		expect(error?.message).toBe('Invalid Bringin Email [item 0]');
		expect(describedBy(error)).toMatch(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('refuses a Partner Master Key before sending anything', async () => {
		const { error } = await bringin(
			'getStatus',
			{},
			{ ...credential(sandbox.keys.master), keyType: 'master' },
		);
		expect(error?.message).toBe(
			'Bringin → Get Status needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe("the sandbox's live dialect, as hub 0.8.2's bringin router answers", () => {
	it('reads the body with plain axum::Json: a missing field is a plain-text 422 (bringin.rs:83)', async () => {
		const response = await fetch(`${sandbox.url}/api/bringin/connect`, {
			method: 'POST',
			headers: { 'x-api-key': sandbox.keys.borrower, 'content-type': 'application/json' },
			body: '{}',
		});
		expect(response.status).toBe(422);
		expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
		expect(await response.text()).toBe(
			'Failed to deserialize the JSON body into the target type: missing field `bringin_email` at line 1 column 2',
		);
	});
});
