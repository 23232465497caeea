import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import {
	runWorkflow,
	singleNodeWorkflow,
	testCredential,
	type TestCredential,
} from '../../dev/harness/n8n';
import { interpretProbe } from '../../nodes/LendasatBorrower/methods/credentialTest';
import { useFakeTime } from '../helpers/fakeTime';

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const custom = () => ({ environment: 'custom' as const, baseUrl: sandbox.url });

function nothingCreated() {
	expect(sandbox.stats().contractsCreated).toBe(0);
	expect(
		sandbox.requests.every(
			(request) => request.body === undefined || JSON.stringify(request.body) === '{}',
		),
	).toBe(true);
}

describe('the credential test, for a partner master key', () => {
	it('passes with the master key, creating nothing', async () => {
		const result = await testCredential({
			...custom(),
			keyType: 'master',
			apiKey: sandbox.keys.master,
		});
		expect(result).toEqual({
			status: 'OK',
			message: `The Partner Master Key works on ${sandbox.url}.`,
		});
		expect(sandbox.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'POST /api/create-api-account',
		]);
		expect(sandbox.state.accounts).toHaveLength(0);
		nothingCreated();
	});

	it('fails for a borrower key stored as a master key', async () => {
		const result = await testCredential({
			...custom(),
			keyType: 'master',
			apiKey: sandbox.keys.borrower,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toContain('rejected the Partner Master Key');
		expect(result.message).toContain('a Borrower Key does not work here');
		expect(result.message).not.toContain(sandbox.keys.borrower);
	});

	it('fails for an unknown key', async () => {
		const result = await testCredential({ ...custom(), keyType: 'master', apiKey: 'las-unknown' });
		expect(result.status).toBe('Error');
	});
});

describe('the credential test, for a borrower key', () => {
	it('passes with the borrower key, creating nothing', async () => {
		const result = await testCredential({
			...custom(),
			keyType: 'borrower',
			apiKey: sandbox.keys.borrower,
		});
		expect(result).toEqual({ status: 'OK', message: `The Borrower Key works on ${sandbox.url}.` });
		expect(sandbox.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'POST /api/contracts',
		]);
		nothingCreated();
	});

	it('fails for a master key stored as a borrower key', async () => {
		const result = await testCredential({
			...custom(),
			keyType: 'borrower',
			apiKey: sandbox.keys.master,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toContain('rejected the Borrower Key');
	});

	it('passes against the live dialect too (422 for the empty body)', async () => {
		sandbox.configure({ dialect: 'live' });
		const good = await testCredential({
			...custom(),
			keyType: 'borrower',
			apiKey: sandbox.keys.borrower,
		});
		const bad = await testCredential({
			...custom(),
			keyType: 'borrower',
			apiKey: 'lndst_sk_000000000000_nope',
		});
		expect(good.status).toBe('OK');
		expect(bad.status).toBe('Error');
	});
});

describe('the credential test says what is wrong with the address', () => {
	it('reports an unreachable host', async () => {
		const closed = http.createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise<void>((resolve) => closed.close(() => resolve()));
		const result = await testCredential({
			environment: 'custom',
			baseUrl: `http://127.0.0.1:${port}`,
			keyType: 'borrower',
			apiKey: 'k-123456',
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Cannot reach http:\/\/127\.0\.0\.1:\d+ \(connection refused \(ECONNREFUSED\)\)/,
		);
	});

	it('reports a server that is not the borrower API (wrong environment or URL)', async () => {
		const other = http.createServer((_request, response) => {
			response.writeHead(404, { 'content-type': 'text/html' });
			response.end('<html><body>Not here</body></html>');
		});
		await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
		const { port } = other.address() as AddressInfo;
		const result = await testCredential({
			environment: 'custom',
			baseUrl: `http://127.0.0.1:${port}/`,
			keyType: 'master',
			apiKey: 'k-123456',
		});
		await new Promise<void>((resolve) => other.close(() => resolve()));
		expect(result.status).toBe('Error');
		expect(result.message).toContain('does not look like the Lendasat borrower API');
	});

	it('asks for a key and a proper URL before sending anything', async () => {
		expect((await testCredential({ ...custom(), apiKey: ' ' })).message).toBe(
			'The credential has no API key: enter the key Lendasat gave you.',
		);
		expect(
			(
				await testCredential({
					environment: 'custom',
					baseUrl: 'apiborrow.lendasat.com',
					apiKey: 'k-123456',
				})
			).message,
		).toMatch(/must start with http/);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe("the credential's Allowed HTTP Request Domains hold for every request, the test included", () => {
	const getMe = (credential: TestCredential) =>
		runWorkflow(singleNodeWorkflow({ resource: 'user', operation: 'getMe' }), { credential });
	const restricted = (allowedDomains: string): TestCredential => ({
		...custom(),
		keyType: 'borrower',
		apiKey: sandbox.keys.borrower,
		allowedHttpRequestDomains: 'domains',
		allowedDomains,
	});

	it('refuses a base URL whose host is not listed, in the test and in the node alike, sending nothing', async () => {
		const credential = restricted('apiborrow.lendasat.com, *.127.0.0.1');
		const tested = await testCredential(credential);
		const { error } = await getMe(credential);

		expect(tested.status).toBe('Error');
		expect(tested.message).toMatch(
			/^The credential's Allowed HTTP Request Domains \(apiborrow\.lendasat\.com, \*\.127\.0\.0\.1\) do not include 127\.0\.0\.1/,
		);
		expect(String((error as { description?: string }).description)).toContain(tested.message);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('refuses Specific Domains with none named', async () => {
		const tested = await testCredential(restricted('  '));
		expect(tested.message).toMatch(/Specific Domains, but names none/);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('lets a listed host through', async () => {
		const credential = restricted('example.com, 127.0.0.1');
		expect((await testCredential(credential)).status).toBe('OK');
		expect((await getMe(credential)).error).toBeUndefined();
	});

	it('leaves All and None alone: None blocks only the HTTP Request node', async () => {
		for (const mode of ['all', 'none'] as const) {
			const credential = { ...restricted('example.com'), allowedHttpRequestDomains: mode };
			expect((await testCredential(credential)).status).toBe('OK');
			expect((await getMe(credential)).error).toBeUndefined();
		}
	});
});

describe('a key with white space around it gets the same verdict from the test and the node', () => {
	it.each([
		['a trailing line break', (key: string) => `${key}\n`],
		['a trailing Windows line break', (key: string) => `${key}\r\n`],
		['leading and trailing spaces', (key: string) => `  ${key}  `],
		['a tab', (key: string) => `\t${key}`],
	])('%s: both work', async (_case, wrap) => {
		const credential: TestCredential = {
			...custom(),
			keyType: 'borrower',
			apiKey: wrap(sandbox.keys.borrower),
		};
		expect((await testCredential(credential)).status).toBe('OK');
		const { error } = await runWorkflow(
			singleNodeWorkflow({ resource: 'user', operation: 'getMe' }),
			{
				credential,
			},
		);
		expect(error).toBeUndefined();
		expect(sandbox.requests.map((request) => request.headers['x-api-key'])).toEqual([
			sandbox.keys.borrower,
			sandbox.keys.borrower,
		]);
	});
});

describe('interpretProbe', () => {
	const probe = {
		contentType: 'application/json',
		keyType: 'borrower' as const,
		environment: 'production',
		baseUrl: 'https://apiborrow.lendasat.com',
	};

	it.each([
		[400, 'OK'],
		[422, 'OK'],
		[415, 'OK'],
		[401, 'Error'],
		[403, 'Error'],
		[404, 'Error'],
		[429, 'Error'],
		[500, 'Error'],
	])('HTTP %i → %s', (statusCode, status) => {
		expect(interpretProbe({ ...probe, statusCode, body: { message: 'x' } }).status).toBe(status);
	});

	it('names the environment the key was rejected by', () => {
		expect(interpretProbe({ ...probe, statusCode: 401, body: '' }).message).toMatch(
			/^Production rejected the Borrower Key/,
		);
	});

	it('does not take an HTML error page for a validation answer', () => {
		expect(
			interpretProbe({
				...probe,
				statusCode: 400,
				contentType: 'text/html',
				body: '<html>400</html>',
			}).status,
		).toBe('Error');
	});
});
