/**
 * The MCP server template (templates/mcp-server-read-only.json) on a real n8n, 2.x and 1.x
 * (jest.e2e-n8n1.config.js): published with its bearer token and Lendasat credential set, reached by
 * the official MCP SDK's client over Streamable HTTP, as Claude Desktop or any MCP client reaches
 * it. The client lists the tools and calls three of them; the sandbox answers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { wantedVersion } from '../../dev/n8n/ensure-n8n';
import { createN8nHome, type Json, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { lendasatToolsOf, MCP_TEMPLATE_FILE, readTemplate, toolName } from '../helpers/templates';
import { apiRequests, waitUntilRegistered } from './helpers';

const TEMPLATE = readTemplate(MCP_TEMPLATE_FILE);
const TOKEN = 'e2e-mcp-token-0123456789abcdef0123456789abcdef';

/** The placeholders of the credentials the template's sticky notes ask the user to choose. */
const PLACEHOLDERS = {
	lendasat: 'YOUR_LENDASAT_CREDENTIAL',
	bearer: 'YOUR_MCP_BEARER_CREDENTIAL',
};

const lendasatTools = lendasatToolsOf(TEMPLATE);

/** The template as a user sets it up: its two credentials chosen. */
function templateTwin(credentials: { lendasat: Json; bearer: Json }): Json {
	const twin = JSON.parse(JSON.stringify(TEMPLATE));
	for (const node of twin.nodes as Json[]) {
		if (node.credentials?.lendasatApi?.id === PLACEHOLDERS.lendasat)
			node.credentials.lendasatApi = credentials.lendasat;
		if (node.credentials?.httpBearerAuth?.id === PLACEHOLDERS.bearer)
			node.credentials.httpBearerAuth = credentials.bearer;
	}
	delete twin.id;
	twin.name = 'e2e: MCP server with read-only tools (template twin)';
	return twin;
}

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

beforeAll(async () => {
	sandbox = await startSandbox();
	home = createN8nHome();
	server = await home.start();
	await server.setupOwner();
	const lendasat = { name: 'Lendasat borrower key' };
	const { id: lendasatId } = await server.rest('POST', '/credentials', {
		...lendasat,
		type: 'lendasatApi',
		data: {
			environment: 'custom',
			baseUrl: sandbox.url,
			keyType: 'borrower',
			apiKey: sandbox.keys.borrower,
		},
	});
	const bearer = { name: 'MCP bearer token' };
	const { id: bearerId } = await server.rest('POST', '/credentials', {
		...bearer,
		type: 'httpBearerAuth',
		data: { token: TOKEN },
	});
	const twin = templateTwin({
		lendasat: { id: lendasatId, ...lendasat },
		bearer: { id: bearerId, ...bearer },
	});
	// n8n 1.x needs `active` in the body; 2.x ignores it.
	const { id } = await server.rest('POST', '/workflows', { ...twin, active: false });
	await server.activate(id);
	const trigger = twin.nodes.find(
		(node: Json) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger',
	);
	mcpUrl = `${server.url}/mcp/${trigger.parameters.path}`;
	await waitUntilRegistered(mcpUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
	});
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
		client = new Client({ name: 'lendasat-e2e', version: '1.0.0' });
		await client.connect(
			new StreamableHTTPClientTransport(new URL(mcpUrl), {
				requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
			}),
		);
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
