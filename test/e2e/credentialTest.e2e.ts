/**
 * The credential test in a real n8n (2.x, and 1.x under jest.e2e-n8n1.config.js) through its REST API,
 * as the editor's "Test" button calls it, against the node run with the same credential: a key with
 * white space around it works for both, a key with a line break inside is refused by both in the same
 * words, and Allowed HTTP Request Domains that leave out the API's host stop both before anything is
 * sent.
 */
import { randomUUID } from 'node:crypto';

import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import {
	createN8nHome,
	type CredentialImport,
	type Json,
	type N8nHome,
	type N8nServer,
} from '../../dev/n8n/n8n-env';
import { wantedVersion } from '../../dev/n8n/ensure-n8n';
import { apiRequests, nodeOutput, runError } from './helpers';

interface Case {
	/** Credential and workflow id suffix, at most 8 characters (n8n's ids have 16). */
	id: string;
	title: string;
	data: (sandbox: Sandbox) => Record<string, unknown>;
	/** undefined: both accept it; else the words both use to refuse it. */
	refusal?: RegExp;
}

const borrowerKey = (sandbox: Sandbox) => sandbox.keys.borrower;

const CASES: Case[] = [
	{
		id: 'newline',
		title: 'a key with a trailing line break',
		data: (sandbox) => ({ apiKey: `${borrowerKey(sandbox)}\n` }),
	},
	{
		id: 'spaces0',
		title: 'a key with spaces and CR LF around it',
		data: (sandbox) => ({ apiKey: `  ${borrowerKey(sandbox)} \r\n` }),
	},
	{
		id: 'inbreak',
		title: 'a key with a line break inside',
		data: (sandbox) => {
			const key = borrowerKey(sandbox);
			return { apiKey: `${key.slice(0, 20)}\n${key.slice(20)}` };
		},
		refusal:
			/The API key contains a space, line break or control character: paste it again as one line\./,
	},
	{
		id: 'domainsx',
		title: 'Allowed HTTP Request Domains without the API’s host',
		data: (sandbox) => ({
			apiKey: borrowerKey(sandbox),
			allowedHttpRequestDomains: 'domains',
			allowedDomains: 'apiborrow.lendasat.com, *.lendasat.com',
		}),
		refusal:
			/The credential's Allowed HTTP Request Domains \(apiborrow\.lendasat\.com, \*\.lendasat\.com\) do not include 127\.0\.0\.1, the host of its base URL/,
	},
	{
		id: 'domainsi',
		title: 'Allowed HTTP Request Domains naming the API’s host',
		data: (sandbox) => ({
			apiKey: borrowerKey(sandbox),
			allowedHttpRequestDomains: 'domains',
			allowedDomains: 'apiborrow.lendasat.com, 127.0.0.1',
		}),
	},
];

const credentialId = (entry: Case): string => `lsE2eCrd${entry.id.padEnd(8, '0')}`;
const workflowId = (entry: Case): string => `lsE2eWfl${entry.id.padEnd(8, '0')}`;

function credentialData(sandbox: Sandbox, entry: Case): Record<string, unknown> {
	return {
		environment: 'custom',
		baseUrl: sandbox.url,
		keyType: 'borrower',
		...entry.data(sandbox),
	};
}

/** Manual trigger → User → Get Me with the case's credential. */
function workflowFor(entry: Case): Json {
	return {
		id: workflowId(entry),
		name: `e2e: credential ${entry.id}`,
		nodes: [
			{
				id: randomUUID(),
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: randomUUID(),
				name: 'Who am I',
				type: 'n8n-nodes-lendasat.lendasatBorrower',
				typeVersion: 1.1,
				position: [220, 0],
				parameters: { resource: 'user', operation: 'getMe' },
				credentials: { lendasatApi: { id: credentialId(entry), name: entry.title } },
			},
		],
		connections: { Start: { main: [[{ node: 'Who am I', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

let sandbox: Sandbox;
let home: N8nHome;
let server: N8nServer;
/** What the node did with each case's credential: its run and the requests it sent. */
const nodeRuns = new Map<string, { run: Json; sent: number; keys: string[] }>();

beforeAll(async () => {
	sandbox = await startSandbox();
	home = createN8nHome();
	const credentials: CredentialImport[] = CASES.map((entry) => ({
		id: credentialId(entry),
		name: entry.title,
		type: 'lendasatApi',
		data: credentialData(sandbox, entry),
	}));
	await home.importCredentials(credentials);
	await home.importWorkflows(CASES.map(workflowFor));
	for (const entry of CASES) {
		const from = sandbox.requests.length;
		const run = await home.execute(workflowId(entry));
		const sent = apiRequests(sandbox.requests, from);
		nodeRuns.set(entry.id, {
			run,
			sent: sent.length,
			keys: sent.map((request) => String(request.headers['x-api-key'])),
		});
	}
	server = await home.start();
	await server.setupOwner();
}, 300_000);

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	home?.remove();
});

describe(`the credential test and the node agree, in n8n ${wantedVersion()}`, () => {
	test.each(CASES.map((entry) => [entry.title, entry]))('%s', async (_title, entry) => {
		const from = sandbox.requests.length;
		// What the editor's "Test" button sends for a saved credential.
		const tested = await server.rest('POST', '/credentials/test', {
			credentials: {
				id: credentialId(entry),
				name: entry.title,
				type: 'lendasatApi',
				data: credentialData(sandbox, entry),
			},
		});
		const probes = apiRequests(sandbox.requests, from);
		const node = nodeRuns.get(entry.id) as { run: Json; sent: number; keys: string[] };
		const everything = JSON.stringify(tested) + node.run.stdout + node.run.stderr;
		expect(everything).not.toContain(sandbox.keys.borrower);

		if (!entry.refusal) {
			expect(tested).toMatchObject({ status: 'OK', message: expect.stringMatching(/works on/) });
			expect(probes.map((probe) => probe.headers['x-api-key'])).toEqual([sandbox.keys.borrower]);
			expect(node.run.code).toBe(0);
			expect(nodeOutput(node.run.data, 'Who am I')[0].user).toBeDefined();
			expect(node.keys).toEqual([sandbox.keys.borrower]);
			return;
		}
		expect(tested.status).toBe('Error');
		expect(tested.message).toMatch(entry.refusal);
		expect(probes).toHaveLength(0);
		expect(node.run.code).not.toBe(0);
		const error = runError(node.run.data);
		expect(`${error.message} ${error.description}`).toMatch(entry.refusal);
		expect(error.message).toBe('The Lendasat credential cannot be used');
		expect(node.sent).toBe(0);
	});
});
