import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const borrower = (): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
});

function notifications(parameters: Record<string, unknown>, credential = borrower()) {
	return runWorkflow(singleNodeWorkflow({ resource: 'notification', ...parameters }), { credential });
}

async function listNotifications(parameters: Record<string, unknown> = {}) {
	const { output, error } = await notifications({ operation: 'getAll', ...parameters });
	expect(error).toBeUndefined();
	return output('Lendasat Borrower').map((item) => item.json as { type: string; data: Record<string, unknown> });
}

/** The seed gives the main borrower five notifications, one of them already read. */
const SEEDED_UNREAD = 4;
const SEEDED_TOTAL = 5;

/** `count` unread contract updates, one minute apart, older than everything seeded. */
function postContractUpdates(count: number): string[] {
	const start = Date.parse('2020-01-01T00:00:00.000Z');
	return Array.from({ length: count }, (_, index) => {
		const message = sandbox.admin.postNotification(sandbox.keys.borrower, {
			type: 'ContractUpdate',
			data: {
				contract_id: 'c0000000-0000-4000-8000-000000000003',
				status: 'PrincipalGiven',
				timestamp: new Date(start + index * 60_000).toISOString(),
			},
		});
		return message.data.id;
	});
}

describe('Notification → Get Many: reading the feed', () => {
	it('asks for unread notifications by default and returns one {type, data} item each', async () => {
		const items = await listNotifications();

		expect(items).toHaveLength(SEEDED_UNREAD);
		for (const item of items) {
			expect(Object.keys(item).sort()).toEqual(['data', 'type']);
			expect(item.data).toEqual(expect.objectContaining({ id: expect.any(String), read: false }));
		}
		expect(items.map((item) => item.type).sort()).toEqual(
			['ChatMessage', 'ContractUpdate', 'ContractUpdate', 'InstallmentUpdate'].sort(),
		);

		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe('/api/notifications');
		expect(request.query).toEqual({ unread_only: 'true', page: '1', limit: '50' });
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it('includes notifications already read when Unread Only is off', async () => {
		const items = await listNotifications({ unreadOnly: false });

		expect(items).toHaveLength(SEEDED_TOTAL);
		expect(items.filter((item) => item.data.read === true)).toHaveLength(1);
		expect(sandbox.requests[0].query.unread_only).toBe('false');
	});

	it('Return All walks every page of 100, newest first, without duplicates', async () => {
		const posted = postContractUpdates(120);

		const items = await listNotifications({ returnAll: true });

		expect(items).toHaveLength(SEEDED_UNREAD + 120);
		const ids = items.map((item) => item.data.id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids).toEqual(expect.arrayContaining(posted));
		const timestamps = items.map((item) => String(item.data.timestamp));
		expect(timestamps).toEqual([...timestamps].sort().reverse());

		expect(sandbox.requests.map((request) => request.query)).toEqual([
			{ unread_only: 'true', page: '1', limit: '100' },
			{ unread_only: 'true', page: '2', limit: '100' },
		]);
	});

	it('a Limit below one page asks for just that many', async () => {
		postContractUpdates(30);

		const items = await listNotifications({ limit: 7 });

		expect(items).toHaveLength(7);
		expect(sandbox.requests.map((request) => request.query)).toEqual([{ unread_only: 'true', page: '1', limit: '7' }]);
	});

	it('a Limit above one page stops as soon as it has enough', async () => {
		postContractUpdates(120);

		const items = await listNotifications({ limit: 110 });

		expect(items).toHaveLength(110);
		expect(sandbox.requests.map((request) => request.query)).toEqual([
			{ unread_only: 'true', page: '1', limit: '100' },
			{ unread_only: 'true', page: '2', limit: '100' },
		]);
	});

	describe("on Lendasat's backend, whose pages merge three kinds of notification with one offset", () => {
		beforeEach(() => {
			sandbox.configure({ dialect: 'live' });
			sandbox.admin.postNotifications(sandbox.keys.borrower, 160);
		});

		it('fails Return All loudly rather than return fewer than the server counts', async () => {
			const { output, error } = await notifications({ operation: 'getAll', returnAll: true });
			expect(output('Lendasat Borrower')).toEqual([]);
			expect(error?.message).toMatch(/^Lendasat returned \d+ of 164 notifications$/);
			expect((error as { description?: string }).description).toContain('Limit to at most 100');
		});

		it('returns the newest 100 exactly: the first page loses nothing', async () => {
			const items = await listNotifications({ limit: 100 });
			expect(items).toHaveLength(100);
			const all = (sandbox.state.notifications.get(SEED_IDS.users.borrower) ?? [])
				.filter((message) => !message.data.read)
				.map((message) => message.data)
				.sort((a, b) => String(b.timestamp).localeCompare(String(a.timestamp)));
			expect(items.map((item) => item.data.id)).toEqual(all.slice(0, 100).map((data) => data.id));
		});
	});

	it('passes a kind of notification the node does not know through unchanged', async () => {
		const posted = sandbox.admin.postNotification(sandbox.keys.borrower, {
			type: 'MarginCallAlert',
			data: { contract_id: 'c0000000-0000-4000-8000-000000000004', ltv: 0.81, level: 'First' },
		});

		const items = await listNotifications();

		expect(items).toContainEqual({ type: 'MarginCallAlert', data: posted.data });
	});
});

describe('Notification → Mark as Read', () => {
	it('marks one notification: PUT /api/notifications/{id}, then it is no longer unread', async () => {
		const [newest, ...others] = await listNotifications();
		sandbox.reset();

		const { output, error } = await notifications({
			operation: 'markAsRead',
			scope: 'one',
			notificationId: newest.data.id,
		});

		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower').map((item) => item.json)).toEqual([{ markedAsRead: newest.data.id }]);
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('PUT');
		expect(request.path).toBe(`/api/notifications/${String(newest.data.id)}`);
		expect(request.query).toEqual({});
		expect(request.rawBody).toBe('');

		const unread = await listNotifications();
		expect(unread.map((item) => item.data.id)).toEqual(others.map((item) => item.data.id));
		const everything = await listNotifications({ unreadOnly: false });
		expect(everything.find((item) => item.data.id === newest.data.id)?.data.read).toBe(true);
	});

	it('marks all: PUT /api/notifications, then nothing is unread and everything shows as read', async () => {
		postContractUpdates(3);

		const { output, error } = await notifications({ operation: 'markAsRead', scope: 'all' });

		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower').map((item) => item.json)).toEqual([{ markedAsRead: 'all' }]);
		expect(sandbox.requests).toHaveLength(1);
		expect(sandbox.requests[0]).toEqual(
			expect.objectContaining({ method: 'PUT', path: '/api/notifications', query: {}, rawBody: '' }),
		);

		expect(await listNotifications()).toEqual([]);
		const everything = await listNotifications({ unreadOnly: false, returnAll: true });
		expect(everything).toHaveLength(SEEDED_TOTAL + 3);
		expect(everything.every((item) => item.data.read === true)).toBe(true);
	});

	it('sends the ID trimmed of stray white space', async () => {
		const id = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
		const { output } = await notifications({ operation: 'markAsRead', scope: 'one', notificationId: `  ${id} ` });
		expect(output('Lendasat Borrower')[0].json).toEqual({ markedAsRead: id });
		expect(sandbox.requests[0].path).toBe(`/api/notifications/${id}`);
	});
});

describe('Notification: bad input is refused before any request', () => {
	it.each([
		['a notification ID that is not a UUID', 'not-a-uuid'],
		['a UUID without dashes', '3f2b8c1e9d4a4b6f8e2a1c5d7f9a0b3e'],
		['an expression giving nothing', '={{ "  " }}'],
	])('%s', async (_case, notificationId) => {
		const { error } = await notifications({ operation: 'markAsRead', scope: 'one', notificationId });
		expect(error?.message).toBe('Invalid Notification ID [item 0]');
		expect((error as { description?: string }).description).toMatch(/^Notification ID: .*3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e/);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['a Scope in capitals', { operation: 'markAsRead', scope: 'ALL' }, 'Invalid Scope [item 0]', 'Expected one of one, all, got "ALL".'],
		['Unread Only given as text', { operation: 'getAll', unreadOnly: '={{ "false" }}' }, 'Invalid Unread Only [item 0]', 'Expected true or false'],
		['Unread Only given as an object', { operation: 'getAll', unreadOnly: '={{ { a: 1 } }}' }, 'Invalid Unread Only [item 0]', 'Expected true or false'],
	])('refuses %s, naming the field', async (_case, parameters, message, problem) => {
		const { error } = await notifications(parameters);
		expect(error?.message).toBe(message);
		expect((error as { description?: string }).description).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['getAll', {}],
		['markAsRead', { scope: 'all' }],
	])('refuses a partner master key for %s', async (operation, parameters) => {
		const { error } = await notifications(
			{ operation, ...parameters },
			{ ...borrower(), keyType: 'master', apiKey: sandbox.keys.master },
		);
		expect(error?.message).toMatch(/needs a Borrower Key, but the credential holds a Partner Master Key$/);
		expect(sandbox.requests).toHaveLength(0);
	});
});
