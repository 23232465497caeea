/**
 * The MCP server template (templates/mcp-server-read-only.json) on a real n8n, 2.x and 1.x
 * (jest.e2e-n8n1.config.js): published with its bearer token and Lendasat credential set, reached by
 * the official MCP SDK's client over Streamable HTTP, as Claude Desktop or any MCP client reaches
 * it. The client lists the tools and calls three of them; the sandbox answers. Then a write added
 * as docs/ai-agents.md describes (reviewedWrite.ts): it waits for a person's approval in Telegram (a
 * stand-in Telegram API on 127.0.0.1), and nothing reaches the sandbox before it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { selectedN8n, wantedVersion } from '../../dev/n8n/ensure-n8n';
import { createN8nHome, type Json, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import {
	lendasatToolsOf,
	MCP_TEMPLATE_FILE,
	readTemplate,
	templateTwin,
	toolName,
} from '../helpers/templates';
import {
	apiRequests,
	saveLendasatCredential,
	startReceiver,
	waitFor,
	waitUntilRegistered,
	type Receiver,
} from './helpers';
import { BROWSER_USER_AGENT } from './hostedChat';
import {
	askForApproval,
	cancelAfterApproval,
	SENT_FOR_APPROVAL,
	withReviewedCancel,
} from './reviewedWrite';

const TEMPLATE = readTemplate(MCP_TEMPLATE_FILE);
const TOKEN = 'e2e-mcp-token-0123456789abcdef0123456789abcdef';

const lendasatTools = lendasatToolsOf(TEMPLATE);

/** The template's twin with its two credentials chosen. */
const twinWith = (credentials: { lendasat: Json; bearer: Json }, name: string): Json =>
	templateTwin(
		TEMPLATE,
		{
			YOUR_LENDASAT_CREDENTIAL: credentials.lendasat,
			YOUR_MCP_BEARER_CREDENTIAL: credentials.bearer,
		},
		name,
	);

let twinCredentials: { lendasat: Json; bearer: Json };
const triggerOf = (workflow: Json): Json =>
	workflow.nodes.find((node: Json) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger');

/** The text of a tool call's answer, parsed: n8n answers with the tool's items as JSON text. */
function answerOf(result: Json): Json {
	expect(result.isError ?? false).toBe(false);
	const text = (result.content as Json[]).map((part) => part.text ?? '').join('');
	return JSON.parse(text);
}

let sandbox: Sandbox;
let home: N8nHome;
let server: N8nServer;
let mcpUrl: string;
let client: Client;
let lendasatCredential: Json;

/** Saves a workflow, and publishes it when `publish` is set. */
async function create(workflow: Json, publish: boolean): Promise<string> {
	// n8n 1.x needs `active` in the body; 2.x ignores it.
	const { id } = await server.rest('POST', '/workflows', { ...workflow, active: false });
	if (publish) await server.activate(id);
	return id;
}

/** An MCP client of the server at `url`, with the bearer token. */
async function connect(url: string): Promise<Client> {
	const connected = new Client({ name: 'lendasat-e2e', version: '1.0.0' });
	await connected.connect(
		new StreamableHTTPClientTransport(new URL(url), {
			requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
		}),
	);
	return connected;
}

/** Waits until n8n serves the MCP endpoint at `url` (it answers 401 or 403 to a bare POST then). */
const registered = (url: string) =>
	waitUntilRegistered(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
	});

beforeAll(async () => {
	sandbox = await startSandbox();
	home = createN8nHome();
	server = await home.start();
	await server.setupOwner();
	const lendasat = await saveLendasatCredential(server, 'Lendasat borrower key', {
		baseUrl: sandbox.url,
		keyType: 'borrower',
		apiKey: sandbox.keys.borrower,
	});
	const bearer = { name: 'MCP bearer token' };
	const { id: bearerId } = await server.rest('POST', '/credentials', {
		...bearer,
		type: 'httpBearerAuth',
		data: { token: TOKEN },
	});
	lendasatCredential = lendasat;
	twinCredentials = { lendasat: lendasatCredential, bearer: { id: bearerId, ...bearer } };
	const twin = twinWith(twinCredentials, 'e2e: MCP server with read-only tools (template twin)');
	await create(twin, true);
	mcpUrl = `${server.url}/mcp/${triggerOf(twin).parameters.path}`;
	await registered(mcpUrl);
}, 240_000);

afterAll(async () => {
	await client?.close();
	await server?.stop();
	await sandbox?.close();
	home?.remove();
});

test('the template file imports as it is, placeholders and all, with the n8n CLI', async () => {
	const imported = await home.cli(['import:workflow', `--input=${MCP_TEMPLATE_FILE}`]);
	expect(imported.code).toBe(0);
	const { nodes } = await server.rest('GET', `/workflows/${TEMPLATE.id}`);
	expect(nodes).toHaveLength(TEMPLATE.nodes.length);
});

test('without the bearer token n8n refuses the client and runs nothing', async () => {
	const from = sandbox.requests.length;
	const response = await fetch(mcpUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
		body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
	});
	expect(response.status).toBe(403);
	expect(apiRequests(sandbox.requests, from)).toEqual([]);
});

describe(`n8n ${wantedVersion()}: an MCP client on the template's server`, () => {
	beforeAll(async () => {
		client = await connect(mcpUrl);
	});

	test('lists exactly the template’s tools, read-only all, each with the description the package gives, asking Lendasat nothing', async () => {
		const from = sandbox.requests.length;
		const { tools } = await client.listTools();
		const listed = Object.fromEntries(tools.map((tool) => [tool.name, tool.description]));
		expect(listed).toEqual(
			Object.fromEntries(
				lendasatTools.map((tool) => [toolName(tool.name), tool.meta?.toolDescription]),
			),
		);
		// Offers, contracts, events, collateral health, price; nothing that writes.
		expect(lendasatTools.filter((tool) => tool.writes)).toEqual([]);
		expect(lendasatTools.map((tool) => tool.operation).sort()).toEqual(
			['get', 'getAll', 'getAll', 'getEvents', 'getHealth', 'getHistory'].sort(),
		);
		// A parameter the template leaves to the model ($fromAI) is what the client fills in.
		const health = tools.find((tool) => tool.name === 'Get_collateral_health');
		expect(health?.inputSchema.required).toEqual(['contractId']);
		expect(apiRequests(sandbox.requests, from)).toEqual([]);
	});

	test('Get many loan offers: the sandbox’s offers, asked for with the borrower key', async () => {
		const from = sandbox.requests.length;
		const offers = answerOf(await client.callTool({ name: 'Get_many_loan_offers', arguments: {} }));
		const [asked] = apiRequests(sandbox.requests, from, '/api/offers');
		expect(asked.headers['x-api-key']).toBe(sandbox.keys.borrower);
		// The same question put to the sandbox directly.
		const direct = (await (
			await fetch(`${sandbox.url}/api/offers?${new URLSearchParams(asked.query)}`, {
				headers: { 'x-api-key': sandbox.keys.borrower },
			})
		).json()) as Json[];
		expect(offers.map((offer: Json) => offer.id)).toEqual(direct.map((offer) => offer.id));
		expect(offers.length).toBeGreaterThan(0);
		expect(JSON.stringify(offers)).not.toContain(sandbox.keys.borrower);
	});

	test('Get contract events: the events of the borrower’s contracts in the sandbox', async () => {
		const from = sandbox.requests.length;
		const events = answerOf(await client.callTool({ name: 'Get_contract_events', arguments: {} }));
		const asked = apiRequests(sandbox.requests, from, '/api/contracts');
		expect(asked.length).toBeGreaterThan(0);
		for (const request of asked) expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
		const requested = events.find(
			(event: Json) =>
				event.event === 'contractStatusChanged' &&
				event.contract_id === SEED_IDS.contracts.requested,
		);
		expect(requested).toMatchObject({
			status: 'Requested',
			event_key: expect.stringMatching(`^${SEED_IDS.contracts.requested}:Requested:`),
		});
		const held = (sandbox.state.contractsByOwner.get(SEED_IDS.users.borrower) ?? []).map(
			(entry) => entry.contract.id,
		);
		for (const event of events) expect(held).toContain(event.contract_id);
	});

	test('Get collateral health: the contract ID the client passes reaches Lendasat', async () => {
		const from = sandbox.requests.length;
		const contractId = SEED_IDS.contracts.principalGiven;
		const [health] = answerOf(
			await client.callTool({ name: 'Get_collateral_health', arguments: { contractId } }),
		);
		expect(health).toMatchObject({ contract_id: contractId, status: 'PrincipalGiven' });
		expect(health.ltv).toBeGreaterThan(0);
		expect(apiRequests(sandbox.requests, from, `/api/contracts/${contractId}`)).toHaveLength(1);
	});
});

describe(`n8n ${wantedVersion()}: a write added as docs/ai-agents.md describes waits for a person in Telegram`, () => {
	const contractId = SEED_IDS.contracts.requested;
	let telegram: Receiver;
	let writer: Client;
	let cancelWorkflowId: string;
	let mcpWorkflowId: string;

	beforeAll(async () => {
		telegram = await startReceiver();
		const telegramCredential = { name: 'Telegram bot' };
		const { id: telegramId } = await server.rest('POST', '/credentials', {
			...telegramCredential,
			type: 'telegramApi',
			data: { accessToken: '123456:e2e-stand-in', baseUrl: telegram.url },
		});
		// n8n 2.x runs only published sub-workflows; 1.x runs them as they are.
		const publishSubWorkflows = selectedN8n().line === '2.x';
		cancelWorkflowId = await create(
			cancelAfterApproval({
				lendasat: lendasatCredential,
				telegram: { id: telegramId, ...telegramCredential },
			}),
			publishSubWorkflows,
		);
		const askId = await create(askForApproval(cancelWorkflowId), publishSubWorkflows);
		// The template's server with the write added, on a path of its own next to the first.
		const twin = withReviewedCancel(
			twinWith(twinCredentials, 'e2e: MCP server with a reviewed write'),
			askId,
		);
		triggerOf(twin).parameters.path = 'lendasat-with-write';
		triggerOf(twin).webhookId = '3c9e5000-0000-4000-8000-0000000000f2';
		mcpWorkflowId = await create(twin, true);
		const url = `${server.url}/mcp/lendasat-with-write`;
		await registered(url);
		writer = await connect(url);
	}, 120_000);

	afterAll(async () => {
		await writer?.close();
		await telegram?.close();
	});

	/** Asks for the cancel; returns once the approval waits in Telegram, with its message. */
	async function askToCancel(): Promise<{ from: number; message: Json; executionId: string }> {
		const from = sandbox.requests.length;
		const fromTelegram = telegram.received.length;
		const answer = answerOf(
			await writer.callTool({ name: 'Cancel_a_contract_request', arguments: { contractId } }),
		);
		expect(answer).toEqual([{ status: SENT_FOR_APPROVAL }]);
		const message = await waitFor(
			() => telegram.received[fromTelegram],
			60_000,
			'the approval request in Telegram',
		);
		expect(message.path).toBe('/bot123456:e2e-stand-in/sendMessage');
		expect(message.body.text).toContain(contractId);
		const waiting = await waitFor(
			async () =>
				(await server.executions(cancelWorkflowId)).find(
					(execution) => execution.status === 'waiting',
				),
			60_000,
			'the approval workflow to wait',
		);
		expect(apiRequests(sandbox.requests, from)).toEqual([]);
		return { from, message: message.body, executionId: String(waiting.id) };
	}

	/** Opens the message's button as a person's browser does; waits for the approval workflow to end. */
	async function decide(message: Json, executionId: string, button: string): Promise<void> {
		const buttons = message.reply_markup.inline_keyboard.flat() as Json[];
		const link = buttons.find((candidate) => String(candidate.text).includes(button))?.url;
		const response = await fetch(link, { headers: { 'user-agent': BROWSER_USER_AGENT } });
		expect(response.status).toBe(200);
		await waitFor(
			async () => {
				const { status } = await server.execution(executionId);
				return status === 'success' ? status : undefined;
			},
			60_000,
			`approval execution ${executionId} to finish`,
		);
	}

	test('the client lists the write with the description its tool node gives', async () => {
		const { tools } = await writer.listTools();
		const cancel = tools.find((tool) => tool.name === 'Cancel_a_contract_request');
		expect(cancel?.description).toMatch(/^Ask a person to approve cancelling a contract request/);
		expect(cancel?.inputSchema.required).toEqual(['contractId']);
	});

	test('Decline: the client was told it waits for approval; nothing reaches Lendasat', async () => {
		const { from, message, executionId } = await askToCancel();
		await decide(message, executionId, 'Decline');
		expect(apiRequests(sandbox.requests, from)).toEqual([]);
		expect(sandbox.state.contracts.get(contractId)?.contract.status).toBe('Requested');
	});

	test('Approve: exactly one request reaches Lendasat, and every MCP execution ended well', async () => {
		const { from, message, executionId } = await askToCancel();
		await decide(message, executionId, 'Approve');
		expect(
			apiRequests(sandbox.requests, from).map((request) => `${request.method} ${request.path}`),
		).toEqual([`DELETE /api/contracts/${contractId}`]);
		expect(sandbox.state.contracts.get(contractId)?.contract.status).toBe('Cancelled');
		const executions = await server.executions(mcpWorkflowId);
		expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
	});
});
