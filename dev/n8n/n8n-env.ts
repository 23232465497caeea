// A real n8n for demos and end-to-end tests: a throwaway user folder with this package installed as a
// community package, CLI helpers (import, execute, publish) and a server on 127.0.0.1.
//
//   const home = await createN8nHome();           // temp folder, package copied in
//   await home.importCredentials([...]); await home.importWorkflow(fileOrObject);
//   const run = await home.execute(workflowId);   // n8n execute --id … --rawOutput
//   const server = await home.start();            // n8n start; server.url, server.stop()
//   await server.setupOwner();                    // POST /rest/owner/setup, keeps the login cookie
//   const worker = await home.startWorker();      // n8n worker (queue mode, see queue.ts)
//   await home.remove();
//
// Everything runs offline: the environment below switches off every call n8n makes to its servers.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
	closeSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { N8N_DIR, ROOT, n8nCli, node24, node24Env } from './ensure-n8n';
import { sleep } from './steps';

export const PACKAGE_NAME = 'n8n-nodes-lendasat';

export interface Owner {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}

/** The owner account `npm start` and the tests create, so nobody has to sign up. */
export const DEMO_OWNER: Owner = {
	email: 'demo@lendasat.local',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'Lendasat-demo-1',
};

/** A credential as `n8n import:credentials` takes it; n8n encrypts `data` on import. */
export interface CredentialImport {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface CliResult {
	code: number | string | null;
	stdout: string;
	stderr: string;
}

export interface ExecuteResult extends CliResult {
	ok: boolean;
	/** The run (`{ data: { resultData: { runData, error? } }, status, … }`), parsed from stdout. */
	data: Json;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

/** `npm pack` of the package into `destination`; returns the tarball's path. */
export function packPackage(destination: string, packageDir: string = ROOT): string {
	const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], {
		cwd: packageDir,
		encoding: 'utf8',
	})
		.trim()
		.split('\n')
		.pop() as string;
	return join(destination, tarball);
}

/**
 * Installs the package the way n8n's own installer does (community-packages.service
 * `downloadPackage`): the packed tarball (what npm would publish: only the `files` of package.json),
 * unpacked into the user folder's nodes/node_modules, with its dev, peer and optional dependencies
 * taken out of its package.json, so that `require('n8n-workflow')` finds n8n's own copy. The user
 * folder must lie outside this repository: walking up from the package, Node would otherwise find
 * the repository's dev copy of n8n-workflow, and n8n would not recognise the package's errors.
 * `tarball`: one already packed (several user folders installing the same build); else it packs.
 */
export function installPackage(
	userFolder: string,
	packageDir: string = ROOT,
	tarball?: string,
): string {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(target, { recursive: true });
	const packDir = tarball ? undefined : mkdtempSync(join(tmpdir(), 'lendasat-pack-'));
	try {
		const packed = tarball ?? packPackage(packDir as string, packageDir);
		execFileSync('tar', ['-xzf', packed, '-C', target, '--strip-components=1']);
	} finally {
		if (packDir) rmSync(packDir, { recursive: true, force: true });
	}
	const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
	for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
		delete manifest[field];
	writeFileSync(join(target, 'package.json'), JSON.stringify(manifest, null, 2));
	// What n8n's installer leaves behind in ~/.n8n/nodes.
	const nodesManifest = {
		name: 'installed-nodes',
		private: true,
		dependencies: { [PACKAGE_NAME]: manifest.version },
	};
	writeFileSync(join(nodesDir, 'package.json'), JSON.stringify(nodesManifest, null, 2));
	return target;
}

/** The environment of every n8n process of one user folder. */
function n8nEnv(
	userFolder: string,
	encryptionKey: string,
	extra: Record<string, string>,
): NodeJS.ProcessEnv {
	const env = node24Env({
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: encryptionKey,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		...extra,
	});
	// Under jest NODE_ENV is "test", and n8n then refuses to load nodes ("Not available in tests").
	delete env.NODE_ENV;
	delete env.JEST_WORKER_ID;
	return env;
}

function runCli(env: NodeJS.ProcessEnv, args: string[], timeoutMs = 120_000): Promise<CliResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(node24().bin, [n8nCli(), ...args], {
			env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
		child.on('error', reject);
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ code: signal ?? code, stdout, stderr });
		});
	});
}

/** `execute --rawOutput` prints log lines, the run as pretty-printed JSON, and on failure more lines. */
export function parseRawOutput(stdout: string): Json {
	const lines = stdout.split('\n');
	for (let start = 0; start < lines.length; start++) {
		if (lines[start] !== '{') continue;
		for (let end = start + 1; end < lines.length; end++) {
			if (lines[end] !== '}') continue;
			try {
				return JSON.parse(lines.slice(start, end + 1).join('\n'));
			} catch {
				// not the end of this object yet
			}
		}
	}
	return undefined;
}

/** n8n's REST API returns an execution's data as a `flatted` string; n8n ships the parser. */
export function parseFlatted(text: string): Json {
	const flatted = createRequire(join(N8N_DIR, 'package.json'))('flatted') as {
		parse(text: string): Json;
	};
	return flatted.parse(text);
}

export interface N8nHome {
	userFolder: string;
	env(extra?: Record<string, string>): NodeJS.ProcessEnv;
	/** Runs an n8n CLI command; each gets its own task-runner broker port, so a server may run too. */
	cli(args: string[], timeoutMs?: number): Promise<CliResult>;
	importCredentials(credentials: CredentialImport[]): Promise<void>;
	/** A workflow file or object carrying an `id`; returns the id. */
	importWorkflow(workflow: string | Json): Promise<string>;
	/** Several workflows (files or objects) with one CLI call; returns their ids. */
	importWorkflows(workflows: (string | Json)[]): Promise<string[]>;
	execute(workflowId: string, timeoutMs?: number): Promise<ExecuteResult>;
	/** Activates a workflow at the next server start (for a running server use server.activate). */
	publish(workflowId: string): Promise<void>;
	start(options?: StartOptions): Promise<N8nServer>;
	/** `n8n worker` (queue mode): needs EXECUTIONS_MODE=queue, Postgres and Redis in the environment. */
	startWorker(options?: WorkerOptions): Promise<N8nWorker>;
	remove(): void;
}

export interface HomeOptions {
	dir?: string;
	packageDir?: string;
	/** A tarball of the package already packed (packPackage), installed instead of packing again. */
	tarball?: string;
	/** The same for every process that shares one database (queue mode); default a random one. */
	encryptionKey?: string;
	extraEnv?: Record<string, string>;
}

/** A throwaway n8n user folder (or `dir`) with this package installed. */
export function createN8nHome(options: HomeOptions = {}): N8nHome {
	const { packageDir = ROOT, extraEnv = {} } = options;
	const userFolder = options.dir ?? mkdtempSync(join(tmpdir(), 'lendasat-n8n-'));
	mkdirSync(userFolder, { recursive: true });
	installPackage(userFolder, packageDir, options.tarball);
	const encryptionKey = options.encryptionKey ?? `lendasat-demo-${randomBytes(12).toString('hex')}`;
	const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
		n8nEnv(userFolder, encryptionKey, { ...extraEnv, ...extra });
	let fileCounter = 0;
	const writeImportFile = (data: unknown): string => {
		const file = join(userFolder, `import-${++fileCounter}.json`);
		writeFileSync(file, JSON.stringify(data, null, 2));
		return file;
	};
	const cli = async (args: string[], timeoutMs?: number): Promise<CliResult> =>
		runCli(env({ N8N_RUNNERS_BROKER_PORT: String(await freePort()) }), args, timeoutMs);
	const cliOrThrow = async (args: string[]): Promise<CliResult> => {
		const result = await cli(args);
		if (result.code !== 0) {
			const output = (result.stderr.trim() || result.stdout).slice(-2000);
			throw new Error(`n8n ${args[0]} exited with ${String(result.code)}:\n${output}`);
		}
		return result;
	};

	const importWorkflows = async (workflows: (string | Json)[]): Promise<string[]> => {
		const list: Json[] = workflows.map((workflow) =>
			typeof workflow === 'string' ? JSON.parse(readFileSync(workflow, 'utf8')) : workflow,
		);
		for (const data of list) if (!data.id) throw new Error(`workflow "${data.name}" has no id`);
		await cliOrThrow(['import:workflow', `--input=${writeImportFile(list)}`]);
		return list.map((data) => data.id as string);
	};

	return {
		userFolder,
		env,
		cli,
		async importCredentials(credentials) {
			await cliOrThrow(['import:credentials', `--input=${writeImportFile(credentials)}`]);
		},
		importWorkflows,
		importWorkflow: async (workflow) => (await importWorkflows([workflow]))[0],
		async execute(workflowId, timeoutMs) {
			const result = await cli(['execute', `--id=${workflowId}`, '--rawOutput'], timeoutMs);
			return { ...result, ok: result.code === 0, data: parseRawOutput(result.stdout) };
		},
		async publish(workflowId) {
			await cliOrThrow(['publish:workflow', `--id=${workflowId}`]);
		},
		start: (startOptions) => startServer(env, userFolder, startOptions),
		startWorker: (workerOptions) => startWorker(env, userFolder, workerOptions),
		remove: () => rmSync(userFolder, { recursive: true, force: true }),
	};
}

export interface StartOptions {
	port?: number;
	/** Where the server's output goes; default n8n.log in the user folder. */
	logFile?: string;
	readyTimeoutMs?: number;
}

export interface N8nServer {
	url: string;
	port: number;
	pid: number;
	readonly running: boolean;
	/** The last 20 kB of the server's output. */
	output(): string;
	stop(): Promise<void>;
	/** Creates the owner account (once per user folder) and keeps its login cookie for rest(). */
	setupOwner(owner?: Owner): Promise<Json>;
	login(owner?: Owner): Promise<Json>;
	/** The `n8n-auth=…` cookie of the last setupOwner/login. */
	readonly cookie: string;
	/** An authenticated call to n8n's internal REST API; returns the `data` of the answer. */
	rest(method: string, path: string, body?: unknown): Promise<Json>;
	/** Publishes (activates) a workflow on this running server. */
	activate(workflowId: string): Promise<Json>;
	/** Summaries of a workflow's executions, newest first. */
	executions(workflowId: string): Promise<Json[]>;
	/** One execution; its `data` is parsed (runData under data.resultData.runData). */
	execution(id: string): Promise<Json>;
}

/** An n8n process of its own (`n8n start`, `n8n worker`) writing to a log file. */
interface N8nProcess {
	pid: number;
	readonly running: boolean;
	/** The last 20 kB of its output. */
	output(): string;
	/** SIGTERM to its process group (it and its task runner), SIGKILL after 15 s. */
	stop(): Promise<void>;
}

/**
 * Spawns `n8n <args>` in a process group of its own, so stop() also ends its task runner; it is
 * killed if this process exits without stopping it. The output goes straight to the log file, so
 * n8n never depends on this process reading a pipe.
 */
function spawnN8n(env: NodeJS.ProcessEnv, args: string[], logFile: string): N8nProcess {
	const logFd = openSync(logFile, 'a');
	const child = spawn(node24().bin, [n8nCli(), ...args], {
		env,
		stdio: ['ignore', logFd, logFd],
		detached: true,
	});
	closeSync(logFd);
	let running = true;
	const exited = new Promise<void>((resolve) =>
		child.on('exit', () => {
			running = false;
			process.off('exit', killOnExit);
			resolve();
		}),
	);
	const killGroup = (signal: NodeJS.Signals): void => {
		try {
			process.kill(-(child.pid as number), signal);
		} catch {
			// already gone
		}
	};
	const killOnExit = (): void => killGroup('SIGKILL');
	process.on('exit', killOnExit);
	return {
		pid: child.pid as number,
		get running() {
			return running;
		},
		output: () => readFileSync(logFile, 'utf8').slice(-20_000),
		async stop() {
			if (!running) return;
			killGroup('SIGTERM');
			const timer = setTimeout(() => killGroup('SIGKILL'), 15_000);
			await exited;
			clearTimeout(timer);
		},
	};
}

/** Polls `url` until it answers 2xx; stops the process and throws when it exits or time runs out. */
async function waitUntilReady(
	n8n: N8nProcess,
	url: string,
	what: string,
	timeoutMs: number,
): Promise<void> {
	const started = Date.now();
	for (;;) {
		if (!n8n.running)
			throw new Error(`${what} exited during start-up:\n${n8n.output().slice(-3000)}`);
		if (Date.now() - started > timeoutMs) {
			await n8n.stop();
			throw new Error(
				`${what} was not ready after ${timeoutMs / 1000} s:\n${n8n.output().slice(-3000)}`,
			);
		}
		try {
			if ((await fetch(url)).ok) return;
		} catch {
			// not listening yet
		}
		await sleep(250);
	}
}

/** Starts `n8n start` and waits for /healthz/readiness. */
async function startServer(
	env: (extra?: Record<string, string>) => NodeJS.ProcessEnv,
	userFolder: string,
	options: StartOptions = {},
): Promise<N8nServer> {
	const { readyTimeoutMs = 120_000 } = options;
	const logFile = options.logFile ?? join(userFolder, 'n8n.log');
	const port = options.port ?? (await freePort());
	const url = `http://127.0.0.1:${port}`;
	const n8n = spawnN8n(
		env({
			N8N_PORT: String(port),
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			N8N_EDITOR_BASE_URL: `${url}/`,
		}),
		['start'],
		logFile,
	);

	let cookie = '';
	const call = async (
		method: string,
		path: string,
		body?: unknown,
		withCookie = true,
	): Promise<Response> =>
		fetch(`${url}/rest${path}`, {
			method,
			headers: {
				...(withCookie ? { cookie } : {}),
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
	const loginWith = async (path: string, body: unknown): Promise<Json> => {
		const response = await call('POST', path, body, false);
		if (!response.ok)
			throw new Error(`POST /rest${path}: HTTP ${response.status} ${await response.text()}`);
		cookie = authCookie(response);
		return ((await response.json()) as Json).data;
	};

	const server: N8nServer = {
		url,
		port,
		pid: n8n.pid,
		get running() {
			return n8n.running;
		},
		get cookie() {
			return cookie;
		},
		output: () => n8n.output(),
		stop: () => n8n.stop(),
		setupOwner: (owner = DEMO_OWNER) => loginWith('/owner/setup', owner),
		login: (owner = DEMO_OWNER) =>
			loginWith('/login', { emailOrLdapLoginId: owner.email, password: owner.password }),
		async rest(method, path, body) {
			const response = await call(method, path, body);
			const text = await response.text();
			if (!response.ok)
				throw new Error(`${method} /rest${path}: HTTP ${response.status} ${text.slice(0, 500)}`);
			return text ? (JSON.parse(text) as Json).data : undefined;
		},
		async activate(workflowId) {
			const { versionId } = await server.rest('GET', `/workflows/${workflowId}`);
			return server.rest('POST', `/workflows/${workflowId}/activate`, { versionId });
		},
		async executions(workflowId) {
			const filter = encodeURIComponent(JSON.stringify({ workflowId }));
			const { results } = await server.rest('GET', `/executions?filter=${filter}&limit=100`);
			return results as Json[];
		},
		async execution(id) {
			const execution = await server.rest('GET', `/executions/${id}`);
			return {
				...execution,
				data: typeof execution.data === 'string' ? parseFlatted(execution.data) : execution.data,
			};
		},
	};

	await waitUntilReady(n8n, `${url}/healthz/readiness`, 'n8n', readyTimeoutMs);
	return server;
}

export interface WorkerOptions {
	/** Executions the worker runs at once (`--concurrency`, n8n's default 10). */
	concurrency?: number;
	/** Where the worker's output goes; default worker.log in the user folder. */
	logFile?: string;
	readyTimeoutMs?: number;
}

export interface N8nWorker extends N8nProcess {
	logFile: string;
	/** The port of its health server (/healthz, /healthz/readiness). */
	healthPort: number;
	/** The executions it has started, from its log ("Worker started execution 12 (job 7)"). */
	executionsStarted(): string[];
}

/**
 * Starts `n8n worker` with its health server on 127.0.0.1 (a port of its own, and a task-runner
 * broker port of its own) and waits for /healthz/readiness.
 */
async function startWorker(
	env: (extra?: Record<string, string>) => NodeJS.ProcessEnv,
	userFolder: string,
	options: WorkerOptions = {},
): Promise<N8nWorker> {
	const { concurrency = 10, readyTimeoutMs = 120_000 } = options;
	const logFile = options.logFile ?? join(userFolder, 'worker.log');
	const healthPort = await freePort();
	const worker = spawnN8n(
		env({
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		}),
		['worker', `--concurrency=${concurrency}`],
		logFile,
	);
	await waitUntilReady(
		worker,
		`http://127.0.0.1:${healthPort}/healthz/readiness`,
		'n8n worker',
		readyTimeoutMs,
	);
	return Object.assign(worker, {
		logFile,
		healthPort,
		executionsStarted: () =>
			[...readFileSync(logFile, 'utf8').matchAll(/Worker started execution (\d+)/g)].map(
				(match) => match[1],
			),
	});
}

function authCookie(response: Response): string {
	const auth = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
	if (!auth) throw new Error('n8n did not set its n8n-auth cookie');
	return auth.split(';')[0];
}
