/**
 * A second origin for redirect tests: a tiny HTTP server on 127.0.0.1 that records every request it
 * receives (method, path, query, headers, body) and answers each with one fixed answer, so a test
 * can assert that a client never followed a redirect with its API key.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { URL } from 'node:url';

export interface TargetRequest {
	method: string;
	/** Path without the query string. */
	path: string;
	/** The request target as received (path and query string). */
	url: string;
	query: Record<string, string>;
	/** Header names in lower case; repeated headers joined with ', '. */
	headers: Record<string, string>;
	rawBody: string;
	at: number;
}

export interface RedirectTargetOptions {
	/** Status of every answer. Default 200. */
	status?: number;
	/** Body of every answer. Default `{"target":true}`. */
	body?: string;
	/** Headers of every answer. Default `content-type: application/json`. */
	headers?: Record<string, string>;
}

export interface RedirectTarget {
	/** Origin, e.g. `http://127.0.0.1:40123` (no trailing slash). */
	url: string;
	/** Every request received, in order (the x-api-key header is kept verbatim). */
	readonly requests: TargetRequest[];
	/** True when `text` occurs in any received request's target, header name or value, or body. */
	sawText(text: string): boolean;
	/** Forgets the recorded requests. */
	reset(): void;
	/** Stops listening and drops open connections. */
	close(): Promise<void>;
}

function headersOf(req: IncomingMessage): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(req.headers)) {
		if (value !== undefined)
			headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
	}
	return headers;
}

export async function startRedirectTarget(
	options: RedirectTargetOptions = {},
): Promise<RedirectTarget> {
	const requests: TargetRequest[] = [];
	const sockets = new Set<Socket>();
	const body = options.body ?? '{"target":true}';
	const headers = options.headers ?? { 'content-type': 'application/json' };
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			requests.push({
				method: (req.method ?? 'GET').toUpperCase(),
				path: url.pathname,
				url: req.url ?? '/',
				query: Object.fromEntries(url.searchParams),
				headers: headersOf(req),
				rawBody: Buffer.concat(chunks).toString('utf8'),
				at: Date.now(),
			});
			res.writeHead(options.status ?? 200, {
				...headers,
				'content-length': Buffer.byteLength(body),
			});
			res.end(body);
		});
	});
	server.keepAliveTimeout = 1000;
	server.on('connection', (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const address = server.address();
	if (address === null || typeof address === 'string')
		throw new Error('redirect target: no TCP address');
	return {
		url: `http://127.0.0.1:${address.port}`,
		requests,
		sawText: (text) =>
			text !== '' &&
			requests.some(
				(request) =>
					request.url.includes(text) ||
					request.rawBody.includes(text) ||
					Object.entries(request.headers).some(
						([name, value]) => name.includes(text) || value.includes(text),
					),
			),
		reset: () => {
			requests.length = 0;
		},
		close: async () => {
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			for (const socket of sockets) socket.destroy();
			await closed;
		},
	};
}
