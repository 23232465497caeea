/**
 * The sandbox in a process of its own (forked by bench/run.ts), so that the contenders' figures hold
 * only their own CPU time and memory. Controlled over its HTTP admin surface; stops with its parent.
 */
import { startSandbox } from '../sandbox/server';

async function main(): Promise<void> {
	const sandbox = await startSandbox();
	process.send?.({ type: 'ready', url: sandbox.url, keys: sandbox.keys });
	process.on('disconnect', () => {
		sandbox.close().finally(() => process.exit(0));
	});
}

main().catch((error: unknown) => {
	console.error('bench sandbox: failed to start', error);
	process.exit(1);
});
