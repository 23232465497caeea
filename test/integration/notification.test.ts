import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow, type TestCredential } from '../../dev/harness/n8n';
import { useFakeTime } from '../helpers/fakeTime';

let sandbox: Sandbox;

useFakeTime();

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
	return runWorkflow(singleNodeWorkflow({ resource: 'notification', ...parameters }), {
		credential,
	});
}

async function listNotifications(parameters: Record<string, unknown> = {}) {
	const { output, error } = await notifications({ operation: 'getAll', ...parameters });
	expect(error).toBeUndefined();
	return output('Lendasat Borrower').map(
		(item) => item.json as { type: string; data: Record<string, unknown> },
	);
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
		expect(sandbox.requests.map((request) => request.query)).toEqual([
			{ unread_only: 'true', page: '1', limit: '7' },
		]);
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
		expect(output('Lendasat Borrower').map((item) => item.json)).toEqual([
			{ markedAsRead: newest.data.id },
		]);
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
			expect.objectContaining({
				method: 'PUT',
				path: '/api/notifications',
				query: {},
				rawBody: '',
			}),
		);

		expect(await listNotifications()).toEqual([]);
		const everything = await listNotifications({ unreadOnly: false, returnAll: true });
		expect(everything).toHaveLength(SEEDED_TOTAL + 3);
		expect(everything.every((item) => item.data.read === true)).toBe(true);
	});

	it('sends the ID trimmed of stray white space', async () => {
		const id = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
		const { output } = await notifications({
			operation: 'markAsRead',
			scope: 'one',
			notificationId: `  ${id} `,
		});
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
		const { error } = await notifications({
			operation: 'markAsRead',
			scope: 'one',
			notificationId,
		});
		expect(error?.message).toBe('Invalid Notification ID [item 0]');
		expect((error as { description?: string }).description).toMatch(
			/^Notification ID: .*3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e/,
		);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		[
			'a Scope in capitals',
			{ operation: 'markAsRead', scope: 'ALL' },
			'Invalid Scope [item 0]',
			'Expected one of one, all, got "ALL".',
		],
		[
			'Unread Only given as text',
			{ operation: 'getAll', unreadOnly: '={{ "false" }}' },
			'Invalid Unread Only [item 0]',
			'Expected true or false',
		],
		[
			'Unread Only given as an object',
			{ operation: 'getAll', unreadOnly: '={{ { a: 1 } }}' },
			'Invalid Unread Only [item 0]',
			'Expected true or false',
		],
	])('refuses %s, naming the field', async (_case, parameters, message, problem) => {
		const { error } = await notifications(parameters);
		expect(error?.message).toBe(message);
		expect((error as { description?: string }).description).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it.each([
		['getAll', {}],
		['markAsRead', { scope: 'all' }],
		['getSettings', {}],
		['updateSettings', { updateFields: { onLoginEmail: false } }],
	])('refuses a partner master key for %s', async (operation, parameters) => {
		const { error } = await notifications(
			{ operation, ...parameters },
			{ ...borrower(), keyType: 'master', apiKey: sandbox.keys.master },
		);
		expect(error?.message).toMatch(
			/needs a Borrower Key, but the credential holds a Partner Master Key$/,
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});

/** The backend's eight switches, in its order (BorrowerNotificationSettingsResponse). */
const SETTING_FIELDS = [
	'on_login_email',
	'on_login_telegram',
	'daily_offer_digest_email',
	'new_loan_offer_telegram',
	'contract_status_changed_email',
	'contract_status_changed_telegram',
	'new_chat_message_email',
	'new_chat_message_telegram',
];
const allSettings = (value: boolean): Record<string, boolean> =>
	Object.fromEntries(SETTING_FIELDS.map((field) => [field, value]));
const storedSettings = () => sandbox.state.notificationSettings.get(SEED_IDS.users.borrower);
const requestLines = () => sandbox.requests.map((request) => `${request.method} ${request.path}`);

describe.each(['spec', 'live'] as const)('Notification → Get Settings (%s dialect)', (dialect) => {
	beforeEach(() => sandbox.configure({ dialect }));

	it('returns the eight switches as the server answers them: all on for an account that never changed them', async () => {
		const { output, error } = await notifications({ operation: 'getSettings' });

		expect(error).toBeUndefined();
		expect(output('Lendasat Borrower').map((item) => item.json)).toEqual([allSettings(true)]);
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request).toEqual(
			expect.objectContaining({
				method: 'GET',
				path: '/api/notification-settings',
				query: {},
				rawBody: '',
			}),
		);
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it('returns what was stored', async () => {
		const stored = { ...allSettings(false), new_chat_message_telegram: true };
		sandbox.state.notificationSettings.set(SEED_IDS.users.borrower, stored as never);

		const { output } = await notifications({ operation: 'getSettings' });

		expect(output('Lendasat Borrower')[0].json).toEqual(stored);
	});
});

describe.each(['spec', 'live'] as const)(
	'Notification → Update Settings (%s dialect): read, merge, write',
	(dialect) => {
		beforeEach(() => sandbox.configure({ dialect }));

		it('sends all eight switches, the chosen ones changed, and returns the stored settings', async () => {
			const { output, error } = await notifications({
				operation: 'updateSettings',
				updateFields: { newChatMessageEmail: false, onLoginTelegram: false },
			});

			expect(error).toBeUndefined();
			const expected = {
				...allSettings(true),
				new_chat_message_email: false,
				on_login_telegram: false,
			};
			expect(requestLines()).toEqual([
				'GET /api/notification-settings',
				'PUT /api/notification-settings',
			]);
			const put = sandbox.requests[1];
			expect(put.body).toEqual(expected);
			expect(Object.keys(put.body as object)).toEqual(SETTING_FIELDS);
			expect(put.headers['content-type']).toMatch(/^application\/json/);
			expect(put.headers['x-api-key']).toBe(sandbox.keys.borrower);
			expect(output('Lendasat Borrower').map((item) => item.json)).toEqual([expected]);
			expect(storedSettings()).toEqual(expected);
		});

		it('keeps every switch it was not given at its stored value, and can switch one back on', async () => {
			const stored = { ...allSettings(false), daily_offer_digest_email: true };
			sandbox.state.notificationSettings.set(SEED_IDS.users.borrower, { ...stored } as never);

			const { output, error } = await notifications({
				operation: 'updateSettings',
				updateFields: { contractStatusChangedTelegram: true },
			});

			expect(error).toBeUndefined();
			const expected = { ...stored, contract_status_changed_telegram: true };
			expect(sandbox.requests[1].body).toEqual(expected);
			expect(output('Lendasat Borrower')[0].json).toEqual(expected);
		});

		it('takes every switch from an expression, per item; items of one run each read what the one before wrote', async () => {
			const { output, error } = await runWorkflow(
				singleNodeWorkflow({
					resource: 'notification',
					operation: 'updateSettings',
					updateFields: {
						onLoginEmail: '={{ $json.login }}',
						newLoanOfferTelegram: '={{ $json.offers }}',
					},
				}),
				{
					credential: borrower(),
					items: [
						{ login: false, offers: true },
						{ login: true, offers: false },
					],
				},
			);

			expect(error).toBeUndefined();
			// Not GET, GET, PUT, PUT: a second read before the first write would undo the first item's change.
			expect(requestLines()).toEqual([
				'GET /api/notification-settings',
				'PUT /api/notification-settings',
				'GET /api/notification-settings',
				'PUT /api/notification-settings',
			]);
			expect(sandbox.requests[1].body).toEqual({ ...allSettings(true), on_login_email: false });
			expect(sandbox.requests[3].body).toEqual({
				...allSettings(true),
				new_loan_offer_telegram: false,
			});
			expect(
				output('Lendasat Borrower').map((item) => [
					item.json.on_login_email,
					item.json.new_loan_offer_telegram,
					item.pairedItem,
				]),
			).toEqual([
				[false, true, { item: 0 }],
				[true, false, { item: 1 }],
			]);
		});

		it('refuses an update that changes nothing, before any request', async () => {
			const { error } = await notifications({ operation: 'updateSettings', updateFields: {} });

			expect(error?.message).toBe('No notification setting to update [item 0]');
			expect((error as { description?: string }).description).toMatch(
				/^Notification → Update Settings: add at least one setting under Update Fields.*Nothing was sent/,
			);
			expect(sandbox.requests).toHaveLength(0);
		});

		it('refuses a switch that is not true or false, naming it', async () => {
			const { error } = await notifications({
				operation: 'updateSettings',
				updateFields: { newChatMessageEmail: '={{ "false" }}' },
			});

			expect(error?.message).toBe('Invalid New Chat Message (Email) [item 0]');
			expect((error as { description?: string }).description).toContain('Expected true or false');
			expect(sandbox.requests).toHaveLength(0);
		});

		it('does not guess a switch the server did not report: it names it and writes nothing', async () => {
			const partial: Record<string, boolean> = allSettings(false);
			delete partial.new_chat_message_telegram;
			sandbox.state.notificationSettings.set(SEED_IDS.users.borrower, partial as never);

			const { error } = await notifications({
				operation: 'updateSettings',
				updateFields: { onLoginEmail: true },
			});

			expect(error?.message).toBe(
				'Lendasat did not report the current value of new_chat_message_telegram [item 0]',
			);
			expect(requestLines()).toEqual(['GET /api/notification-settings']);

			sandbox.reset();
			sandbox.configure({ dialect });
			sandbox.state.notificationSettings.set(SEED_IDS.users.borrower, partial as never);
			const given = await notifications({
				operation: 'updateSettings',
				updateFields: { newChatMessageTelegram: true },
			});
			expect(given.error).toBeUndefined();
			expect(sandbox.requests[1].body).toEqual({
				...allSettings(false),
				new_chat_message_telegram: true,
			});
		});

		it('writes back a further switch a newer server reports, unchanged', async () => {
			sandbox.state.notificationSettings.set(SEED_IDS.users.borrower, {
				...allSettings(true),
				margin_call_sms: false,
			} as never);

			const { error } = await notifications({
				operation: 'updateSettings',
				updateFields: { onLoginEmail: false },
			});

			expect(error).toBeUndefined();
			expect(sandbox.requests[1].body).toEqual({
				...allSettings(true),
				on_login_email: false,
				margin_call_sms: false,
			});
		});
	},
);

describe('Notification settings from a server that answers 200 with something else', () => {
	it.each([
		[
			'getSettings',
			{},
			'{"message":"Something went wrong"}',
			/error message, although the status says success/,
		],
		[
			'getSettings',
			{},
			JSON.stringify({ ...allSettings(true), on_login_email: 'yes' }),
			/its on_login_email is "yes", not true or false/,
		],
		[
			'updateSettings',
			{ updateFields: { onLoginEmail: false } },
			'{"ok":true}',
			/it lacks on_login_email/,
		],
	])('%s answered %#: an error, never an item', async (operation, parameters, body, problem) => {
		// GET answers the stored settings; the answer under test comes back for the operation's own request.
		const server = http.createServer((request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(
				operation === 'updateSettings' && request.method === 'GET'
					? JSON.stringify(allSettings(true))
					: body,
			);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
			const result = await notifications({ operation, ...parameters }, { ...borrower(), baseUrl });
			expect(result.output('Lendasat Borrower')).toEqual([]);
			expect(result.error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
			expect(String(result.error?.description)).toMatch(problem);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
