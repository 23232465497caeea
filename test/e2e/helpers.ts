/** Helpers for the end-to-end tests: reading n8n run data and the sandbox's recorded requests. */
import { createServer, type IncomingMessage } from 'node:http';
import type { Json, N8nServer } from '../../dev/n8n/n8n-env';
import type { RecordedRequest } from '../../dev/sandbox/server';

/** The JSON items a node produced in a run (`execute --rawOutput` or a REST execution's data). */
export function nodeOutput(run: Json, nodeName: string): Json[] {
	const runData = run?.data?.resultData?.runData ?? run?.resultData?.runData;
	const task = runData?.[nodeName]?.[0];
	if (!task)
		throw new Error(
			`node "${nodeName}" did not run; ran: ${Object.keys(runData ?? {}).join(', ')}`,
		);
	return (task.data?.main?.[0] ?? []).map((item: Json) => item.json);
}

/** The error n8n recorded for a run, if any. */
export function runError(run: Json): Json {
	return run?.data?.resultData?.error ?? run?.resultData?.error;
}

/** API requests (not /__admin) the sandbox received since index `from`, optionally one path only. */
export function apiRequests(
	requests: RecordedRequest[],
	from = 0,
	path?: string,
): RecordedRequest[] {
	return requests
		.slice(from)
		.filter((request) => request.path.startsWith('/api/') && (!path || request.path === path));
}

export interface Receiver {
	url: string;
	/** What it received, in order, including the requests it failed. */
	received: { method: string; path: string; body: Json; answered: ReceiverAnswer }[];
	/**
	 * From now on, answers requests to `path` with `answer`: a status (500), or `hang`: no answer
	 * at all, the connection closed after a minute; `ok` again with 200.
	 */
	answer(path: string, answer: ReceiverAnswer): void;
	close(): Promise<void>;
}

/** How the receiver answers a path: 200 (`ok`), another status, or not at all (`hang`). */
export type ReceiverAnswer = 'ok' | 'hang' | number;

/** A tiny HTTP server on 127.0.0.1 that records JSON posts (stands in for a chat webhook). */
export function startReceiver(): Promise<Receiver> {
	const received: Receiver['received'] = [];
	const answers = new Map<string, ReceiverAnswer>();
	const server = createServer((req: IncomingMessage, res) => {
		let raw = '';
		req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
		req.on('end', () => {
			let body: Json = raw;
			try {
				body = JSON.parse(raw);
			} catch {
				// keep the text
			}
			const path = req.url ?? '';
			const answered = answers.get(path) ?? 'ok';
			received.push({ method: req.method ?? '', path, body, answered });
			if (answered === 'hang') {
				setTimeout(() => res.destroy(), 60_000).unref();
				return;
			}
			const status = answered === 'ok' ? 200 : answered;
			res
				.writeHead(status, { 'content-type': 'application/json' })
				.end(status < 300 ? '{"ok":true}' : '{"error":"webhook unavailable"}');
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			resolve({
				url: `http://127.0.0.1:${port}`,
				received,
				answer: (path, answer) => answers.set(path, answer),
				close: () =>
					new Promise<void>((done) => {
						server.closeAllConnections();
						server.close(() => done());
					}),
			});
		}),
	);
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(
	check: () => Promise<T> | T,
	timeoutMs: number,
	what: string,
): Promise<NonNullable<T>> {
	const started = Date.now();
	for (;;) {
		const value = await check();
		if (value) return value as NonNullable<T>;
		if (Date.now() - started > timeoutMs)
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/**
 * Waits until n8n serves a published workflow's webhook at `url`: anything but 404. n8n 2.x
 * registers the webhooks of a workflow it publishes asynchronously (its publication outbox, polled
 * every 15 s), so a finished POST …/activate can come before the URL exists. The request need not
 * be one the webhook accepts (a refusal such as 401 proves it registered).
 */
export async function waitUntilRegistered(url: string, init: RequestInit): Promise<void> {
	await waitFor(
		async () => {
			const response = await fetch(url, init);
			await response.text();
			return response.status !== 404;
		},
		90_000,
		`n8n to register ${url}`,
	);
}

/**
 * Whether this is a CI run: the CI variable set to anything but '', 'false' or '0'. GitHub Actions and
 * most CI services set CI=true. ci-info (Jest's --ci default) reads CI alike, but also counts '0' and
 * looks at vendor variables (BUILD_ID and the like); here only CI decides, so that unsetting it (or
 * CI=0) is how a developer gets the skip. .ci/run reads it the same way.
 */
export function underCI(): boolean {
	const ci = process.env.CI;
	return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * A suite that needs a service this machine may lack: `missing` names what is missing and how to
 * install it, or is undefined. Outside CI the suite is skipped, and one line says why. Under CI a
 * missing service fails the run: the suite is then one test that fails naming it.
 */
export function describeNeeding(
	name: string,
	missing: string | undefined,
	suite: () => void,
): void {
	if (!missing) {
		describe(name, suite);
	} else if (!underCI()) {
		process.stdout.write(`${name}: skipped, this machine lacks ${missing}\n`);
		describe.skip(name, suite);
	} else {
		describe(name, () =>
			test(`has what it needs (CI=${process.env.CI})`, () => {
				throw new Error(
					`${name} cannot run: this machine lacks ${missing}. Under CI a missing service fails the run; install it (.ci/run does, with apt-get).`,
				);
			}),
		);
	}
}

/** What a Lendasat credential for a server on 127.0.0.1 holds, besides its environment. */
export interface LendasatCredentialData {
	baseUrl: string;
	keyType: 'borrower' | 'master';
	apiKey: string;
	sealingSecret?: string;
}

/** Saves a Lendasat credential through n8n's REST API, as the editor does: its reference for a node. */
export async function saveLendasatCredential(
	n8n: Pick<N8nServer, 'rest'>,
	name: string,
	data: LendasatCredentialData,
): Promise<{ id: string; name: string }> {
	const { id } = await n8n.rest('POST', '/credentials', {
		name,
		type: 'lendasatApi',
		data: { environment: 'custom', ...data },
	});
	return { id, name };
}

/** Turns a workflow off, on n8n 2.x (POST …/deactivate) and 1.x (PATCH active: false). */
export async function deactivate(
	server: Pick<N8nServer, 'url' | 'rest' | 'cookie'>,
	workflowId: string,
): Promise<void> {
	const { versionId } = await server.rest('GET', `/workflows/${workflowId}`);
	const deactivated = await fetch(`${server.url}/rest/workflows/${workflowId}/deactivate`, {
		method: 'POST',
		headers: { cookie: server.cookie, 'content-type': 'application/json' },
		body: JSON.stringify({ versionId }),
	});
	if (deactivated.status === 404)
		await server.rest('PATCH', `/workflows/${workflowId}`, { active: false, versionId });
}
