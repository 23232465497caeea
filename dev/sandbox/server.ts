/**
 * The Lendasat borrower API sandbox: a real HTTP server on 127.0.0.1 with the spec's endpoints, the
 * live backend's other borrower endpoints, two error dialects, rate limiting, idempotency keys,
 * fault injection and an admin surface.
 *
 * Request pipeline (everything after the body is read is synchronous, so counters, idempotency and
 * state changes are race-free): record → fault (unless `after`) → route → auth (401) → rate limit
 * (429) → Content-Type / JSON (400) → idempotency (spec dialect only) → handler → fault (`after`) → latency → answer.
 * 'trickle' and 'cut-body' without a fixed body always process first (they stream the real answer);
 * 'hang' answers nothing and leaves the socket to the client or close().
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { URL } from 'node:url';
import { adminRoutes, createAdmin, type AdminHost, type SandboxAdmin } from './admin';
import { defaultConfig, validateConfigPatch } from './config';
import { ApiError, SOMETHING_WENT_WRONG, asPlainText, unauthorized } from './errors';
import {
	CUT_BODY_STAND_IN,
	DEFAULT_SLOW_MS,
	DEFAULT_TRICKLE_MS,
	FaultInjector,
	faultOutcome,
	streamedOutcome,
	streamsRealAnswer,
} from './faults';
import { IdempotencyStore, stableStringify } from './idempotency';
import { errorOutcome, replyOutcome, type Outcome } from './outcome';
import { RateLimiter, retryAfterHeader } from './ratelimit';
import {
	Router,
	authOf,
	type AuthContext,
	type HandlerHooks,
	type RequestContext,
	type Route,
} from './router';
import { apiRoutes } from './routes';
import { DEFAULT_SEED, sandboxKeys, seedState } from './seed';
import type { SandboxState } from './state';
import { Counters } from './stats';
import type {
	Dialect,
	FaultRule,
	RecordedRequest,
	SandboxConfig,
	SandboxKeys,
	SandboxStats,
	SeedOptions,
} from './types';

export type * from './types';
export type {
	SandboxAdmin,
	AdminContractInput,
	AdminOfferInput,
	NotificationBatchInput,
	NotificationInput,
} from './admin';
export type { SandboxState } from './state';
export { SEED_IDS, DEFAULT_SEED } from './seed';
export {
	startRedirectTarget,
	type RedirectTarget,
	type RedirectTargetOptions,
	type TargetRequest,
} from './target';

export interface StartOptions extends Partial<SandboxConfig> {
	/** Port on 127.0.0.1; 0 (default) picks a free one. */
	port?: number;
	seed?: SeedOptions;
	/** Clock for every timestamp the sandbox writes (not for rate-limit windows). Default: real time. */
	now?: () => Date;
}

export interface Sandbox {
	url: string;
	keys: SandboxKeys;
	configure(patch: Partial<SandboxConfig>): void;
	reset(): void;
	requests: RecordedRequest[];
	stats(): SandboxStats;
	state: SandboxState;
	admin: SandboxAdmin;
	/** A copy of the current configuration. */
	readonly config: SandboxConfig;
	close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const JSON_CONTENT_TYPE = 'application/json';

function headerValue(req: IncomingMessage, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

function recordHeaders(req: IncomingMessage): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(req.headers)) {
		if (value !== undefined)
			headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
	}
	return headers;
}

function tryParseJson(raw: string): unknown {
	if (raw.trim() === '') return undefined;
	try {
		return JSON.parse(raw);
	} catch {
		return undefined;
	}
}

/** The body as text, or null when it is larger than MAX_BODY_BYTES. */
function readBody(req: IncomingMessage): Promise<string | null> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size <= MAX_BODY_BYTES) chunks.push(chunk);
		});
		req.on('end', () =>
			resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')),
		);
		req.on('error', reject);
	});
}

function parseJsonBody(req: IncomingMessage, raw: string): unknown {
	const type = (headerValue(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
	if (type !== JSON_CONTENT_TYPE) {
		throw new ApiError(
			400,
			'INVALID_CONTENT_TYPE',
			`Content-Type must be application/json, got ${type === '' ? 'none' : type.slice(0, 60)}`,
			{ status: 415, message: 'Expected request with `Content-Type: application/json`' },
		);
	}
	try {
		return JSON.parse(raw);
	} catch {
		const details =
			raw.trim() === ''
				? 'The request body is empty; a JSON object is expected'
				: 'The request body is not valid JSON';
		throw new ApiError(400, 'INVALID_JSON', details, {
			// serde_json's text for an empty body; other syntax errors are only approximated.
			message: `Failed to parse the request body as JSON: ${raw.trim() === '' ? `EOF while parsing a value at line ${raw.split('\n').length} column 0` : 'syntax error'}`,
		});
	}
}

function parseRouteBody(req: IncomingMessage, raw: string, route: Route): unknown {
	try {
		return parseJsonBody(req, raw);
	} catch (error) {
		if (!(error instanceof ApiError)) throw error;
		if (route.jsonRejection) throw route.jsonRejection(error);
		throw route.plainJsonRejections ? asPlainText(error) : error;
	}
}

function isAdminPath(path: string): boolean {
	return path === '/__admin' || path.startsWith('/__admin/');
}

function cloneConfig(config: SandboxConfig): SandboxConfig {
	return {
		...config,
		rateLimit: config.rateLimit ? { ...config.rateLimit } : null,
		faults: config.faults.map((rule) => ({ ...rule })),
	};
}

class SandboxServer implements AdminHost {
	config: SandboxConfig;
	private currentState: SandboxState;
	readonly recorded: RecordedRequest[] = [];
	readonly keys: SandboxKeys;
	readonly admin: SandboxAdmin;
	readonly server: Server;
	private readonly counters = new Counters();
	private readonly limiter = new RateLimiter();
	private readonly idempotencyStore = new IdempotencyStore();
	private readonly faults: FaultInjector;
	private readonly router = new Router(apiRoutes);
	private readonly adminRouter: Router;
	private readonly sockets = new Set<Socket>();
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly hooks: HandlerHooks;
	private closing = false;

	constructor(
		private readonly startConfig: SandboxConfig,
		private readonly seedOptions: SeedOptions,
		private readonly now: () => Date,
	) {
		const seed = seedOptions.seed ?? DEFAULT_SEED;
		this.config = cloneConfig(startConfig);
		this.currentState = seedState(seedOptions, now);
		this.keys = sandboxKeys(seed);
		this.faults = new FaultInjector(seed);
		this.faults.load(this.config.faults);
		this.hooks = {
			contractCreated: (apiKey, identity) => this.counters.contractCreated(apiKey, identity),
		};
		this.admin = createAdmin(this);
		this.adminRouter = new Router(adminRoutes(this.admin, this));
		this.server = createServer((req, res) => {
			this.onRequest(req, res).catch((error: unknown) => this.crash(res, error));
		});
		this.server.keepAliveTimeout = 5000;
		this.server.on('connection', (socket: Socket) => {
			this.sockets.add(socket);
			this.counters.connectionOpened();
			socket.on('close', () => {
				this.sockets.delete(socket);
				this.counters.connectionClosed();
			});
		});
	}

	state(): SandboxState {
		return this.currentState;
	}

	requests(): RecordedRequest[] {
		return this.recorded;
	}

	currentConfig(): SandboxConfig {
		return cloneConfig(this.config);
	}

	stats(): SandboxStats {
		return this.counters.snapshot();
	}

	clearStats(): void {
		this.counters.clear();
	}

	configure(patch: Partial<SandboxConfig>): void {
		validateConfigPatch(patch);
		this.config = cloneConfig({ ...this.config, ...patch });
		if (patch.faults !== undefined) this.faults.load(this.config.faults);
		if (patch.rateLimit !== undefined) this.limiter.clear();
	}

	reset(): void {
		this.currentState = seedState(this.seedOptions, this.now);
		this.recorded.length = 0;
		this.counters.clear();
		this.limiter.clear();
		this.idempotencyStore.clear();
		this.config = cloneConfig(this.startConfig);
		this.faults.load(this.config.faults);
	}

	async listen(port: number): Promise<string> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, '127.0.0.1', () => {
				this.server.off('error', reject);
				resolve();
			});
		});
		const address = this.server.address();
		if (address === null || typeof address === 'string') throw new Error('sandbox: no TCP address');
		return `http://127.0.0.1:${address.port}`;
	}

	async close(): Promise<void> {
		this.closing = true;
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.server.closeAllConnections();
		for (const socket of this.sockets) socket.destroy();
		await closed;
	}

	private delay(ms: number): Promise<void> {
		if (ms <= 0) return Promise.resolve();
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				resolve();
			}, ms);
			this.timers.add(timer);
		});
	}

	private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
		let clientGone = false;
		res.on('close', () => {
			clientGone = true;
		});
		const raw = await readBody(req);
		const method = (req.method ?? 'GET').toUpperCase();
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const query = Object.fromEntries(url.searchParams);
		if (isAdminPath(url.pathname)) {
			this.write(
				res,
				raw === null ? this.tooLarge('spec') : this.handleAdmin(method, url.pathname, query, raw),
			);
			return;
		}
		this.record(req, method, url.pathname, query, raw ?? '');
		this.counters.requestStarted();
		res.on('close', () => this.counters.requestEnded());
		const fault = this.faults.pick(method, url.pathname);
		if (fault) this.counters.faultInjected();
		// 'trickle' and 'cut-body' without a fixed body need the real answer: they always process first.
		const processFirst = fault !== null && (fault.after === true || streamsRealAnswer(fault));
		if (fault && !processFirst) {
			if (fault.kind !== 'slow') return this.answerFault(req, res, fault, null);
			await this.delay(fault.delayMs ?? DEFAULT_SLOW_MS);
			// The client gave up while the request was "in flight": like a dropped handler, nothing happens.
			if (clientGone) return;
		}
		const outcome =
			raw === null
				? this.tooLarge(this.config.dialect)
				: this.process(req, method, url.pathname, query, raw);
		if (fault && processFirst) {
			if (fault.kind === 'slow') await this.delay(fault.delayMs ?? DEFAULT_SLOW_MS);
			else return this.answerFault(req, res, fault, outcome);
		}
		return this.finish(res, outcome);
	}

	/** Answers with a fault instead of `real` (null: the request was not processed). */
	private async answerFault(
		req: IncomingMessage,
		res: ServerResponse,
		fault: FaultRule,
		real: Outcome | null,
	): Promise<void> {
		switch (fault.kind) {
			case 'reset':
				return this.finish(res, 'reset');
			case 'hang':
				// Accepted and never answered: the socket stays open until the client leaves or close().
				this.counters.answered('hang');
				return;
			case 'trickle':
				return this.trickle(res, streamedOutcome(fault, real), fault.delayMs ?? DEFAULT_TRICKLE_MS);
			case 'cut-body':
				return this.cutBody(res, streamedOutcome(fault, real));
			default:
				return this.finish(
					res,
					faultOutcome(fault, this.config.dialect, real, {
						url: req.url ?? '/',
						apiKey: headerValue(req, 'x-api-key') ?? '',
					}),
				);
		}
	}

	/** Headers (with the full Content-Length) at once, then one body byte every `delayMs`. */
	private async trickle(res: ServerResponse, outcome: Outcome, delayMs: number): Promise<void> {
		this.counters.answered(outcome.status);
		await this.delay(this.config.latencyMs);
		if (res.headersSent || res.destroyed) return;
		const body = Buffer.from(outcome.body, 'utf8');
		res.writeHead(outcome.status, { ...outcome.headers, 'content-length': body.length });
		res.flushHeaders();
		for (let index = 0; index < body.length; index += 1) {
			await this.delay(delayMs);
			if (res.destroyed || this.closing) return;
			res.write(body.subarray(index, index + 1));
		}
		res.end();
	}

	/** Headers with the full Content-Length, then half of the body, then the socket is destroyed. */
	private async cutBody(res: ServerResponse, outcome: Outcome): Promise<void> {
		this.counters.answered(outcome.status);
		await this.delay(this.config.latencyMs);
		if (res.headersSent || res.destroyed) return;
		const body = Buffer.from(outcome.body.length >= 2 ? outcome.body : CUT_BODY_STAND_IN, 'utf8');
		const headers =
			outcome.body.length >= 2 ? outcome.headers : { 'content-type': 'application/json' };
		res.writeHead(outcome.status, { ...headers, 'content-length': body.length });
		res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
	}

	private record(
		req: IncomingMessage,
		method: string,
		path: string,
		query: Record<string, string>,
		raw: string,
	): void {
		const match = this.router.match(method, path);
		this.counters.request(`${method} ${match.kind === 'found' ? match.route.pattern : path}`);
		const apiKey = headerValue(req, 'x-api-key');
		if (apiKey !== undefined) this.counters.keyRequest(apiKey, Date.now());
		this.recorded.push({
			method,
			path,
			query,
			headers: recordHeaders(req),
			rawBody: raw,
			body: tryParseJson(raw),
			at: Date.now(),
		});
	}

	private tooLarge(dialect: Dialect): Outcome {
		return errorOutcome(
			dialect,
			new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${MAX_BODY_BYTES} bytes`),
		);
	}

	private async finish(res: ServerResponse, outcome: Outcome | 'reset'): Promise<void> {
		this.counters.answered(outcome === 'reset' ? 'reset' : outcome.status);
		await this.delay(this.config.latencyMs);
		if (outcome === 'reset') {
			res.socket?.destroy();
			return;
		}
		this.write(res, outcome);
	}

	private write(res: ServerResponse, outcome: Outcome): void {
		if (res.headersSent || res.destroyed) return;
		res.writeHead(outcome.status, {
			...outcome.headers,
			'content-length': Buffer.byteLength(outcome.body),
		});
		res.end(outcome.body);
	}

	private crash(res: ServerResponse, error: unknown): void {
		console.error('sandbox: unexpected error', error);
		this.write(res, errorOutcome(this.config.dialect, this.internalError()));
	}

	private internalError(): ApiError {
		return new ApiError(500, 'INTERNAL_ERROR', 'Unexpected sandbox error', SOMETHING_WENT_WRONG);
	}

	/** Everything between reading the body and answering: synchronous, never throws. */
	private process(
		req: IncomingMessage,
		method: string,
		path: string,
		query: Record<string, string>,
		raw: string,
	): Outcome {
		const dialect = this.config.dialect;
		try {
			return this.dispatch(req, method, path, query, raw);
		} catch (error) {
			if (error instanceof ApiError) return errorOutcome(dialect, error);
			console.error('sandbox: handler failed', error);
			return errorOutcome(dialect, this.internalError());
		}
	}

	private dispatch(
		req: IncomingMessage,
		method: string,
		path: string,
		query: Record<string, string>,
		raw: string,
	): Outcome {
		const match = this.router.match(method, path);
		const route = match.kind === 'found' ? match.route : null;
		const required = route === null ? 'any' : authOf(route, this.config.dialect);
		let auth: AuthContext | null = null;
		if (required !== 'none') {
			auth = this.authenticate(req, required);
			const limited = this.rateLimit(auth.apiKey);
			if (limited) return limited;
		}
		if (match.kind === 'none') {
			throw new ApiError(404, 'NOT_FOUND', `No endpoint ${method} ${path.slice(0, 100)}`, {
				message: 'Not Found',
			});
		}
		if (match.kind === 'wrong-method') {
			const error = new ApiError(
				405,
				'METHOD_NOT_ALLOWED',
				`Method ${method} is not allowed here; use ${match.allowed.join(', ')}`,
				{
					message: 'Method Not Allowed',
				},
			);
			return errorOutcome(this.config.dialect, error, { allow: match.allowed.join(', ') });
		}
		const idempotencyKey = headerValue(req, 'idempotency-key');
		const ctx: RequestContext = {
			state: this.currentState,
			config: this.config,
			params: match.params,
			query,
			body: match.route.body === 'json' ? parseRouteBody(req, raw, match.route) : undefined,
			rawBody: raw,
			idempotencyKey,
			auth,
			hooks: this.hooks,
		};
		// The live backend has no idempotency support at all: the header is ignored there.
		if (
			match.route.idempotent &&
			this.config.idempotency &&
			this.config.dialect === 'spec' &&
			auth &&
			idempotencyKey
		) {
			return this.runIdempotent(match.route, ctx, auth.apiKey, idempotencyKey);
		}
		return replyOutcome(match.route.handle(ctx));
	}

	private authenticate(req: IncomingMessage, required: Route['auth'] | 'any'): AuthContext {
		const apiKey = headerValue(req, 'x-api-key')?.trim();
		if (!apiKey) {
			throw unauthorized(
				'The x-api-key header is missing',
				required === 'master' ? 'Missing API key.' : 'Missing JWT or API key.',
			);
		}
		const key = this.currentState.keys.get(apiKey);
		if (!key) throw unauthorized('The API key is invalid or has been revoked', 'Invalid API key');
		if (required === 'master' && key.kind !== 'master') {
			throw unauthorized('This endpoint requires a partner master API key', 'Invalid API key');
		}
		if (required === 'borrower' && key.kind !== 'borrower') {
			throw unauthorized('This endpoint requires a borrower API key', 'Invalid API key');
		}
		const user = this.currentState.users.get(key.userId);
		if (!user)
			throw unauthorized(
				'The user of this API key no longer exists',
				'The user belonging to this token no longer exists',
			);
		return { apiKey, key, user };
	}

	private rateLimit(apiKey: string): Outcome | null {
		const config = this.config.rateLimit;
		if (!config) return null;
		const nowMs = Date.now();
		const decision = this.limiter.check(apiKey, config, nowMs);
		if (!decision) return null;
		this.counters.rateLimited();
		const retryAfter = retryAfterHeader(config, decision, nowMs);
		const error = new ApiError(
			429,
			'RATE_LIMITED',
			`Rate limit of ${config.requestsPerSecond} requests per second exceeded; retry later`,
			{ message: 'Too Many Requests' },
		);
		return errorOutcome(
			this.config.dialect,
			error,
			retryAfter === null ? {} : { 'retry-after': retryAfter },
		);
	}

	private runIdempotent(
		route: Route,
		ctx: RequestContext,
		apiKey: string,
		idempotencyKey: string,
	): Outcome {
		if (idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
			throw new ApiError(
				400,
				'INVALID_IDEMPOTENCY_KEY',
				`Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
			);
		}
		const fingerprint = stableStringify(ctx.body);
		const found = this.idempotencyStore.lookup(apiKey, idempotencyKey, fingerprint);
		if (found.kind === 'replay') {
			return {
				...found.outcome,
				headers: { ...found.outcome.headers, 'idempotent-replayed': 'true' },
			};
		}
		if (found.kind === 'conflict') {
			throw new ApiError(
				422,
				'IDEMPOTENCY_KEY_REUSED',
				'This Idempotency-Key was already used with a different request body',
			);
		}
		const outcome = replyOutcome(route.handle(ctx));
		if (outcome.status < 400)
			this.idempotencyStore.save(apiKey, idempotencyKey, fingerprint, outcome);
		return outcome;
	}

	private handleAdmin(
		method: string,
		path: string,
		query: Record<string, string>,
		raw: string,
	): Outcome {
		try {
			const match = this.adminRouter.match(method, path);
			if (match.kind !== 'found')
				throw new ApiError(
					match.kind === 'none' ? 404 : 405,
					'NOT_FOUND',
					`No admin endpoint ${method} ${path}`,
				);
			let body: unknown;
			try {
				body = raw.trim() === '' ? undefined : JSON.parse(raw);
			} catch {
				throw new ApiError(400, 'INVALID_JSON', 'The request body is not valid JSON');
			}
			const ctx: RequestContext = {
				state: this.currentState,
				config: this.config,
				params: match.params,
				query,
				body,
				rawBody: raw,
				auth: null,
				hooks: this.hooks,
			};
			return replyOutcome(match.route.handle(ctx));
		} catch (error) {
			if (error instanceof ApiError) return errorOutcome('spec', error);
			console.error('sandbox: admin request failed', error);
			return errorOutcome('spec', this.internalError());
		}
	}
}

export async function startSandbox(options: StartOptions = {}): Promise<Sandbox> {
	const { port = 0, seed = {}, now = () => new Date(), ...patch } = options;
	const config = cloneConfig({ ...defaultConfig(), ...validateConfigPatch(patch) });
	const impl = new SandboxServer(config, seed, now);
	const url = await impl.listen(port);
	return {
		url,
		keys: impl.keys,
		admin: impl.admin,
		configure: (configPatch) => impl.configure(configPatch),
		reset: () => impl.reset(),
		stats: () => impl.stats(),
		get requests() {
			return impl.requests();
		},
		get state() {
			return impl.state();
		},
		get config() {
			return cloneConfig(impl.config);
		},
		close: () => impl.close(),
	};
}
