/**
 * A stand-in for OpenAI's chat completions API on 127.0.0.1, for n8n's OpenAI Chat Model node
 * (its credential's Base URL points here): it records what the model would be told — every request,
 * with its `tools` — and plays a fixed part: first it calls one tool, and once a tool's answer is in
 * the conversation it answers with a text naming how long that answer was.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Json } from '../../dev/n8n/n8n-env';

export interface FakeModel {
	/** The OpenAI base URL to put in the credential (…/v1). */
	url: string;
	/** The chat completion requests received, as sent. */
	requests: Json[];
	close(): Promise<void>;
}

/** One tool as OpenAI's API receives it: `{ type: 'function', function: { name, description, parameters } }`. */
export interface ToolOffered {
	name: string;
	description: string;
	parameters: Json;
}

/** The tools a request offered the model. */
export function toolsOffered(request: Json): ToolOffered[] {
	return ((request?.tools ?? []) as Json[]).map((tool) => tool.function as ToolOffered);
}

/** The model's turn: call `callTool` first; after a tool's answer, a text. */
function reply(request: Json, callTool: string): Json {
	const messages = (request.messages ?? []) as Json[];
	const toolAnswer = messages.find((message) => message.role === 'tool');
	const message = toolAnswer
		? {
				role: 'assistant',
				content: `The tool answered with ${String(toolAnswer.content).length} characters.`,
			}
		: {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: 'call_lendasat_1',
						type: 'function',
						function: { name: callTool, arguments: '{}' },
					},
				],
			};
	return {
		id: `chatcmpl-${messages.length}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
		choices: [
			{ index: 0, message, finish_reason: toolAnswer ? 'stop' : 'tool_calls', logprobs: null },
		],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

/** The same turn as server-sent events, for a client that asked for `stream: true`. */
function streamed(response: ServerResponse, completion: Json): void {
	const { message, finish_reason } = completion.choices[0];
	const delta = message.tool_calls
		? {
				role: 'assistant',
				tool_calls: message.tool_calls.map((call: Json, index: number) => ({ index, ...call })),
			}
		: { role: 'assistant', content: message.content };
	const chunk = (choice: Json) =>
		`data: ${JSON.stringify({ ...completion, object: 'chat.completion.chunk', choices: [choice] })}\n\n`;
	response.writeHead(200, { 'content-type': 'text/event-stream' });
	response.write(chunk({ index: 0, delta, finish_reason: null }));
	response.write(chunk({ index: 0, delta: {}, finish_reason }));
	response.end('data: [DONE]\n\n');
}

export function startFakeModel(callTool: string): Promise<FakeModel> {
	const requests: Json[] = [];
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		let raw = '';
		req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
		req.on('end', () => {
			if (req.method === 'GET' && req.url?.endsWith('/models')) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
				return;
			}
			if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
				return;
			}
			const request = JSON.parse(raw);
			requests.push(request);
			const completion = reply(request, callTool);
			if (request.stream) return streamed(res, completion);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(completion));
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			resolve({
				url: `http://127.0.0.1:${port}/v1`,
				requests,
				close: () => new Promise<void>((done) => server.close(() => done())),
			});
		}),
	);
}
