/**
 * The side of n8n's hosted chat page in one conversation, for a test: the POST that starts a run of
 * a Chat Trigger in "Using Response Nodes" mode, the WebSocket on which n8n pushes what the run
 * sends to the chat (a reply, a review message with Approve and Decline links), and the links
 * opened as a person's browser opens them. Needs a global WebSocket (Node 22 or newer; the
 * project's Node 24 runs the e2e suites).
 */
import type { Json, N8nServer } from '../../dev/n8n/n8n-env';
import { waitFor } from './helpers';

/**
 * A browser's User-Agent. n8n answers a resume link fetched by anything that looks like a bot
 * (Node's fetch says "node", curl says "curl") with an empty 200 and resumes nothing: a link
 * preview in Slack or a mail client must not approve.
 */
export const BROWSER_USER_AGENT =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

/** A message n8n pushed with buttons: the review of a tool call. */
export interface ReviewMessage {
	type: 'with-buttons';
	text: string;
	buttons: { text: string; link: string; type: string }[];
}

export interface Chat {
	executionId: string;
	/** Every message n8n pushed, in order (heartbeats answered and left out). */
	received: string[];
	/** Waits for a pushed message that passes `test`. */
	message(test: (message: string) => boolean, what: string): Promise<string>;
	/** Waits for the review message of a tool call. */
	review(): Promise<ReviewMessage>;
	/** Types a message into the chat, as the page does while a run waits. */
	say(text: string): void;
	close(): void;
}

/** How long a step may take: n8n looks for news of a waiting run every 3 s, on a busy machine. */
const STEP_MS = 60_000;

/**
 * Starts a conversation: POST `chatInput` to the Chat Trigger's webhook (with `headers`, e.g. the
 * cookie of a signed-in n8n user), then opens the WebSocket with the run's resume token. n8n sends
 * `n8n|heartbeat` and cancels the run when it goes 60 s without `n8n|heartbeat-ack`.
 */
export async function startChat(
	server: N8nServer,
	webhookId: string,
	chatInput: string,
	headers: Record<string, string> = {},
): Promise<Chat> {
	const sessionId = `e2e-${Math.random().toString(36).slice(2)}`;
	const response = await fetch(`${server.url}/webhook/${webhookId}/chat`, {
		method: 'POST',
		headers: { ...headers, 'content-type': 'application/json' },
		body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput }),
	});
	const started = (await response.json()) as Json;
	if (!started.executionStarted)
		throw new Error(
			`the chat did not start a run: HTTP ${response.status} ${JSON.stringify(started)}`,
		);
	const query = new URLSearchParams({
		sessionId,
		executionId: String(started.executionId),
		isPublic: 'true',
		token: started.resumeToken ?? '',
	});
	const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/chat?${query}`);
	const received: string[] = [];
	socket.onmessage = (event) => {
		const data = String(event.data);
		if (data === 'n8n|heartbeat') socket.send('n8n|heartbeat-ack');
		else received.push(data);
	};
	await new Promise((resolve, reject) => {
		socket.onopen = resolve;
		socket.onerror = () => reject(new Error('the chat WebSocket did not open'));
	});
	const message = (test: (message: string) => boolean, what: string) =>
		waitFor(() => received.find(test), STEP_MS, `${what} in the chat (got ${received.length})`);
	return {
		executionId: String(started.executionId),
		received,
		message,
		review: async () =>
			JSON.parse(
				await message((text) => text.includes('"with-buttons"'), 'the review message'),
			) as ReviewMessage,
		say: (text) =>
			socket.send(JSON.stringify({ action: 'sendMessage', sessionId, chatInput: text })),
		close: () => socket.close(),
	};
}

/** Opens a review button's link as a person's browser does; returns the HTTP status. */
export async function click(review: ReviewMessage, button: string): Promise<number> {
	const found = review.buttons.find((candidate) => candidate.text === button);
	if (!found) throw new Error(`no "${button}" button in ${JSON.stringify(review.buttons)}`);
	const response = await fetch(found.link, { headers: { 'user-agent': BROWSER_USER_AGENT } });
	await response.text();
	return response.status;
}

/** Waits until the execution's status is one of `statuses`; returns the execution with its data. */
export async function executionIn(
	server: N8nServer,
	executionId: string,
	statuses: string[],
): Promise<Json> {
	return waitFor(
		async () => {
			const execution = await server.execution(executionId);
			return statuses.includes(execution.status) ? execution : undefined;
		},
		STEP_MS,
		`execution ${executionId} to be ${statuses.join(' or ')}`,
	);
}
