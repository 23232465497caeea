/**
 * Route table, handler context and replies. Handlers are synchronous: they read the context, mutate
 * the state and return a Reply (or throw an ApiError).
 */
import { unauthorized, type ApiError } from './errors';
import type { SandboxState } from './state';
import type { ContractIdentity } from './stats';
import type { ApiKeyRecord, Dialect, SandboxConfig, User } from './types';

export interface AuthContext {
	apiKey: string;
	key: ApiKeyRecord;
	user: User;
}

/** Counters the handlers feed (see server.ts). */
export interface HandlerHooks {
	contractCreated(apiKey: string, identity: ContractIdentity): void;
}

export interface RequestContext {
	state: SandboxState;
	config: Readonly<SandboxConfig>;
	params: Record<string, string>;
	query: Record<string, string>;
	body: unknown;
	/** The body as received (for the live dialect's serde-style positions in error messages). */
	rawBody: string;
	/** The Idempotency-Key header, if any (whether or not the sandbox honours it). */
	idempotencyKey?: string;
	auth: AuthContext | null;
	hooks: HandlerHooks;
}

export type Reply =
	| { status: number; kind: 'json'; value: unknown; headers?: Record<string, string> }
	| { status: number; kind: 'empty'; headers?: Record<string, string> };

export function jsonReply(value: unknown, status = 200): Reply {
	return { status, kind: 'json', value };
}

export function emptyReply(status = 200): Reply {
	return { status, kind: 'empty' };
}

export interface Route {
	method: string;
	/** Path with `:name` segments, e.g. '/api/contracts/:id/extend'. */
	pattern: string;
	auth: 'none' | 'borrower' | 'master';
	/** The live dialect's auth where it differs (a route the backend registers outside its auth layer). */
	liveAuth?: 'none' | 'borrower' | 'master';
	/** 'json': the request must carry a JSON body (Content-Type checked, body parsed). */
	body: 'json' | 'none';
	/** Honours Idempotency-Key when the sandbox has idempotency switched on. */
	idempotent?: boolean;
	/**
	 * Live dialect: the body's Content-Type and JSON syntax rejections are axum's plain text, not
	 * `{"message": …}` (a handler that takes plain `axum::Json` rather than the backend's AppJson).
	 */
	plainJsonRejections?: boolean;
	/**
	 * Live dialect: the answer of a handler whose own JSON extractor rewrites axum's rejections of the
	 * body (Content-Type, syntax, deserialisation), e.g. the cards router's "Invalid JSON: …".
	 */
	jsonRejection?: (error: ApiError) => ApiError;
	handle(ctx: RequestContext): Reply;
}

export type RouteMatch =
	| { kind: 'found'; route: Route; params: Record<string, string> }
	| { kind: 'wrong-method'; allowed: string[] }
	| { kind: 'none' };

function safeDecode(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

function matchPattern(pattern: string[], segments: string[]): Record<string, string> | null {
	if (pattern.length !== segments.length) return null;
	const params: Record<string, string> = {};
	for (let index = 0; index < pattern.length; index += 1) {
		const expected = pattern[index];
		if (expected.startsWith(':')) params[expected.slice(1)] = safeDecode(segments[index]);
		else if (expected !== segments[index]) return null;
	}
	return params;
}

export class Router {
	private readonly compiled: { route: Route; segments: string[] }[];

	constructor(routes: Route[]) {
		this.compiled = routes.map((route) => ({
			route,
			segments: route.pattern.split('/').filter(Boolean),
		}));
	}

	match(method: string, path: string): RouteMatch {
		const segments = path.split('/').filter(Boolean);
		const allowed: string[] = [];
		for (const { route, segments: pattern } of this.compiled) {
			const params = matchPattern(pattern, segments);
			if (!params) continue;
			if (route.method === method) return { kind: 'found', route, params };
			allowed.push(route.method);
		}
		return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'none' };
	}
}

/** The key a route asks for in a dialect. */
export function authOf(route: Route, dialect: Dialect): Route['auth'] {
	return dialect === 'live' ? (route.liveAuth ?? route.auth) : route.auth;
}

/** The authenticated caller of a route that requires a key. */
export function caller(ctx: RequestContext): AuthContext {
	if (!ctx.auth) throw unauthorized('Missing x-api-key header', 'Missing JWT or API key.');
	return ctx.auth;
}
