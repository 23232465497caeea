/**
 * Production and Development must reach their real hosts, which tests may not contact. The node's
 * own Request Options send every request through a proxy on 127.0.0.1 instead ("Proxy", and
 * "Ignore SSL Issues" for the test certificate): the proxy accepts the CONNECT tunnel, terminates
 * TLS itself and answers from the sandbox, recording the absolute URL each environment produced.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { runWorkflow, singleNodeWorkflow } from '../../dev/harness/n8n';
import { useFakeTime } from '../helpers/fakeTime';

let sandbox: Sandbox;

useFakeTime();
let proxy: http.Server;
let proxyUrl: string;
const proxied: string[] = [];

/** A throwaway self-signed certificate for the hosts the tunnel pretends to be. */
function testCertificate(): { key: Buffer; cert: Buffer } {
	const folder = mkdtempSync(path.join(os.tmpdir(), 'lendasat-cert-'));
	try {
		execFileSync(
			'openssl',
			[
				'req',
				'-x509',
				'-newkey',
				'rsa:2048',
				'-nodes',
				'-days',
				'1',
				'-subj',
				'/CN=lendasat.test',
				'-keyout',
				path.join(folder, 'key.pem'),
				'-out',
				path.join(folder, 'cert.pem'),
			],
			{ stdio: 'ignore' },
		);
		return {
			key: readFileSync(path.join(folder, 'key.pem')),
			cert: readFileSync(path.join(folder, 'cert.pem')),
		};
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
}

function forwardToSandbox(request: http.IncomingMessage, response: http.ServerResponse) {
	proxied.push(`${request.method} https://${request.headers.host}${request.url}`);
	const forward = http.request(
		`${sandbox.url}${request.url}`,
		{ method: request.method, headers: { ...request.headers, host: new URL(sandbox.url).host } },
		(answer) => {
			response.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(response);
		},
	);
	request.pipe(forward);
}

beforeAll(async () => {
	sandbox = await startSandbox();
	const tlsEndpoint = https.createServer(testCertificate(), forwardToSandbox);
	proxy = http.createServer((_request, response) => response.writeHead(405).end());
	proxy.on('connect', (_request, socket) => {
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		tlsEndpoint.emit('connection', socket);
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
	await new Promise<void>((resolve) => proxy.close(() => resolve()));
	await sandbox.close();
});
beforeEach(() => {
	sandbox.reset();
	proxied.length = 0;
});

/** Lendasat's own hosts need the live fields; the collateral address must be on the environment's network. */
const LIVE_FIELDS = {
	borrowerPublicKey: '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
	derivationPath: "m/84'/0'/0'/0/0",
	loanType: 'StableCoin',
};
const OFFER = '0ffe0000-0000-4000-8000-000000000001';
const ADDRESSES = {
	production: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
	development: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
};

const contractCreate = (
	requestOptions: Record<string, unknown> = {},
	environment: keyof typeof ADDRESSES = 'development',
) =>
	singleNodeWorkflow({
		resource: 'contract',
		operation: 'create',
		loanId: { __rl: true, mode: 'id', value: OFFER },
		loanAmount: 1500,
		durationDays: 30,
		additionalFields: { ...LIVE_FIELDS, collateralAddress: ADDRESSES[environment] },
		requestOptions,
	});

describe('every environment setting reaches its own base URL', () => {
	it.each([
		['production', 'https://apiborrow.lendasat.com/api/contracts'],
		['development', 'https://apiborrowersignet.lendasat.com/api/contracts'],
	] as const)('%s', async (environment, url) => {
		const { output, error } = await runWorkflow(
			contractCreate({ proxy: proxyUrl, allowUnauthorizedCerts: true }, environment),
			{
				credential: { environment, keyType: 'borrower', apiKey: sandbox.keys.borrower },
			},
		);
		expect(error).toBeUndefined();
		// First the offer, for the kind of Collateral Address it takes (Ark or on-chain).
		expect(proxied).toEqual([
			`GET ${url.replace('/contracts', `/offers/${OFFER}`)}?collateral_asset_type=Any&loan_type=All`,
			`POST ${url}`,
		]);
		expect(output('Lendasat Borrower')[0].json.status).toBe('pending');
	});

	it.each([
		['a plain custom URL', (url: string) => url],
		['a trailing slash', (url: string) => `${url}/`],
		['a pasted /api suffix', (url: string) => `${url}/api/`],
	])('custom, with %s', async (_case, baseUrlOf) => {
		const { error } = await runWorkflow(contractCreate(), {
			credential: {
				environment: 'custom',
				baseUrl: baseUrlOf(sandbox.url),
				keyType: 'borrower',
				apiKey: sandbox.keys.borrower,
			},
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests.map((request) => request.path)).toEqual([
			`/api/offers/${OFFER}`,
			'/api/contracts',
		]);
	});

	it('account creation too', async () => {
		const { error } = await runWorkflow(
			singleNodeWorkflow({
				resource: 'account',
				operation: 'create',
				name: 'Ada',
				email: 'ada@example.com',
				timezone: 'Europe/London',
				requestOptions: { proxy: proxyUrl, allowUnauthorizedCerts: true },
			}),
			{ credential: { environment: 'production', keyType: 'master', apiKey: sandbox.keys.master } },
		);
		expect(error).toBeUndefined();
		expect(proxied).toEqual(['POST https://apiborrow.lendasat.com/api/create-api-account']);
	});
});
