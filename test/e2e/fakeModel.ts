/**
 * A stand-in for OpenAI's chat completions API on 127.0.0.1, for n8n's OpenAI Chat Model node
 * (its credential's Base URL points here): it records what the model would be told — every request,
 * with its `tools` — and plays a script of tool calls: its turn after N tool answers in the
 * conversation is the script's call N, and past the script a text naming how long the last tool
 * answer was. Given a tool's name, the script is that one call with no arguments.
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

/**
 * One call of the script, with the arguments as the model sends them. A tool behind n8n's human
 * review takes `{ toolParameters: <the tool's own arguments>, hitlParameters: {} }`.
 */
export interface ScriptedCall {
	name: string;
	arguments: Json;
}

/** The tools a request offered the model. */
export function toolsOffered(request: Json): ToolOffered[] {
	return ((request?.tools ?? []) as Json[]).map((tool) => tool.function as ToolOffered);
}

/** The model's turn: the script's next call, or once the script is played, a text. */
function reply(request: Json, script: ScriptedCall[]): Json {
	const messages = (request.messages ?? []) as Json[];
	const toolAnswers = messages.filter((message) => message.role === 'tool');
	const next = script[toolAnswers.length];
	const message = next
		? {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: `call_lendasat_${toolAnswers.length + 1}`,
						type: 'function',
						function: { name: next.name, arguments: JSON.stringify(next.arguments) },
					},
				],
			}
		: {
				role: 'assistant',
				content: `The tool answered with ${String(toolAnswers[toolAnswers.length - 1]?.content ?? '').length} characters.`,
			};
	return {
		id: `chatcmpl-${messages.length}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model,
		choices: [{ index: 0, message, finish_reason: next ? 'tool_calls' : 'stop', logprobs: null }],
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

export function startFakeModel(script: string | ScriptedCall[]): Promise<FakeModel> {
	const calls = typeof script === 'string' ? [{ name: script, arguments: {} }] : script;
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
			const completion = reply(request, calls);
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
