/**
 * What a failed item keeps alive: one run of Contract → Get New Events over N borrowers (Input Item
 * Fields) against a server that answers 200 ms late, with one request slot and a short time budget,
 * so that nearly every borrower fails ("no request slot came free within the time budget"). It
 * prints the heap live after the run while its items are still held (after two full collections,
 * over the heap before it), how the items ended, and the requests the server got.
 *
 *   npm run build && node --expose-gc --import tsx dev/bench/failedItemsMemory.ts [--borrowers 2000] [--budget-ms 5000]
 *
 * Run it at two sizes (e.g. 500 and 2,000): the difference in live heap over the difference in
 * failed items is what one failed item keeps until the run's last item ends.
 */
import { runWorkflow } from '../harness/n8n';
import { onboardBorrowersInBulk } from '../sandbox/partner';
import { SandboxProcess } from './lib/processes';
import { nodePartnerPollWorkflow } from './lib/workflows';

const LATENCY_MS = 200;

function parseArgs(argv: string[]): { borrowers: number; budgetMs: number } {
	const options = { borrowers: 2000, budgetMs: 5000 };
	for (let index = 0; index < argv.length; index += 2) {
		const [flag, value] = [argv[index], Number(argv[index + 1])];
		if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${flag} takes a whole number`);
		if (flag === '--borrowers') options.borrowers = value;
		else if (flag === '--budget-ms') options.budgetMs = value;
		else throw new Error(`unknown flag ${flag}`);
	}
	return options;
}

function liveHeap(): number {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	gc();
	gc();
	return process.memoryUsage().heapUsed;
}

async function main(): Promise<void> {
	const { borrowers: count, budgetMs } = parseArgs(process.argv.slice(2));
	const sandbox = await SandboxProcess.start();
	try {
		const borrowers = await onboardBorrowersInBulk(sandbox.url, sandbox.keys.master, count, [
			{ status: 'PrincipalGiven' },
		]);
		await sandbox.configure({ latencyMs: LATENCY_MS });
		await sandbox.clearStats();
		const workflow = nodePartnerPollWorkflow('getNewEvents', 1, undefined, 'inputFields');
		(workflow.nodes[0].parameters as { options: Record<string, unknown> }).options.timeBudget =
			budgetMs;
		const before = liveHeap();
		const run = await runWorkflow(workflow, {
			credential: {
				environment: 'custom',
				baseUrl: sandbox.url,
				keyType: 'master',
				apiKey: sandbox.keys.master,
			},
			items: borrowers.map((borrower) => ({
				borrower_id: borrower.id,
				api_key: borrower.api_key,
				reported: null,
			})),
		});
		const items = run.output('Lendasat Borrower');
		const held = liveHeap() - before;
		const endings = new Map<string, number>();
		for (const item of items) {
			const ending = item.error ? item.error.message : 'checked';
			endings.set(ending, (endings.get(ending) ?? 0) + 1);
		}
		const stats = await sandbox.stats();
		console.log(
			`${count} borrowers, budget ${budgetMs} ms, one slot, ${LATENCY_MS} ms latency: ` +
				`${(held / 2 ** 20).toFixed(1)} MB live after the run with its items held, ` +
				`${stats.requests} requests sent`,
		);
		for (const [ending, number] of endings) console.log(`  ${number} × ${ending}`);
	} finally {
		await sandbox.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
