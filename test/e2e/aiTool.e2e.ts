/**
 * What an AI Agent's model is told about the node, in a real n8n (2.x, and 1.x under
 * jest.e2e-n8n1.config.js): the tool type n8n makes of the node, the Description each operation
 * brings, and the tool descriptions n8n really sends to the model — an AI Agent with n8n's OpenAI
 * Chat Model, whose Base URL points at a stand-in model on 127.0.0.1 (fakeModel.ts) that records
 * the request and calls one of our tools, which then runs against the sandbox.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { createN8nHome, type Json, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import { selectedN8n, wantedVersion } from '../../dev/n8n/ensure-n8n';
import { DEMO_CREDENTIALS, demoCredentials } from '../../dev/demo/demo';
import { operationMetaOf } from '../../nodes/LendasatBorrower/transport/apiRoute';
import { operations } from '../helpers/aiTool';
import { apiRequests, nodeOutput } from './helpers';
import { startFakeModel, toolsOffered, type FakeModel } from './fakeModel';

const ACTION_TYPE = 'n8n-nodes-lendasat.lendasatBorrower';
const TOOL_TYPE = 'n8n-nodes-lendasat.lendasatBorrowerTool';
const AGENT_WORKFLOW = 'lsE2eAiAgentTool';
const OPENAI_CREDENTIAL = { id: 'e2eFakeOpenAi001', name: 'Stand-in model' };
/** What the user wrote into one tool's Description: the model must read it instead of ours. */
const OWN_DESCRIPTION =
	'Look up one of my Lendasat contracts by its ID. Never use it for anything else.';

/** The operations of the node as the package declares them, with the text the model should read. */
const declared = operations.map(({ resource, operation, option }) => ({
	resource,
	operation,
	text: String(operationMetaOf(option.routing)?.toolDescription),
}));
const textOf = (resource: string, operation: string): string =>
	declared.find((entry) => entry.resource === resource && entry.operation === operation)
		?.text as string;

function toolNode(name: string, parameters: Json, position: [number, number]): Json {
	return {
		id: `e2e0a1a1-0000-4000-8000-00000000000${position[0] / 200}`,
		name,
		type: TOOL_TYPE,
		typeVersion: 1.1,
		position,
		parameters,
		credentials: { lendasatApi: DEMO_CREDENTIALS.borrower },
	};
}

/**
 * Manual trigger → AI Agent, with n8n's OpenAI Chat Model (chat completions, the stand-in's URL) and
 * Lendasat tools saved as the editor saves them: two with their Description left as it came (the
 * editor leaves a default out of the saved parameters), one with the user's own (saved, as 0.1.0
 * did, with n8n's switch on "Set Manually"), and one saved with the switch on "Set Automatically".
 */
function agentWorkflow(): Json {
	const tools = [
		toolNode('Get many loan offers', { resource: 'offer', operation: 'getAll' }, [200, 300]),
		toolNode('Create a contract', { resource: 'contract', operation: 'create' }, [400, 300]),
		toolNode(
			'Get a contract',
			{
				resource: 'contract',
				operation: 'get',
				// As n8n's switch saved it in 0.1.0; the same text is now the node's own Description.
				descriptionType: 'manual',
				toolDescription: OWN_DESCRIPTION,
			},
			[600, 300],
		),
		// Saved while the package still had n8n's "Set Automatically" switch (0.1.0).
		toolNode(
			'Get many contracts',
			{ resource: 'contract', operation: 'getAll', descriptionType: 'auto' },
			[800, 300],
		),
	];
	const toAgent = (type: string) => [[{ node: 'AI Agent', type, index: 0 }]];
	return {
		id: AGENT_WORKFLOW,
		name: 'e2e: an AI Agent with Lendasat tools',
		nodes: [
			{
				id: 'e2e0a1a1-0000-4000-8000-0000000000a1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'e2e0a1a1-0000-4000-8000-0000000000a2',
				name: 'AI Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: 2.2,
				position: [300, 0],
				parameters: {
					promptType: 'define',
					text: 'Which loan offers are there?',
					options: {},
				},
			},
			{
				id: 'e2e0a1a1-0000-4000-8000-0000000000a3',
				name: 'Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.2,
				position: [0, 300],
				parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} },
				credentials: { openAiApi: OPENAI_CREDENTIAL },
			},
			...tools,
		],
		connections: {
			Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			Model: { ai_languageModel: toAgent('ai_languageModel') },
			...Object.fromEntries(tools.map((tool) => [tool.name, { ai_tool: toAgent('ai_tool') }])),
		},
		settings: { executionOrder: 'v1' },
	};
}

let sandbox: Sandbox;
let model: FakeModel;
let home: N8nHome;

beforeAll(async () => {
	sandbox = await startSandbox();
	model = await startFakeModel('Get_many_loan_offers');
	home = createN8nHome();
	await home.importCredentials([
		...demoCredentials(sandbox.url, sandbox.keys),
		{ ...OPENAI_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'sk-stand-in', url: model.url } },
	]);
	await home.importWorkflow(agentWorkflow());
});

afterAll(async () => {
	await sandbox?.close();
	await model?.close();
	home?.remove();
});

describe(`an AI Agent in n8n ${wantedVersion()} uses the node as a tool`, () => {
	let run: Json;
	let firstRequest: Json;

	beforeAll(async () => {
		const from = sandbox.requests.length;
		const result = await home.execute(AGENT_WORKFLOW);
		if (result.code !== 0)
			throw new Error(`the agent run failed:\n${(result.stdout + result.stderr).slice(-3000)}`);
		run = { ...result, from };
		firstRequest = model.requests[0];
	});

	test('the model is told each tool’s detailed description; a Description the user wrote wins; a node saved with n8n’s switch gets the detailed text too', () => {
		const offered = Object.fromEntries(
			toolsOffered(firstRequest).map((tool) => [tool.name, tool.description]),
		);
		expect(offered).toEqual({
			Get_many_loan_offers: textOf('offer', 'getAll'),
			Create_a_contract: textOf('contract', 'create'),
			Get_a_contract: OWN_DESCRIPTION,
			Get_many_contracts: textOf('contract', 'getAll'),
		});
		// Not n8n's automatic one-liner ("Create a contract in Lendasat Borrower").
		expect(offered.Create_a_contract).toMatch(/borrows money.*lock Bitcoin collateral/);
		process.stdout.write(
			`n8n ${wantedVersion()} told the model:\n${JSON.stringify(toolsOffered(firstRequest), null, 2)}\n`,
		);
	});

	test('the tool the model called ran against the API with the borrower key, and the agent answered', () => {
		const [list] = apiRequests(sandbox.requests, run.from, '/api/offers');
		expect(list).toMatchObject({ method: 'GET' });
		expect(list.headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect(model.requests).toHaveLength(2);
		const toolAnswer = model.requests[1].messages.find((message: Json) => message.role === 'tool');
		expect(toolAnswer.content).toContain('loan_amount_min');
		expect(String(toolAnswer.content)).not.toContain(sandbox.keys.borrower);
		const [answer] = nodeOutput(run.data, 'AI Agent');
		expect(answer.output).toMatch(/^The tool answered with \d+ characters\.$/);
	});
});

describe(`the node types a running n8n ${wantedVersion()} serves to its editor`, () => {
	let server: N8nServer;
	let types: INodeTypeDescription[];
	/** n8n's own n8n-workflow, as installed with this n8n. */
	let n8nWorkflow: Json;

	const typeNamed = (name: string): INodeTypeDescription => {
		const found = types.filter((type) => type.name === name);
		expect(found).toHaveLength(1);
		return found[0];
	};
	/** The parameters the editor shows for a node of this type with these values (n8n's own rule). */
	const shown = (type: INodeTypeDescription, parameters: Json): Json =>
		n8nWorkflow.NodeHelpers.getNodeParameters(
			type.properties,
			parameters,
			true,
			false,
			{ name: 'Lendasat', type: type.name, typeVersion: 1.1, parameters },
			type,
		);

	beforeAll(async () => {
		server = await home.start();
		await server.setupOwner();
		const response = await fetch(`${server.url}/types/nodes.json`, {
			headers: { cookie: server.cookie },
		});
		expect(response.status).toBe(200);
		types = (await response.json()) as INodeTypeDescription[];
		const n8nPackage = join(selectedN8n().dir, 'node_modules', 'n8n', 'package.json');
		n8nWorkflow = createRequire(n8nPackage)('n8n-workflow');
	});

	afterAll(async () => {
		await server?.stop();
	});

	test('the tool type exists, with a Description per operation shown only on the tool, and no n8n switch', () => {
		const tool = typeNamed(TOOL_TYPE);
		const descriptions = tool.properties.filter(
			(property: INodeProperties) => property.name === 'toolDescription',
		);
		expect(descriptions).toHaveLength(declared.length);
		for (const { resource, operation, text } of declared) {
			const matching = descriptions.filter(
				(property) =>
					(property.displayOptions?.show?.resource as string[]).includes(resource) &&
					(property.displayOptions?.show?.operation as string[]).includes(operation),
			);
			expect(matching).toHaveLength(1);
			expect(matching[0]).toMatchObject({ displayName: 'Description', default: text });
			expect(matching[0].displayOptions?.show?.['@tool']).toEqual([true]);
		}
		// convertNodeToAiTool adds its "Tool Description" switch only to nodes without toolDescription.
		expect(tool.properties.map((property) => property.name)).not.toContain('descriptionType');
	});

	test('a tool node gets its operation’s detailed text; the action node shows no Description field', () => {
		const tool = typeNamed(TOOL_TYPE);
		const action = typeNamed(ACTION_TYPE);
		for (const { resource, operation, text } of declared) {
			expect(shown(tool, { resource, operation }).toolDescription).toBe(text);
			expect(shown(action, { resource, operation })).not.toHaveProperty('toolDescription');
		}
		// n8n's own reading of a saved tool node, as createNodeAsTool calls it.
		const parameters = shown(tool, { resource: 'contract', operation: 'create' });
		const told = n8nWorkflow.NodeHelpers.getToolDescriptionForNode(
			{ name: 'Create a contract', type: TOOL_TYPE, typeVersion: 1.1, parameters },
			{ description: tool },
		);
		expect(told).toBe(textOf('contract', 'create'));
	});
});
