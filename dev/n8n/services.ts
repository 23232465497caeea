// Redis and Postgres for n8n's queue mode (queue.ts): throwaway servers on 127.0.0.1, on free ports,
// their data in temp folders, each in a process group of its own that is killed if this process
// exits without stopping it.
//
// Redis is Debian's `redis-server`; Postgres is Debian's `postgresql` package (its binaries in
// /usr/lib/postgresql/<version>/bin). Postgres refuses to run as root, so as root it runs as the
// `postgres` OS user the package creates (through `runuser`). `.ci/run` installs both with apt-get.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
	chownSync,
	closeSync,
	existsSync,
	mkdtempSync,
	openSync,
	readFileSync,
	readdirSync,
	rmSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './n8n-env';
import { sleep } from './steps';

/** A server this process started. */
export interface Service {
	port: number;
	/** Its data and log folder. */
	dir: string;
	/** The last 4 kB of its log. */
	output(): string;
	stop(): Promise<void>;
}

/** Where `name` is found first on PATH. */
function onPath(name: string): string | undefined {
	for (const dir of (process.env.PATH ?? '').split(':')) {
		const candidate = join(dir, name);
		if (dir && existsSync(candidate)) return candidate;
	}
	return undefined;
}

export const redisServerBinary = (): string | undefined => onPath('redis-server');

/** Debian's newest Postgres bin folder, else the folder of `postgres` on PATH. */
export function postgresBinDir(): string | undefined {
	const debian = '/usr/lib/postgresql';
	if (existsSync(debian)) {
		const versions = readdirSync(debian)
			.filter((version) => existsSync(join(debian, version, 'bin', 'postgres')))
			.sort((a, b) => Number(b) - Number(a));
		if (versions.length) return join(debian, versions[0], 'bin');
	}
	const postgres = onPath('postgres');
	return postgres && existsSync(join(postgres, '..', 'initdb')) ? join(postgres, '..') : undefined;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** As root: the `postgres` OS user's uid and gid (Postgres will not run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
	if (!isRoot()) return undefined;
	try {
		const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
		const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
		return { uid, gid };
	} catch {
		return undefined;
	}
}

/** Why queue mode cannot run here (a binary missing), or undefined when it can. */
export function queueServicesMissing(): string | undefined {
	const missing: string[] = [];
	if (!redisServerBinary()) missing.push('Redis (redis-server: apt-get install redis-server)');
	if (!postgresBinDir()) missing.push('Postgres (initdb, postgres: apt-get install postgresql)');
	else if (isRoot() && !postgresUser())
		missing.push(
			'the postgres OS user (Postgres refuses to run as root; apt-get install postgresql creates it)',
		);
	if (isRoot() && !onPath('runuser')) missing.push('runuser (util-linux)');
	return missing.length ? missing.join(', ') : undefined;
}

/** A command as the `postgres` OS user when this process is root, else as it is. */
function asPostgres(command: string, args: string[]): [string, string[]] {
	return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** Spawns a server in a process group of its own, its output appended to `logFile`. */
function spawnServer(command: string, args: string[], logFile: string): ChildProcess {
	const log = openSync(logFile, 'a');
	const child = spawn(command, args, { stdio: ['ignore', log, log], detached: true });
	closeSync(log);
	return child;
}

/** A way to stop a spawned server: `signal` (then SIGKILL) to its group, also when this process exits. */
function stopper(
	child: ChildProcess,
	cleanUp: () => void,
	signal: NodeJS.Signals = 'SIGTERM',
): () => Promise<void> {
	let running = child.exitCode === null;
	const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
	const kill = (signal: NodeJS.Signals) => {
		try {
			process.kill(-(child.pid as number), signal);
		} catch {
			// already gone
		}
	};
	const onExit = () => {
		kill('SIGKILL');
		cleanUp();
	};
	process.on('exit', onExit);
	child.on('exit', () => (running = false));
	return async () => {
		process.off('exit', onExit);
		if (running) {
			kill(signal);
			const timer = setTimeout(() => kill('SIGKILL'), 10_000);
			await exited;
			clearTimeout(timer);
		}
		cleanUp();
	};
}

/** Connects to 127.0.0.1:port, sends `probe` (if any) and resolves with the first answer's text. */
function talk(port: number, probe?: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: '127.0.0.1', port });
		socket.setTimeout(1000, () => socket.destroy(new Error('timeout')));
		socket.on('connect', () => {
			if (probe) socket.write(probe);
			else {
				socket.end();
				resolve('');
			}
		});
		socket.on('data', (data) => {
			socket.end();
			resolve(data.toString());
		});
		socket.on('error', reject);
	});
}

async function waitFor(
	check: () => Promise<boolean>,
	child: ChildProcess,
	what: string,
	output: () => string,
	timeoutMs = 30_000,
): Promise<void> {
	const started = Date.now();
	for (;;) {
		if (child.exitCode !== null)
			throw new Error(`${what} exited with ${child.exitCode}:\n${output()}`);
		if (await check().catch(() => false)) return;
		if (Date.now() - started > timeoutMs)
			throw new Error(`${what} was not ready after ${timeoutMs / 1000} s:\n${output()}`);
		await sleep(100);
	}
}

const tail = (file: string) => () => {
	try {
		return readFileSync(file, 'utf8').slice(-4000);
	} catch {
		return '';
	}
};

/** `redis-server` on 127.0.0.1, nothing saved to disk. */
export async function startRedis(): Promise<Service> {
	const binary = redisServerBinary();
	if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server)');
	const dir = mkdtempSync(join(tmpdir(), 'lendasat-redis-'));
	const port = await freePort();
	const logFile = join(dir, 'redis.log');
	const child = spawnServer(
		binary,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
		],
		logFile,
	);
	const output = tail(logFile);
	const stop = stopper(child, () => rmSync(dir, { recursive: true, force: true }));
	try {
		await waitFor(
			async () => (await talk(port, 'PING\r\n')).startsWith('+PONG'),
			child,
			'redis-server',
			output,
		);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, dir, output, stop };
}

export interface Postgres extends Service {
	user: string;
	database: string;
}

/**
 * A Postgres cluster of its own (initdb into a temp folder, trust authentication, TCP on 127.0.0.1
 * only, no Unix socket, durability off: it is thrown away) and a database for n8n.
 */
export async function startPostgres(): Promise<Postgres> {
	const bin = postgresBinDir();
	if (!bin) throw new Error('Postgres is not installed (apt-get install postgresql)');
	const owner = postgresUser();
	if (isRoot() && !owner)
		throw new Error('Postgres refuses to run as root, and there is no postgres user');
	const dir = mkdtempSync(join(tmpdir(), 'lendasat-postgres-'));
	if (owner) chownSync(dir, owner.uid, owner.gid);
	const data = join(dir, 'data');
	const logFile = join(dir, 'postgres.log');
	const user = 'n8n';
	const database = 'n8n';
	const run = (command: string, args: string[]) => {
		const [program, programArgs] = asPostgres(join(bin, command), args);
		execFileSync(program, programArgs, { cwd: dir, stdio: 'pipe' });
	};
	const cleanUp = () => rmSync(dir, { recursive: true, force: true });
	try {
		run('initdb', ['-D', data, '-U', user, '--auth=trust', '-E', 'UTF8', '--locale=C']);
	} catch (error) {
		cleanUp();
		const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
		throw new Error(`initdb failed: ${stderr || (error as Error).message}`);
	}
	const port = await freePort();
	const [program, args] = asPostgres(join(bin, 'postgres'), [
		'-D',
		data,
		'-p',
		String(port),
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'unix_socket_directories=',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const child = spawnServer(program, args, logFile);
	const output = tail(logFile);
	// SIGINT is Postgres's fast shutdown (SIGTERM would wait for every session to end).
	const stop = stopper(child, cleanUp, 'SIGINT');
	try {
		await waitFor(async () => (await talk(port), true), child, 'postgres', output);
		// The server accepts connections a moment before it accepts logins: retry createdb briefly.
		await waitFor(
			async () => {
				run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', user, database]);
				return true;
			},
			child,
			'createdb',
			output,
		);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, dir, output, stop, user, database };
}
