/**
 * One contender in a process of its own (forked by bench/run.ts with --expose-gc): it runs the jobs
 * it is sent, one at a time, and answers with the wall time, the items that succeeded and its memory.
 * The sandbox lives in another process, so none of its work or memory is counted here.
 */
import { runJob } from './lib/contenders';
import { measureMemory } from './lib/memory';
import { profiled } from './lib/profile';
import type { FromContender, Job, RunResult, ToContender } from './lib/types';

function send(message: FromContender): void {
	process.send?.(message);
}

async function run(job: Job): Promise<RunResult> {
	const { value, memory } = await measureMemory(async () => {
		const started = performance.now();
		const cpuBefore = process.cpuUsage();
		const outcome = await (job.profileFile
			? profiled(job.profileFile, () => runJob(job))
			: runJob(job));
		const cpu = process.cpuUsage(cpuBefore);
		return {
			outcome,
			wallMs: performance.now() - started,
			cpuMs: (cpu.user + cpu.system) / 1000,
		};
	});
	const { outcome, wallMs, cpuMs } = value;
	return {
		wallMs,
		cpuMs,
		succeeded: outcome.succeeded,
		error: outcome.error,
		bytesReceived: outcome.bytesReceived,
		stateBytes: outcome.stateBytes,
		memory,
	};
}

process.on('message', (message: ToContender) => {
	if (message.type === 'exit') process.exit(0);
	run(message.job).then(
		(result) => send({ type: 'result', result }),
		(error: unknown) =>
			send({
				type: 'failed',
				message: error instanceof Error ? (error.stack ?? error.message) : String(error),
			}),
	);
});

process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
