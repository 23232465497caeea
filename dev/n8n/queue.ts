// n8n in queue mode, for real: Postgres and Redis (services.ts), a main instance (`n8n start`) and
// workers (`n8n worker`), n8n 2.41.1 as installed by ensure-n8n.ts, everything on 127.0.0.1.
//
//   const cluster = await startQueueCluster({ workers: 2 });
//   await cluster.main.rest('POST', '/credentials', {...});   // REST on the main instance (owner signed in)
//   await cluster.main.activate(id);
//   cluster.workers[0].executionsStarted();      // from the worker's log
//   await cluster.stop();                          // stops everything it started, in order
//
//   npx tsx dev/n8n/queue.ts [--workers 2]   starts one and keeps it running until Ctrl-C
//
// Every process gets its own user folder with the packed package installed as n8n's installer does
// (n8n-env.ts installPackage): as on separate machines or containers, each process loads the nodes
// from its own ~/.n8n/nodes, so a worker without the package could not run the node. They could not
// share one folder anyway: n8n keeps per-process files there (the event log n8nEventLog*.log, the
// crash journal). What they share is the database, Redis and the encryption key (credentials are
// stored encrypted in the database; a worker with another key cannot read them).
//
// The settings come from n8n 2.41's own config classes (@n8n/config dist/configs: executions,
// scaling-mode, database, multi-main-setup, runners) and the worker command (n8n/dist/commands/worker.js).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	DEMO_OWNER,
	createN8nHome,
	packPackage,
	type N8nHome,
	type N8nServer,
	type N8nWorker,
} from './n8n-env';
import {
	queueServicesMissing,
	startPostgres,
	startRedis,
	type Postgres,
	type Service,
} from './services';
import { seconds, step } from './steps';

export { queueServicesMissing };

export interface QueueClusterOptions {
	/** Worker processes (default 2). */
	workers?: number;
	/** Executions each worker runs at once (n8n's default 10). */
	concurrency?: number;
	/** More environment for every n8n process. */
	extraEnv?: Record<string, string>;
}

export interface QueueCluster {
	main: N8nServer;
	workers: N8nWorker[];
	/** The main instance's user folder: its CLI (import:…) works on the shared database. */
	mainHome: N8nHome;
	/** How long each phase of the start took, in seconds. */
	timings: Record<string, number>;
	stop(): Promise<void>;
}

/** The environment every process of the cluster shares: queue mode on this Postgres and Redis. */
function queueEnv(postgres: Postgres, redis: Service): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		// One main instance (multi-main needs a licence).
		N8N_MULTI_MAIN_SETUP_ENABLED: 'false',
		// Manual executions go to the workers too (n8n 3 will always do this).
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		// The workers' "Worker started execution N" lines tell which worker ran what.
		N8N_LOG_LEVEL: 'info',
	};
}

/**
 * Starts Postgres and Redis, then the main instance (it creates the database schema), signs in its
 * owner, then the workers. On any failure it stops what it had started and rethrows.
 */
export async function startQueueCluster(options: QueueClusterOptions = {}): Promise<QueueCluster> {
	const { workers: workerCount = 2, concurrency, extraEnv = {} } = options;
	const missing = queueServicesMissing();
	if (missing) throw new Error(`queue mode needs ${missing}`);
	const timings: Record<string, number> = {};
	const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
		const started = Date.now();
		const result = await step(name, work);
		timings[name] = Number(seconds(started));
		return result;
	};
	/** What to stop, in the order started; stopped in reverse, the slow ones each as a step. */
	const stops: Array<{ name?: string; stop: () => Promise<void> | void }> = [];
	/** Folders to remove, also when this process exits before stopAll (the servers are then killed). */
	const folders: string[] = [];
	const removeFolders = () => {
		for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
	};
	const stopAll = async () => {
		for (const { name, stop } of stops.splice(0).reverse()) {
			if (name) await step(`stop ${name}`, stop);
			else await stop();
		}
		removeFolders();
		process.off('exit', removeFolders);
		process.off('SIGINT', onSignal);
		process.off('SIGTERM', onSignal);
	};
	// Ctrl-C (or a CI timeout's SIGTERM) stops everything before this process ends: the servers run
	// in process groups of their own, which the terminal's signal does not reach. A second signal
	// ends this process at once (what is still running is then killed on exit).
	let stopping = false;
	function onSignal(signal: NodeJS.Signals): void {
		const code = signal === 'SIGINT' ? 130 : 143;
		if (stopping) process.exit(code);
		stopping = true;
		process.stdout.write(`\n${signal}: stopping the queue-mode cluster …\n`);
		void stopAll().finally(() => process.exit(code));
	}
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('exit', removeFolders);
	try {
		const [postgres, redis] = await timed('Postgres and Redis', () =>
			Promise.all([
				startPostgres().then(
					(service) => (stops.push({ name: 'Postgres', stop: service.stop }), service),
				),
				startRedis().then(
					(service) => (stops.push({ name: 'Redis', stop: service.stop }), service),
				),
			]),
		);
		const packDir = mkdtempSync(join(tmpdir(), 'lendasat-pack-'));
		folders.push(packDir);
		const tarball = await timed('npm pack', async () => packPackage(packDir));
		const encryptionKey = `lendasat-queue-${randomBytes(12).toString('hex')}`;
		const home = (): N8nHome => {
			const created = createN8nHome({
				tarball,
				encryptionKey,
				extraEnv: { ...queueEnv(postgres, redis), ...extraEnv },
			});
			folders.push(created.userFolder);
			return created;
		};
		const mainHome = home();
		const main = await timed('n8n main (n8n start, database schema)', async () => {
			const server = await mainHome.start();
			stops.push({ name: 'n8n main', stop: () => server.stop() });
			await server.setupOwner();
			return server;
		});
		// The workers stop together (each may take seconds to shut down), before the main instance.
		const workerStops: Array<() => Promise<void>> = [];
		stops.push({
			name: 'n8n workers',
			stop: async () => void (await Promise.all(workerStops.map((stop) => stop()))),
		});
		const workers = await timed(`${workerCount} n8n workers (n8n worker)`, () =>
			Promise.all(
				Array.from({ length: workerCount }, async () => {
					const worker = await home().startWorker({ concurrency });
					workerStops.push(() => worker.stop());
					return worker;
				}),
			),
		);
		return {
			main,
			workers,
			mainHome,
			timings,
			stop: stopAll,
		};
	} catch (error) {
		await stopAll();
		throw error;
	}
}

if (require.main === module) {
	const at = process.argv.indexOf('--workers');
	const workers = at >= 0 ? Number(process.argv[at + 1]) : 2;
	startQueueCluster({ workers })
		.then((cluster) => {
			process.stdout.write(
				`n8n in queue mode: ${cluster.main.url} (owner ${DEMO_OWNER.email}, password ${DEMO_OWNER.password}), ` +
					`${cluster.workers.length} workers (logs: ${cluster.workers.map((worker) => worker.logFile).join(', ')}). Ctrl-C stops it all.\n`,
			);
		})
		.catch((error: Error) => {
			process.stderr.write(`${error.message}\n`);
			process.exit(1);
		});
}
