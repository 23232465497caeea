/**
 * The AI Agent template (templates/ai-agent-human-review.json) on a real n8n 2.x, published and
 * driven through its hosted chat as a signed-in user would: read-only Lendasat tools run freely,
 * every write waits for n8n's human review in the chat. Then the review moved to Telegram as
 * docs/ai-agents.md describes (a stand-in Telegram API on 127.0.0.1). n8n 1.x has no human review
 * of tool calls, so this file is not in jest.e2e-n8n1.config.js.
 *
 * The model is a stand-in (fakeModel.ts) behind the OpenAI credential's Base URL that plays a
 * script: read the loan offers, then cancel a contract request. The sandbox records every request.
 */
import { wantedVersion } from '../../dev/n8n/ensure-n8n';
import { createN8nHome, type Json, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import {
	AGENT_TEMPLATE_FILE,
	lendasatToolsOf,
	readTemplate,
	templateTwin,
	toolName,
} from '../helpers/templates';
import { startFakeModel, toolsOffered, type FakeModel } from './fakeModel';
import {
	apiRequests,
	saveLendasatCredential,
	startReceiver,
	waitFor,
	waitUntilRegistered,
	type Receiver,
} from './helpers';
import {
	BROWSER_USER_AGENT,
	click,
	executionIn,
	startChat,
	type Chat,
	type ReviewMessage,
} from './hostedChat';

const TEMPLATE = readTemplate(AGENT_TEMPLATE_FILE);
const REVIEW_NODE = 'Human review';
const CANCEL_NODE = 'Cancel a contract request';
const CONTRACT = SEED_IDS.contracts.requested;
const CHAT_TRIGGER = '@n8n/n8n-nodes-langchain.chatTrigger';

const lendasatTools = lendasatToolsOf(TEMPLATE);

/**
 * The template's twin with its two credentials chosen. The wallet and bank values of Create a
 * contract and Send bank details stay placeholders: the scenarios run neither tool.
 */
const twinWith = (lendasat: Json, openAi: Json, name: string): Json =>
	templateTwin(
		TEMPLATE,
		{ YOUR_LENDASAT_CREDENTIAL: lendasat, YOUR_OPENAI_CREDENTIAL: openAi },
		name,
	);

/** The stand-in model's script: read the offers, then cancel `contractId`. */
const readThenCancel = (contractId: string) => [
	{ name: 'Get_many_loan_offers', arguments: {} },
	// A tool behind the review takes its own arguments under toolParameters.
	{
		name: toolName(CANCEL_NODE),
		arguments: { toolParameters: { contractId }, hitlParameters: {} },
	},
];

let sandbox: Sandbox;
let model: FakeModel;
let home: N8nHome;
let server: N8nServer;
let lendasatCredential: Json;
let chatWebhookId: string;

/** An OpenAI credential whose Base URL is `model`'s. */
async function modelCredential(name: string, standIn: FakeModel): Promise<Json> {
	const { id } = await server.rest('POST', '/credentials', {
		name,
		type: 'openAiApi',
		data: { apiKey: 'sk-stand-in', url: standIn.url },
	});
	return { id, name };
}

/** Saves and publishes a twin, and waits until its chat answers; returns the chat's webhook ID. */
async function publish(twin: Json): Promise<string> {
	const { id } = await server.rest('POST', '/workflows', twin);
	await server.activate(id);
	const { webhookId } = twin.nodes.find((node: Json) => node.type === CHAT_TRIGGER);
	await waitUntilRegistered(`${server.url}/webhook/${webhookId}/chat`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
	});
	return webhookId;
}

beforeAll(async () => {
	sandbox = await startSandbox();
	model = await startFakeModel(readThenCancel(CONTRACT));
	home = createN8nHome();
	server = await home.start();
	await server.setupOwner();
	const lendasat = await saveLendasatCredential(server, 'Lendasat borrower key', {
		baseUrl: sandbox.url,
		keyType: 'borrower',
		apiKey: sandbox.keys.borrower,
	});
	lendasatCredential = lendasat;
	chatWebhookId = await publish(
		twinWith(
			lendasatCredential,
			await modelCredential('Stand-in model', model),
			'e2e: AI Agent with human review (template twin)',
		),
	);
}, 240_000);

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	await model?.close();
	home?.remove();
});

const signedIn = () => ({ cookie: server.cookie });
const apiCalls = (from: number) =>
	apiRequests(sandbox.requests, from).map((request) => `${request.method} ${request.path}`);
/** The tool answers in the model's last request: what the model was told. */
const lastToolAnswers = () =>
	(model.requests[model.requests.length - 1].messages as Json[])
		.filter((message) => message.role === 'tool')
		.map((message) => String(message.content));

test('the template file imports as it is, placeholders and all, with the n8n CLI', async () => {
	const imported = await home.cli(['import:workflow', `--input=${AGENT_TEMPLATE_FILE}`]);
	expect(imported.code).toBe(0);
	const { nodes } = await server.rest('GET', `/workflows/${TEMPLATE.id}`);
	expect(nodes).toHaveLength(TEMPLATE.nodes.length);
});

test('without an n8n login the chat starts nothing', async () => {
	const [fromSandbox, fromModel] = [sandbox.requests.length, model.requests.length];
	const response = await fetch(`${server.url}/webhook/${chatWebhookId}/chat`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ action: 'sendMessage', sessionId: 'stranger', chatInput: 'Hi' }),
	});
	expect(response.status).toBe(401);
	expect(apiCalls(fromSandbox)).toEqual([]);
	expect(model.requests).toHaveLength(fromModel);
});

describe(`n8n ${wantedVersion()}: a write the model asks for waits for a person in the chat`, () => {
	/** The first request n8n sent the model: the tools it was offered. */
	let firstRequest: Json;

	/** One conversation up to the review of the cancel: the read ran, the write did not. */
	async function untilReview(): Promise<{ chat: Chat; review: ReviewMessage; from: number }> {
		const from = sandbox.requests.length;
		const fromModel = model.requests.length;
		const chat = await startChat(
			server,
			chatWebhookId,
			`Which offers are there? Then cancel my contract request ${CONTRACT}.`,
			signedIn(),
		);
		const review = await chat.review();
		const execution = await executionIn(server, chat.executionId, ['waiting']);
		expect(execution.data.resultData.lastNodeExecuted).toBe(REVIEW_NODE);
		expect(review.text).toContain(toolName(CANCEL_NODE));
		expect(review.text).toContain(CONTRACT);
		expect(review.buttons.map((button) => button.text)).toEqual(['Approve', 'Decline']);
		// The read-only tool ran without a review; of the write, nothing reached Lendasat.
		expect(apiCalls(from)).toEqual(['GET /api/offers']);
		firstRequest ??= model.requests[fromModel];
		return { chat, review, from };
	}

	/** The run goes on to the chat's reply; returns the execution. */
	async function finished(chat: Chat): Promise<Json> {
		await chat.message((text) => text.startsWith('The tool answered with'), 'the reply');
		const execution = await executionIn(server, chat.executionId, ['success', 'error']);
		expect(execution.status).toBe('success');
		chat.close();
		return execution;
	}

	test('Decline: nothing reaches Lendasat, and the model is told the call was rejected', async () => {
		const { chat, review, from } = await untilReview();
		expect(await click(review, 'Decline')).toBe(200);
		await finished(chat);
		expect(apiCalls(from)).toEqual(['GET /api/offers']);
		expect(lastToolAnswers().at(-1)).toMatch(
			/^\[\{"output":"User rejected the tool call to Cancel a contract request \(id: call_lendasat_2\)\. STOP what you are doing/,
		);
		expect(sandbox.state.contracts.get(CONTRACT)?.contract.status).toBe('Requested');
	});

	test('the model was offered each tool with the package’s description, every write only through the review (its arguments under toolParameters)', () => {
		expect(firstRequest).toBeDefined(); // set by the first conversation above
		const offered = toolsOffered(firstRequest);
		expect(offered.map((tool) => tool.name).sort()).toEqual(
			lendasatTools.map((tool) => toolName(tool.name)).sort(),
		);
		for (const tool of lendasatTools) {
			const seen = offered.find((candidate) => candidate.name === toolName(tool.name)) as Json;
			expect(seen.description).toBe(tool.meta?.toolDescription);
			const gated = Object.keys(seen.parameters.properties ?? {}).includes('toolParameters');
			expect({ tool: tool.name, gated }).toEqual({ tool: tool.name, gated: tool.writes });
		}
		const gatedOperations = lendasatTools
			.filter((tool) => tool.writes)
			.map((tool) => tool.operation);
		expect(gatedOperations.sort()).toEqual(
			['broadcastClaim', 'cancel', 'create', 'extend', 'sendFiatDetails'].sort(),
		);
	});

	test('a message typed instead of a click refuses too, and the model reads it', async () => {
		const { chat, from } = await untilReview();
		chat.say('Not this one, I meant the other request.');
		await finished(chat);
		expect(apiCalls(from)).toEqual(['GET /api/offers']);
		expect(lastToolAnswers().at(-1)).toContain(
			'The user reviewed your planned tool call to Cancel a contract request (id: call_lendasat_2) and provided feedback: \\"Not this one, I meant the other request.\\"',
		);
		expect(sandbox.state.contracts.get(CONTRACT)?.contract.status).toBe('Requested');
	});

	test('Approve: exactly one request reaches Lendasat, and the model gets its answer; a link preview approves nothing', async () => {
		const { chat, review, from } = await untilReview();
		// A chat app's link preview fetches the link as a bot: n8n ignores it.
		const approve = review.buttons.find((button) => button.text === 'Approve')?.link as string;
		const preview = await fetch(approve);
		expect(preview.status).toBe(200);
		expect(await preview.text()).toBe('');
		expect((await server.execution(chat.executionId)).status).toBe('waiting');
		expect(apiCalls(from)).toEqual(['GET /api/offers']);

		expect(await click(review, 'Approve')).toBe(200);
		await finished(chat);
		expect(apiCalls(from)).toEqual(['GET /api/offers', `DELETE /api/contracts/${CONTRACT}`]);
		const [cancel] = apiRequests(sandbox.requests, from, `/api/contracts/${CONTRACT}`);
		expect(cancel.headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect(JSON.parse(lastToolAnswers().at(-1) as string)).toEqual([
			{ id: CONTRACT, cancelled: true },
		]);
		expect(sandbox.state.contracts.get(CONTRACT)?.contract.status).toBe('Cancelled');
		// The same link again, after the run: nothing more is sent.
		await click(review, 'Approve');
		expect(apiCalls(from)).toHaveLength(2);
	});
});

describe(`n8n ${wantedVersion()}: the review moved to Telegram as docs/ai-agents.md describes`, () => {
	const contractId = SEED_IDS.contracts.approved;
	let telegram: Receiver;
	let telegramModel: FakeModel;
	let webhookId: string;

	beforeAll(async () => {
		telegram = await startReceiver();
		telegramModel = await startFakeModel(readThenCancel(contractId));
		const bot = { name: 'Telegram bot' };
		const { id: botId } = await server.rest('POST', '/credentials', {
			...bot,
			type: 'telegramApi',
			data: { accessToken: '123456:e2e-stand-in', baseUrl: telegram.url },
		});
		const twin = twinWith(
			lendasatCredential,
			await modelCredential('Stand-in model (Telegram review)', telegramModel),
			'e2e: AI Agent with the review in Telegram',
		);
		// The Chat review node replaced by Telegram's, under the same name: the connections stay.
		const review = twin.nodes.find((node: Json) => node.name === REVIEW_NODE);
		Object.assign(review, {
			type: 'n8n-nodes-base.telegramHitlTool',
			typeVersion: 1.2,
			parameters: { chatId: '424242', ...review.parameters },
			credentials: { telegramApi: { id: botId, ...bot } },
		});
		twin.nodes.find((node: Json) => node.type === CHAT_TRIGGER).webhookId =
			'a9e47000-0000-4000-8000-0000000000c2';
		webhookId = await publish(twin);
	}, 120_000);

	afterAll(async () => {
		await telegram?.close();
		await telegramModel?.close();
	});

	test('the review arrives in Telegram; nothing reaches Lendasat before Approve, exactly one request after', async () => {
		const from = sandbox.requests.length;
		const chat = await startChat(server, webhookId, `Cancel ${contractId}, please.`, {
			cookie: server.cookie,
		});
		const message = await waitFor(
			() => telegram.received.find((request) => request.path.endsWith('/sendMessage')),
			60_000,
			'the review in Telegram',
		);
		expect(message.body.chat_id).toBe('424242');
		expect(message.body.text).toContain(contractId);
		await executionIn(server, chat.executionId, ['waiting']);
		expect(apiCalls(from)).toEqual(['GET /api/offers']);

		const buttons = message.body.reply_markup.inline_keyboard.flat() as Json[];
		const approve = buttons.find((button) => String(button.text).includes('Approve'))?.url;
		const clicked = await fetch(approve, { headers: { 'user-agent': BROWSER_USER_AGENT } });
		expect(clicked.status).toBe(200);
		await chat.message((text) => text.startsWith('The tool answered with'), 'the reply');
		expect((await executionIn(server, chat.executionId, ['success', 'error'])).status).toBe(
			'success',
		);
		chat.close();
		expect(apiCalls(from)).toEqual(['GET /api/offers', `DELETE /api/contracts/${contractId}`]);
		expect(sandbox.state.contracts.get(contractId)?.contract.status).toBe('Cancelled');
	});
});
