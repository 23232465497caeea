/** The sandbox and contender processes as the orchestrator drives them. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import type { SandboxConfig, SandboxKeys, SandboxStats } from '../../sandbox/types';
import type { FromContender, Job, RunResult, ToContender } from './types';

const benchDir = path.resolve(__dirname, '..');
const repositoryRoot = path.resolve(benchDir, '..');

function forkTypeScript(
	script: string,
	execArgv: string[] = [],
	stderr: 'inherit' | 'pipe' = 'inherit',
): ChildProcess {
	return fork(path.join(benchDir, script), [], {
		cwd: repositoryRoot,
		execArgv: ['--import', 'tsx', ...execArgv],
		stdio: ['ignore', 'inherit', stderr, 'ipc'],
	});
}

/**
 * The last lines a contender wrote to stderr. n8n's error reporter logs every node failure with its
 * stack (the HTTP Request node fails on purpose in scenarios 2 and 3); shown only if the process fails.
 */
function keepTail(child: ChildProcess, lines = 40): () => string {
	const tail: string[] = [];
	child.stderr?.setEncoding('utf8');
	child.stderr?.on('data', (chunk: string) => {
		tail.push(...chunk.split('\n'));
		tail.splice(0, Math.max(0, tail.length - lines));
	});
	return () => tail.join('\n');
}

function nextMessage<T>(child: ChildProcess, what: string): Promise<T> {
	return new Promise((resolve, reject) => {
		const onExit = (code: number | null) =>
			reject(new Error(`${what}: the process exited (code ${code})`));
		child.once('exit', onExit);
		child.once('message', (message) => {
			child.off('exit', onExit);
			resolve(message as T);
		});
	});
}

async function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	if (child.connected) child.disconnect();
	const timer = setTimeout(() => child.kill(), 5000);
	await exited;
	clearTimeout(timer);
}

export class SandboxProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly url: string,
		readonly keys: SandboxKeys,
	) {}

	static async start(): Promise<SandboxProcess> {
		const child = forkTypeScript('sandboxProcess.ts');
		const ready = await nextMessage<{ url: string; keys: SandboxKeys }>(child, 'sandbox');
		return new SandboxProcess(child, ready.url, ready.keys);
	}

	/** Back to the seed (no contracts created, counters at zero), then this configuration. */
	async reset(config: Partial<SandboxConfig> = {}): Promise<void> {
		await this.admin('POST', '/__admin/reset');
		if (Object.keys(config).length) await this.admin('PUT', '/__admin/config', config);
	}

	/** This configuration on top of the current one; the state and the counters stay. */
	async configure(config: Partial<SandboxConfig>): Promise<void> {
		await this.admin('PUT', '/__admin/config', config);
	}

	/** The counters back to zero (POST /__admin/stats/clear); the state stays. */
	async clearStats(): Promise<void> {
		await this.admin('POST', '/__admin/stats/clear');
	}

	stats(): Promise<SandboxStats> {
		return this.admin('GET', '/__admin/stats') as Promise<SandboxStats>;
	}

	/** The requests recorded since the last reset, in the order they came. */
	requests(): Promise<Array<{ method: string; path: string }>> {
		return this.admin('GET', '/__admin/requests') as Promise<
			Array<{ method: string; path: string }>
		>;
	}

	/**
	 * Waits until the connections of earlier runs are closed (the sandbox closes an idle keep-alive
	 * connection after 5 s), so that a run's peak of open connections counts its own only.
	 */
	async quiet(timeoutMs = 15_000): Promise<void> {
		const until = Date.now() + timeoutMs;
		// The stats request itself holds one connection.
		while ((await this.stats()).openConnections > 1 && Date.now() < until) {
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	/** Adds an offer (POST /__admin/offers; gone at the next reset) and answers its id. */
	async addOffer(offer: object): Promise<string> {
		const added = (await this.admin('POST', '/__admin/offers', offer)) as { id: string };
		return added.id;
	}

	/** Adds contracts for the borrower key until it has `total`. */
	async seedContracts(total: number): Promise<void> {
		const response = await fetch(`${this.url}/api/contracts?page=1&limit=1`, {
			headers: { 'x-api-key': this.keys.borrower },
		});
		const { total: existing } = (await response.json()) as { total: number };
		if (existing < total) {
			await this.admin('POST', '/__admin/contracts', {
				api_key: this.keys.borrower,
				count: total - existing,
			});
		}
	}

	close(): Promise<void> {
		return stop(this.child);
	}

	private async admin(method: string, adminPath: string, body?: object): Promise<unknown> {
		const response = await fetch(`${this.url}${adminPath}`, {
			method,
			headers: body ? { 'Content-Type': 'application/json' } : {},
			body: body ? JSON.stringify(body) : undefined,
		});
		const answer: unknown = await response.json();
		if (!response.ok)
			throw new Error(
				`sandbox admin ${method} ${adminPath}: HTTP ${response.status} ${JSON.stringify(answer)}`,
			);
		return answer;
	}
}

export class ContenderProcess {
	private constructor(
		private readonly child: ChildProcess,
		private readonly stderr: () => string,
	) {}

	/** `nodeFlags`: more of Node's own flags for the process, e.g. `--max-old-space-size=1024`. */
	static async start(nodeFlags: string[] = []): Promise<ContenderProcess> {
		const child = forkTypeScript('contender.ts', ['--expose-gc', ...nodeFlags], 'pipe');
		const stderr = keepTail(child);
		await nextMessage<FromContender>(child, 'contender').catch((error: Error) => {
			throw new Error(`${error.message}\n${stderr()}`);
		});
		return new ContenderProcess(child, stderr);
	}

	async run(job: Job): Promise<RunResult> {
		const what = `${job.contender} ${job.kind}`;
		const answer = nextMessage<FromContender>(this.child, what).catch((error: Error) => {
			throw new Error(`${error.message}\n${this.stderr()}`);
		});
		this.child.send({ type: 'run', job } satisfies ToContender);
		const message = await answer;
		if (message.type === 'failed')
			throw new Error(`${what} failed: ${message.message}\n${this.stderr()}`);
		if (message.type !== 'result') throw new Error(`unexpected message ${JSON.stringify(message)}`);
		return message.result;
	}

	async close(): Promise<void> {
		if (this.child.connected) this.child.send({ type: 'exit' } satisfies ToContender);
		await stop(this.child);
	}
}
