import { isDomainAllowed, type INode } from 'n8n-workflow';

import { readAnswer, type Answer } from '../../nodes/LendasatBorrower/transport/answer';
import { connectionOf, type Connection } from '../../nodes/LendasatBorrower/transport/connection';
import {
	exchange,
	failureOf,
	type Attempt,
	type SendOnce,
	type Transport,
} from '../../nodes/LendasatBorrower/transport/exchange';
import { readTransportSettings } from '../../nodes/LendasatBorrower/transport/settings';
import { Semaphore } from '../../nodes/LendasatBorrower/transport/semaphore';
import { Admission } from '../../nodes/LendasatBorrower/transport/admission';
import { Cancellation } from '../../nodes/LendasatBorrower/transport/cancellation';
import { cancellable } from '../../nodes/LendasatBorrower/transport/clock';
import { VirtualClock } from '../helpers/virtualClock';

const NODE = {
	id: 'n',
	name: 'Lendasat Borrower',
	type: 'lendasatBorrower',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as INode;
/** A key a server could echo in ways a naive redaction misses: quotes and backslashes. */
const HOSTILE_KEY = 'lndst_sk_0123456789ab_quo"te\\back';

function connection(overrides: Record<string, unknown> = {}): Connection {
	const result = connectionOf({
		environment: 'custom',
		baseUrl: 'http://127.0.0.1:7337',
		keyType: 'borrower',
		apiKey: HOSTILE_KEY,
		...overrides,
	});
	if ('problem' in result) throw new Error(result.problem);
	return result;
}

const answer = (
	statusCode: number,
	text: string,
	headers: Record<string, unknown> = {},
): Answer => ({ statusCode, headers, text });

/**
 * A transport on a virtual clock whose server is a list of scripted answers (or errors), recording
 * what was sent and when.
 */
function scripted(
	replies: Array<Answer | Error | ((attempt: Attempt) => Promise<Answer>)>,
	options: Record<string, unknown> = {},
) {
	const sent: Attempt[] = [];
	const sentAt: number[] = [];
	const clock = new VirtualClock();
	const send: SendOnce = async (attempt) => {
		sent.push(attempt);
		sentAt.push(clock.now);
		const reply = replies[Math.min(sent.length - 1, replies.length - 1)];
		if (reply instanceof Error) throw reply;
		return typeof reply === 'function' ? await reply(attempt) : reply;
	};
	const transport: Transport = {
		send,
		connection: connection(),
		settings: readTransportSettings(undefined, { initialDelay: 10, maxDelay: 50, ...options }),
		caller: { node: NODE, label: 'Contract → Get', requiredKeyType: 'borrower' },
		clock: clock.asClock(() => 0.5),
	};
	return { transport, sent, sentAt, clock };
}

const get = { method: 'GET' as const, path: '/api/contracts/c1' };
const json = (value: unknown) => JSON.stringify(value);

describe('connectionOf: what the transport takes from a credential', () => {
	it('keeps every form in which a key could come back, to redact it', () => {
		const { secrets } = connection();
		expect(secrets).toEqual(
			expect.arrayContaining([
				HOSTILE_KEY,
				'lndst_sk_0123456789ab_quo\\"te\\\\back',
				encodeURIComponent(HOSTILE_KEY),
			]),
		);
	});

	it('shows a base URL without its user name and password, and treats the password as a secret', () => {
		const withPassword = connection({ baseUrl: 'http://ops:s3cretpass@127.0.0.1:7337/' });
		expect(withPassword.shownBaseUrl).toBe('http://127.0.0.1:7337');
		expect(withPassword.secrets).toContain('s3cretpass');
	});

	it('keeps a user name visible and reads a password with a stray % without failing', () => {
		const shown = connection({ baseUrl: 'http://user:50%off@127.0.0.1:7337' });
		expect(shown.secrets).not.toContain('user');
		expect(shown.secrets).toContain('50%off');
		expect(shown.shownBaseUrl).toBe('http://127.0.0.1:7337');
	});

	it.each([
		['an empty key', { apiKey: '  ' }, 'has no API key'],
		[
			'a key with a line break inside',
			{ apiKey: 'lndst_sk_0123456789ab_abc\ndef' },
			'contains a space, line break or control character',
		],
		['a key with a space inside', { apiKey: 'lndst_sk_0123456789ab_abc def' }, 'contains a space'],
		[
			'a key with a zero-width space inside',
			{ apiKey: 'lndst_sk_0123456789ab_abc\u200bdef' },
			'not plain ASCII',
		],
		[
			'a key with an accented letter',
			{ apiKey: 'lndst_sk_0123456789ab_abcédef' },
			'not plain ASCII',
		],
		[
			'a base URL without a scheme',
			{ baseUrl: 'apiborrow.lendasat.com' },
			'must start with http:// or https://',
		],
		[
			'a base URL of another scheme',
			{ baseUrl: 'ftp://127.0.0.1' },
			'must start with http:// or https://',
		],
	])('refuses %s before anything is sent', (_case, overrides, problem) => {
		const result = connectionOf({
			environment: 'custom',
			baseUrl: 'http://127.0.0.1:7337',
			keyType: 'borrower',
			apiKey: 'k-123456',
			...overrides,
		});
		expect(result).toEqual({ problem: expect.stringContaining(problem) });
	});

	// The node keeps its own copy of the rule (connection.ts says why); it must give n8n's verdict.
	it.each([
		['the host listed', 'https://apiborrow.lendasat.com', 'apiborrow.lendasat.com', true],
		['a host in capitals', 'https://APIBORROW.Lendasat.com', 'apiborrow.lendasat.com', true],
		['a list in capitals', 'https://apiborrow.lendasat.com', 'APIBORROW.LENDASAT.COM', true],
		[
			'a host with a trailing dot',
			'https://apiborrow.lendasat.com.',
			'apiborrow.lendasat.com',
			true,
		],
		[
			'a list with a trailing dot',
			'https://apiborrow.lendasat.com',
			'apiborrow.lendasat.com.',
			true,
		],
		['a port in the URL', 'https://apiborrow.lendasat.com:8443', 'apiborrow.lendasat.com', true],
		['a port in the list', 'https://apiborrow.lendasat.com', 'apiborrow.lendasat.com:443', false],
		['a subdomain of a wildcard', 'https://apiborrow.lendasat.com', '*.lendasat.com', true],
		['a deeper subdomain of a wildcard', 'https://a.b.lendasat.com', '*.lendasat.com', true],
		["a wildcard's bare domain", 'https://lendasat.com', '*.lendasat.com', false],
		['a look-alike of a wildcard', 'https://evil-lendasat.com', '*.lendasat.com', false],
		['a look-alike of a host', 'https://lendasat.com.evil.io', 'lendasat.com', false],
		['a wildcard of nothing', 'https://apiborrow.lendasat.com', '*.', false],
		['a list of commas only', 'https://apiborrow.lendasat.com', ' , ,', false],
		[
			'spaces around entries',
			'https://apiborrow.lendasat.com',
			' example.com ,  apiborrow.lendasat.com ',
			true,
		],
		['an IPv6 host', 'http://[::1]:7337', '[::1]', true],
		['a user name and password', 'http://ops:pw@127.0.0.1:7337', '127.0.0.1', true],
		['a host n8n would not list', 'http://127.0.0.1:7337', 'localhost', false],
	])(
		"decides Specific Domains for %s as n8n-workflow's isDomainAllowed does",
		(_case, baseUrl, allowedDomains, allowed) => {
			const result = connectionOf({
				environment: 'custom',
				baseUrl,
				keyType: 'borrower',
				apiKey: 'k-123456',
				allowedHttpRequestDomains: 'domains',
				allowedDomains,
			});
			expect(isDomainAllowed({ url: baseUrl, allowedDomains })).toBe(allowed);
			expect('problem' in result ? result.problem : 'allowed').toEqual(
				allowed ? 'allowed' : expect.stringContaining('do not include'),
			);
		},
	);
});

describe('readAnswer: a success is used only when it has the expected shape', () => {
	const reader = { node: NODE, label: 'Contract → Get', secrets: connection().secrets };

	it('refuses an answer that holds the key written with JSON escapes', () => {
		const escaped = [...HOSTILE_KEY]
			.map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
			.join('');
		expect(() =>
			readAnswer(answer(200, `{"id":"a","note":"${escaped}"}`), 'object', reader),
		).toThrow(
			expect.objectContaining({ description: expect.stringContaining('it contains the API key') }),
		);
	});

	it('refuses a well-formed answer that lacks what the operation needs, with the reason the operation gives', () => {
		const check = (body: unknown) =>
			(body as { txid?: unknown }).txid ? undefined : 'it holds no txid';
		expect(() =>
			readAnswer(answer(200, json({ id: 'a' })), 'object', { ...reader, check }),
		).toThrow(
			expect.objectContaining({ description: expect.stringContaining('it holds no txid') }),
		);
		expect(readAnswer(answer(200, json({ txid: 'ab' })), 'object', { ...reader, check })).toEqual({
			txid: 'ab',
		});
	});

	it.each([
		['malformed JSON', 'object', '{"id": "abc', 'it is not JSON'],
		['an empty body', 'object', '', 'it is empty where a JSON object belongs'],
		['an HTML page', 'object', '<html><body>Welcome</body></html>', 'it is not JSON'],
		[
			'an array where one object belongs',
			'object',
			json([{ id: 'a' }, { id: 'b' }]),
			'it is an array of 2 where a JSON object belongs',
		],
		[
			'an error body with status 200',
			'object',
			json({ error: 'Internal', code: 'INTERNAL', details: 'x' }),
			'it is an error message',
		],
		[
			'an object where a list belongs',
			'list',
			json({ id: 'a' }),
			'it is an object where a JSON array of objects belongs',
		],
		['a list of strings', 'list', json(['a']), 'holding something other than objects'],
		['a page without data', 'page', json({ page: 1 }), 'where a page of records'],
		['a number where nothing or an object belongs', 'empty', '42', 'it is the number 42'],
	] as const)('refuses %s', (_case, expect_, text, problem) => {
		expect(() =>
			readAnswer(answer(200, text, { 'content-type': 'text/html' }), expect_, reader),
		).toThrow(
			expect.objectContaining({
				message: 'Lendasat sent an answer the node cannot use (HTTP 200)',
				description: expect.stringContaining(problem),
				httpCode: '200',
			}),
		);
	});

	it('shows status, content type and an excerpt in the error', () => {
		expect(() =>
			readAnswer(
				answer(200, '<h1>Maintenance</h1>', { 'Content-Type': 'text/html' }),
				'object',
				reader,
			),
		).toThrow(
			expect.objectContaining({
				description: expect.stringMatching(
					/Status 200, content type text\/html\. Server answered: "Maintenance"\./,
				),
			}),
		);
	});

	it('refuses an answer that contains the API key, in any form, and never shows it', () => {
		// As a JSON string (escaped), and verbatim in a body that is not JSON.
		for (const text of [
			JSON.stringify({ id: 'x', note: HOSTILE_KEY }),
			`accepted ${HOSTILE_KEY}`,
		]) {
			let thrown: { message: string; description?: string } | undefined;
			try {
				readAnswer(answer(200, text), 'object', reader);
			} catch (error) {
				thrown = error as typeof thrown;
			}
			expect(thrown?.description).toContain('it contains the API key');
			expect(`${thrown?.message} ${thrown?.description}`).not.toContain('quo');
		}
	});

	it('takes nothing, null or an object where nothing is expected', () => {
		expect(readAnswer(answer(200, ''), 'empty', reader)).toBeNull();
		expect(readAnswer(answer(200, 'null'), 'empty', reader)).toBeNull();
		expect(readAnswer(answer(200, '{}'), 'empty', reader)).toEqual({});
	});
});

describe('exchange: one request through the transport', () => {
	it('sends the key only to the base URL, and refuses to follow a redirect, naming where it pointed', async () => {
		const { transport, sent, clock } = scripted([
			answer(307, '', { location: 'http://evil.example:8080/steal' }),
		]);
		await expect(clock.settle(exchange(transport, get, 'object'))).rejects.toMatchObject({
			message: 'Lendasat answered with a redirect to http://evil.example:8080 (HTTP 307)',
			description: expect.stringContaining('Nothing was sent to http://evil.example:8080'),
		});
		expect(sent.map((attempt) => attempt.url)).toEqual(['http://127.0.0.1:7337/api/contracts/c1']);
	});

	it('retries a read after a 503 and returns the parsed answer', async () => {
		const { transport, sent, clock } = scripted([answer(503, ''), answer(200, json({ id: 'c1' }))]);
		await expect(clock.settle(exchange(transport, get, 'object'))).resolves.toEqual({ id: 'c1' });
		expect(sent).toHaveLength(2);
	});

	it('does not repeat a write that may have been processed, and says why', async () => {
		const { transport, sent, clock } = scripted([answer(503, '')]);
		const error = await clock
			.settle(exchange(transport, { method: 'POST', path: '/api/keys', body: {} }, 'object'))
			.catch((caught: unknown) => caught);
		expect(sent).toHaveLength(1);
		expect(error).toMatchObject({
			description: expect.stringContaining(
				'Not retried: the request may already have been processed',
			),
		});
		expect(failureOf(error)).toEqual({ kind: 'http', statusCode: 503, retryAfterMs: undefined });
	});

	it('gives each attempt a deadline that covers the body: a trickling answer is cut off and retried', async () => {
		const trickle = (attempt: Attempt) =>
			new Promise<Answer>((_resolve, reject) =>
				attempt.signal.addEventListener('abort', () => reject(new Error('canceled'))),
			);
		const { transport, sentAt, clock } = scripted([trickle], {
			attemptTimeout: 50,
			maxRetries: 1,
		});
		await expect(clock.settle(exchange(transport, get, 'object'))).rejects.toMatchObject({
			message: 'Could not get an answer from Lendasat: timed out',
			description: expect.stringContaining(
				'Gave up after 2 attempts: timed out (ETIMEDOUT), timed out (ETIMEDOUT).',
			),
		});
		// Cut off after 50 ms, a backoff of 3/4 of the 10 ms initial delay (rounded), cut off after 50 ms again.
		expect(sentAt).toEqual([0, 58]);
		expect(clock.now).toBe(108);
	});

	it('stops when the time budget runs out, and says so', async () => {
		const { transport, sentAt, clock } = scripted([answer(503, '')], {
			maxRetries: 100,
			initialDelay: 40,
			maxDelay: 40,
			timeBudget: 300,
		});
		await expect(clock.settle(exchange(transport, get, 'object'))).rejects.toMatchObject({
			description: expect.stringContaining('The time budget of 0.3 s for this request ran out.'),
		});
		// 30 ms apart (40 ms with a jitter of 1/2 takes 3/4 of it): the eleventh wait would end past 300 ms.
		expect(sentAt).toEqual(Array.from({ length: 10 }, (_, index) => index * 30));
		expect(clock.now).toBe(270);
	});

	it('takes a Retry-After of 0 as a minimum: it still backs off', async () => {
		const { transport, sentAt, clock } = scripted(
			[answer(503, '', { 'retry-after': '0' }), answer(200, '{}')],
			{ initialDelay: 100, maxDelay: 100 },
		);
		await clock.settle(exchange(transport, get, 'object'));
		expect(sentAt).toEqual([0, 75]);
	});

	it('redacts the key from an error body however the server escapes it', async () => {
		const escaped = JSON.stringify(HOSTILE_KEY).slice(1, -1);
		const { transport, clock } = scripted([
			answer(400, `{"message":"bad key ${escaped} and ${'x'.repeat(190)}${escaped}"}`),
		]);
		const error = (await clock
			.settle(exchange(transport, get, 'object'))
			.catch((caught: unknown) => caught)) as {
			message: string;
			description: string;
		};
		expect(error.description).toContain('[redacted]');
		expect(`${error.message} ${error.description}`).not.toMatch(/quo|back/);
	});
});

/** Each borrower of a run acts with a key of its own, and so has a rate gate of its own. */
let borrowers = 0;

/**
 * One item of a run acting as a borrower of its own (Act as Borrower): its scripted server answers
 * after `latencyMs`, and it shares the run's clock, slots and cancellation.
 */
function itemOfRun(
	run: { clock: VirtualClock; slots: Semaphore; cancelled?: Cancellation },
	replies: Array<Answer | 'hang'>,
	options: Record<string, unknown> = {},
	latencyMs = 0,
) {
	const sentAt: number[] = [];
	const timeouts: number[] = [];
	const send: SendOnce = async (attempt) => {
		sentAt.push(run.clock.now);
		timeouts.push(attempt.timeoutMs);
		const reply = replies[Math.min(sentAt.length - 1, replies.length - 1)];
		if (reply === 'hang')
			return await new Promise<Answer>((_resolve, reject) =>
				attempt.signal.addEventListener('abort', () => reject(new Error('canceled'))),
			);
		await run.clock.sleep(latencyMs);
		return reply;
	};
	const transport: Transport = {
		send,
		connection: connection({ apiKey: `lndst_sk_0123456789ab_borrower${++borrowers}` }),
		settings: readTransportSettings(undefined, { initialDelay: 100, maxDelay: 100, ...options }),
		caller: { node: NODE, label: 'Contract → Get', requiredKeyType: 'borrower' },
		clock: run.clock.asClock(() => 0.5),
		slots: run.slots,
		cancelled: run.cancelled,
	};
	return { transport, sentAt, timeouts };
}

/** When a promise settled on the clock, and how. */
function watched<T>(clock: VirtualClock, work: Promise<T>) {
	const state: { at?: number; value?: T; error?: unknown } = {};
	work.then(
		(value) => Object.assign(state, { at: clock.now, value }),
		(error: unknown) => Object.assign(state, { at: clock.now, error }),
	);
	return state;
}

describe("exchange: the run's slots (Max Parallel Requests) are held only on the wire", () => {
	it("gives the slot back during a back-off: another borrower's request goes out meanwhile", async () => {
		const run = { clock: new VirtualClock(), slots: new Semaphore() };
		const failing = itemOfRun(run, [answer(503, ''), answer(200, '{}')], { maxConcurrent: 1 }, 10);
		const other = itemOfRun(run, [answer(200, '{}')], { maxConcurrent: 1 }, 10);
		const first = watched(run.clock, exchange(failing.transport, get, 'object'));
		const second = watched(run.clock, exchange(other.transport, get, 'object'));
		await run.clock.run(() => first.at !== undefined && second.at !== undefined);
		// The 503 is in at 10 ms; the other request is sent then, during the back-off of 75 ms.
		expect(other.sentAt).toEqual([10]);
		expect(second.at).toBe(20);
		expect(failing.sentAt).toEqual([0, 85]);
		expect(run.slots.inFlight).toBe(0);
	});

	it('counts the wait for a slot against the time budget: none within it, nothing sent, and the error says why', async () => {
		const run = { clock: new VirtualClock(), slots: new Semaphore() };
		const holder = await run.slots.take(1);
		const item = itemOfRun(run, [answer(200, '{}')], { maxConcurrent: 1, timeBudget: 300 });
		const error = await run.clock
			.settle(exchange(item.transport, get, 'object'))
			.catch((caught: unknown) => caught);
		expect(error).toMatchObject({
			message: 'Max Parallel Requests reached: no request slot came free within the time budget',
			description: expect.stringContaining(
				"kept all 1 slots of Max Parallel Requests busy until this request's time budget of 0.3 s ran out. Nothing was sent.",
			),
		});
		expect(item.sentAt).toEqual([]);
		expect(run.clock.now).toBeLessThanOrEqual(300);
		expect(run.slots.inFlight).toBe(1);
		holder?.();
	});

	it('hands the slots over first come first served: a borrower retrying does not overtake those already waiting', async () => {
		const run = { clock: new VirtualClock(), slots: new Semaphore() };
		const retrying = itemOfRun(
			run,
			[answer(503, ''), answer(200, '{}')],
			{
				maxConcurrent: 1,
				initialDelay: 0,
				maxDelay: 0,
			},
			10,
		);
		const others = Array.from({ length: 3 }, () =>
			itemOfRun(run, [answer(200, '{}')], { maxConcurrent: 1 }, 10),
		);
		const all = [retrying, ...others].map((item) =>
			watched(run.clock, exchange(item.transport, get, 'object')),
		);
		await run.clock.run(() => all.every((each) => each.at !== undefined));
		expect(others.map((item) => item.sentAt[0])).toEqual([10, 20, 30]);
		expect(retrying.sentAt).toEqual([0, 40]);
	});
});

describe("exchange: an item steps aside from the run's items at work while it waits", () => {
	it('during a back-off: the next item starts meanwhile, and the item backing off goes on without waiting for a place', async () => {
		const run = { clock: new VirtualClock(), slots: new Semaphore() };
		const admission = new Admission({ now: () => run.clock.now });
		const failing = itemOfRun(run, [answer(503, ''), answer(200, '{}')], {}, 10);
		failing.transport.place = await admission.enter(1);
		const next = watched(run.clock, admission.enter(1));
		const first = watched(run.clock, exchange(failing.transport, get, 'object'));
		await run.clock.run(() => first.at !== undefined);
		// The 503 is in at 10 ms: the next item has a place then, during the back-off of 75 ms.
		expect(next.at).toBe(10);
		expect(failing.sentAt).toEqual([0, 85]);
		expect(first).toMatchObject({ at: 95, value: {} });
		expect(admission.inWork).toBe(2);
	});

	it("while its key's turn is not yet due: an item of another key starts meanwhile", async () => {
		const run = { clock: new VirtualClock(), slots: new Semaphore() };
		const admission = new Admission({ now: () => run.clock.now });
		const sending = itemOfRun(run, [answer(200, '{}')], { maxConcurrent: 1 }, 50);
		sending.transport.place = await admission.enter(2);
		const sameKey = {
			...sending.transport,
			place: await admission.enter(2),
		};
		const otherKey = watched(run.clock, admission.enter(2));
		const firstDone = watched(run.clock, exchange(sending.transport, get, 'object'));
		const secondDone = watched(run.clock, exchange(sameKey, get, 'object'));
		await run.clock.run(() => otherKey.at !== undefined);
		// One connection for the key: the second request waits for it, aside, from the start.
		expect(otherKey.at).toBe(0);
		await run.clock.run(() => firstDone.at !== undefined && secondDone.at !== undefined);
		expect(sending.sentAt).toEqual([0, 50]);
		expect(admission.inWork).toBe(3);
	});

	it('counts the wait for its place against the time budget of its first request: none left, nothing sent, and the error says why', async () => {
		const run = { clock: new VirtualClock(), slots: new Semaphore() };
		const item = itemOfRun(run, [answer(200, '{}')], { maxConcurrent: 1, timeBudget: 300 });
		run.clock.now = 400;
		const error = await run.clock
			.settle(exchange(item.transport, get, 'object', { budgetFrom: 100 }))
			.catch((caught: unknown) => caught);
		expect(error).toMatchObject({
			message: 'Max Parallel Requests reached: no request slot came free within the time budget',
		});
		expect(item.sentAt).toEqual([]);

		const inTime = itemOfRun(run, [answer(200, '{}')], { timeBudget: 300 });
		await run.clock.settle(exchange(inTime.transport, get, 'object', { budgetFrom: 200 }));
		// Its budget ends at 500: the attempt is given what is left of it.
		expect(inTime.timeouts).toEqual([100]);
	});

	it('does not send a read whose turn came with less than a tenth of its budget (or a second) left: the error says no slot came in time', async () => {
		const run = { clock: new VirtualClock(), slots: new Semaphore() };
		const late = itemOfRun(run, [answer(200, '{}')], { timeBudget: 180_000 });
		// It waited for its place from 0; 0.5 s of its 180 s are left when its turn comes.
		run.clock.now = 179_500;
		const error = await run.clock
			.settle(exchange(late.transport, get, 'object', { budgetFrom: 0 }))
			.catch((caught: unknown) => caught);
		expect(error).toMatchObject({
			message: 'Max Parallel Requests reached: no request slot came free within the time budget',
		});
		expect(late.sentAt).toEqual([]);

		// With a second and a half left it is sent, with that much time.
		const inTime = itemOfRun(run, [answer(200, '{}')], { timeBudget: 180_000 });
		await run.clock.settle(exchange(inTime.transport, get, 'object', { budgetFrom: 1_000 }));
		expect(inTime.timeouts).toEqual([1_500]);
	});
});

describe('exchange: a cancelled run', () => {
	it('ends the back-off and the wait for a slot, and aborts the attempt on the wire, at once; nothing more is sent', async () => {
		const cancel = new AbortController();
		const run = {
			clock: new VirtualClock(),
			slots: new Semaphore(),
			cancelled: new Cancellation(cancel.signal),
		};
		const options = {
			maxConcurrent: 1,
			initialDelay: 10_000,
			maxDelay: 10_000,
			attemptTimeout: 1_000,
		};
		const backingOff = itemOfRun(run, [answer(503, '')], options);
		const backOff = watched(run.clock, exchange(backingOff.transport, get, 'object'));
		await run.clock.run(() => backingOff.sentAt.length === 1);
		const onTheWire = itemOfRun(run, ['hang'], options);
		const sending = watched(run.clock, exchange(onTheWire.transport, get, 'object'));
		const waitingForSlot = itemOfRun(run, [answer(200, '{}')], options);
		const waiting = watched(run.clock, exchange(waitingForSlot.transport, get, 'object'));
		await run.clock.run(() => false, 100);
		expect([backOff.at, sending.at, waiting.at]).toEqual([undefined, undefined, undefined]);

		cancel.abort();
		await run.clock.run(() => backOff.at !== undefined && waiting.at !== undefined);
		const cancelled = {
			message: 'The execution was cancelled',
			description: expect.stringContaining('nothing more was sent'),
		};
		expect(backOff).toMatchObject({ at: 100, error: cancelled });
		expect(waiting).toMatchObject({ at: 100, error: cancelled });
		// The attempt on the wire is aborted through its signal, and not retried.
		await run.clock.run(() => sending.at !== undefined);
		expect(sending).toMatchObject({
			at: 100,
			error: {
				message: 'The execution was cancelled',
				description: expect.stringContaining(
					'it was aborted, so whether Lendasat received it is unknown, and nothing more was sent',
				),
			},
		});
		expect([backingOff.sentAt, onTheWire.sentAt, waitingForSlot.sentAt]).toEqual([[0], [0], []]);
		expect(run.slots.inFlight).toBe(0);
	});

	it("ends an operation's own wait too (the settle before a lookup)", async () => {
		const clock = new VirtualClock();
		const cancel = new AbortController();
		const settling = watched(
			clock,
			cancellable(clock.asClock(), new Cancellation(cancel.signal)).sleep(2_000),
		);
		await clock.run(() => false, 100);
		cancel.abort();
		await clock.run(() => settling.at !== undefined);
		expect(settling.at).toBe(100);
	});

	it('sends nothing once cancelled', async () => {
		const run = {
			clock: new VirtualClock(),
			slots: new Semaphore(),
			cancelled: new Cancellation(AbortSignal.abort()),
		};
		const item = itemOfRun(run, [answer(200, '{}')]);
		await expect(run.clock.settle(exchange(item.transport, get, 'object'))).rejects.toMatchObject({
			message: 'The execution was cancelled',
		});
		expect(item.sentAt).toEqual([]);
	});
});
