/**
 * What one partner poll (scenario 9's run without latency) costs per borrower, in this process:
 * the partner template's Contract → Get New Events (or Get Events, --operation getEvents) over
 * `borrowers` items, each a borrower table row never polled (acting with its own key, Borrower its
 * reference, Already Reported its empty memory), after `warmUps` runs over 500 other borrowers each
 * (every key of the measured run is new to the process). The sandbox runs in a process of its own,
 * so the figures are n8n's and the node's. It prints the CPU time per borrower, the peak of heap +
 * external (garbage included), RSS and the memory (`reported`) each borrower's row would store.
 *
 *   npm run build && node --expose-gc --import tsx dev/bench/partnerPollCost.ts
 *        [--borrowers 1000] [--warm-ups 2] [--operation getNewEvents|getEvents]
 *        [--events marginCall|quiet] [--profile file.cpuprofile] [--allocations file.heapprofile]
 *        [--mid-run-ms 5000 [--heap-snapshot file.heapsnapshot]]
 *        [--borrower-from parameters|inputFields|inputList] [--contender node|httpRequest] [--sealed]
 *        [--parallel 32]
 *
 * --sealed: every row holds its key sealed with the credential's Key Sealing Secret, as the partner
 * template's table does (sealed before the runs; the node opens one per borrower).
 * --borrower-from inputFields: the node reads each borrower's key, reference and memory from the
 * row's fields (Borrower From → Input Item Fields) instead of the three expressions; inputList: the
 * same fields of rows given in lists of PARTNER_LIST_SIZE (500), one list per input item (Borrower From → Input Item List).
 * --contender httpRequest: n8n's HTTP Request node instead, one GET of the contract list per borrower
 * with the row's key in a header expression, the answer not read (n8n's floor for one request).
 *
 * --profile writes a V8 CPU profile of the measured run and prints where its time goes.
 * --allocations writes a sampling heap profile of the measured run that keeps what major GCs collected
 * (garbage that lived long enough to reach the old space, whose growth sets the peak) and prints by
 * where it was allocated, per borrower.
 * --mid-run-ms collects the garbage that long into the measured run and prints the heap then live
 * (over the heap before the run, per borrower: what the run holds per item while it is under way);
 * with --heap-snapshot it also writes a heap snapshot of that moment (for Chrome DevTools' Memory tab).
 *
 * Instructions, repeatable where CPU time is not (a loaded machine): under valgrind's callgrind,
 * with instrumentation off until the measured run (--callgrind turns it on and dumps the run's
 * count; the sandbox's process is not traced):
 *
 *   valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p \
 *        node --expose-gc --import tsx dev/bench/partnerPollCost.ts --borrowers 300 --warm-ups 1 --callgrind
 *
 * The dump /tmp/cg.<pid>.1 holds the measured run ("totals:"); divided by the borrowers, it is
 * what one costs, the run's own fixed part included (about 1.4 M instructions of 12 at 300).
 * About 4 minutes for 300 borrowers; two runs of the same code differ by about 2 %.
 */
import { execFile } from 'node:child_process';
import { writeHeapSnapshot } from 'node:v8';
import { randomBytes } from 'node:crypto';

import { measureMemory } from './lib/memory';
import { mainThreadCpuMs } from './lib/threads';
import {
	allocationsProfiled,
	profiled,
	summarizeAllocations,
	summarizeProfile,
} from './lib/profile';
import { SandboxProcess } from './lib/processes';
import { PARTNER_QUIET_EVENTS } from './lib/scenarios';
import { isFailedBorrower, partnerPollStateBytes } from './lib/contenders';
import type { PartnerBorrowerFrom, PartnerOperation } from './lib/types';
import {
	httpRequestPartnerPollWorkflow,
	nodePartnerPollWorkflow,
	partnerPollInput,
	PARTNER_LIST_SIZE,
} from './lib/workflows';
import { runWorkflow } from '../harness/n8n';
import { sealKey } from '../../nodes/LendasatBorrower/encryption/sealedKeys';
import { onboardBorrowersInBulk, type OnboardedBorrower } from '../sandbox/partner';

interface Options {
	borrowers: number;
	warmUps: number;
	operation: PartnerOperation;
	borrowerFrom: PartnerBorrowerFrom;
	contender: 'node' | 'httpRequest';
	events?: string[];
	profile?: string;
	allocations?: string;
	/** How far into the measured run to measure the live heap (and write `heapSnapshot`). */
	midRunMs?: number;
	heapSnapshot?: string;
	/** The rows hold their keys sealed, the credential has the Key Sealing Secret. */
	sealed: boolean;
	/** Options → Max Parallel Requests (unset: the node's default). */
	parallel?: number;
	/** Running under callgrind with --instr-atstart=no: count the measured run's instructions only. */
	callgrind: boolean;
}

function parseArgs(argv: string[]): Options {
	const options: Options = {
		borrowers: 1000,
		warmUps: 2,
		operation: 'getNewEvents',
		borrowerFrom: 'parameters',
		contender: 'node',
		sealed: false,
		callgrind: false,
	};
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		if (flag === '--callgrind') {
			options.callgrind = true;
			continue;
		}
		if (flag === '--sealed') {
			options.sealed = true;
			continue;
		}
		const value = argv[++index];
		if (flag === '--borrowers') options.borrowers = Number(value);
		else if (flag === '--warm-ups') options.warmUps = Number(value);
		else if (flag === '--operation') {
			if (value !== 'getNewEvents' && value !== 'getEvents')
				throw new Error('--operation takes getNewEvents or getEvents');
			options.operation = value;
		} else if (flag === '--borrower-from') {
			if (value !== 'parameters' && value !== 'inputFields' && value !== 'inputList')
				throw new Error('--borrower-from takes parameters, inputFields or inputList');
			options.borrowerFrom = value;
		} else if (flag === '--contender') {
			if (value !== 'node' && value !== 'httpRequest')
				throw new Error('--contender takes node or httpRequest');
			options.contender = value;
		}
		// quiet: Events that none of the borrowers' contracts stands at, so that nothing is output.
		else if (flag === '--events')
			options.events = value === 'quiet' ? PARTNER_QUIET_EVENTS : value.split(',');
		else if (flag === '--profile') options.profile = value;
		else if (flag === '--allocations') options.allocations = value;
		else if (flag === '--parallel') options.parallel = Number(value);
		else if (flag === '--mid-run-ms') options.midRunMs = Number(value);
		else if (flag === '--heap-snapshot') options.heapSnapshot = value;
		else throw new Error(`unknown argument ${flag}`);
	}
	if (!Number.isSafeInteger(options.borrowers) || options.borrowers < 1)
		throw new Error('--borrowers needs a positive whole number');
	if (options.heapSnapshot && options.midRunMs === undefined)
		throw new Error('--heap-snapshot needs --mid-run-ms');
	return options;
}

const WARM_UP_BORROWERS = 500;

const BORROWER_FROM_NOTE: Record<PartnerBorrowerFrom, string> = {
	parameters: '',
	inputFields: ' (Borrower From: Input Item Fields)',
	inputList: ` (Borrower From: Input Item List, ${PARTNER_LIST_SIZE} per item)`,
};

function liveHeap(): number {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	gc();
	gc();
	const { heapUsed, external } = process.memoryUsage();
	return heapUsed + external;
}

/**
 * `midRunMs` into the run: the heap live then over `before`, printed per borrower, and a heap
 * snapshot if asked for. The collections and the snapshot stop the run meanwhile (their CPU time is
 * counted in the run's).
 */
function measureMidRun(options: Options, before: number): NodeJS.Timeout | undefined {
	if (options.midRunMs === undefined) return undefined;
	return setTimeout(() => {
		const growth = liveHeap() - before;
		console.log(
			`${options.midRunMs} ms into the run: ${(growth / 2 ** 20).toFixed(1)} MB live over the heap before it, ${(growth / options.borrowers / 1024).toFixed(2)} KB per borrower`,
		);
		if (options.heapSnapshot)
			console.log(`heap snapshot: ${writeHeapSnapshot(options.heapSnapshot)}`);
	}, options.midRunMs);
}

/** The Key Sealing Secret of --sealed (a bench's, of the length `openssl rand -hex 32` gives). */
const SEALING_SECRET = 'b3c1f0a2d4e5968778695a4b3c2d1e0f1a2b3c4d5e6f708192a3b4c5d6e7f809';

/** Tells the callgrind this process runs under to do something (callgrind_control, run beside the event loop). */
async function callgrind(command: string): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		execFile('callgrind_control', [command, String(process.pid)], (error) =>
			error ? reject(error) : resolve(),
		);
	});
}

async function poll(
	sandbox: SandboxProcess,
	borrowers: OnboardedBorrower[],
	options: Options,
): Promise<{ items: number; failed: number; stateBytes?: number }> {
	if (options.contender === 'httpRequest') return await pollWithHttpRequest(sandbox, borrowers);
	const run = await runWorkflow(
		nodePartnerPollWorkflow(
			options.operation,
			options.parallel,
			options.events,
			options.borrowerFrom,
		),
		{
			credential: {
				environment: 'custom',
				baseUrl: sandbox.url,
				keyType: 'master',
				apiKey: sandbox.keys.master,
				...(options.sealed && { sealingSecret: SEALING_SECRET }),
			},
			items: partnerPollInput(
				borrowers.map((borrower) => ({
					borrower_id: borrower.id,
					api_key: borrower.api_key,
					reported: null,
				})),
				options.borrowerFrom,
			),
		},
	);
	if (run.error) throw new Error(run.error.message);
	const items = run.output('Lendasat Borrower');
	const failed = items.filter(isFailedBorrower).length;
	return {
		items: items.length - failed,
		failed,
		stateBytes: partnerPollStateBytes(options.operation, items),
	};
}

async function pollWithHttpRequest(
	sandbox: SandboxProcess,
	borrowers: OnboardedBorrower[],
): Promise<{ items: number; failed: number }> {
	const { loadHttpRequestNode } = await import('./lib/httpRequestNode');
	const run = await runWorkflow(httpRequestPartnerPollWorkflow(sandbox.url), {
		// The harness gives a credential only to our node; the HTTP Request node sends the key as a header.
		credential: { apiKey: sandbox.keys.master },
		items: borrowers.map((borrower) => ({
			borrower_id: borrower.id,
			api_key: borrower.api_key,
			reported: null,
		})),
		extraNodeTypes: loadHttpRequestNode(),
	});
	if (run.error) throw new Error(run.error.message);
	const items = run.output('HTTP Request');
	const failed = items.filter((item) => item.error).length;
	return { items: items.length - failed, failed };
}

async function main(): Promise<void> {
	const options = parseArgs(process.argv.slice(2));
	const sandbox = await SandboxProcess.start();
	try {
		const plain = await onboardBorrowersInBulk(
			sandbox.url,
			sandbox.keys.master,
			options.warmUps * WARM_UP_BORROWERS + options.borrowers,
			[{ status: 'PrincipalGiven' }],
		);
		const onboarded = options.sealed
			? plain.map((borrower) => ({
					...borrower,
					api_key: sealKey(borrower.api_key, SEALING_SECRET, randomBytes),
				}))
			: plain;
		for (let warmUp = 0; warmUp < options.warmUps; warmUp++) {
			const borrowers = onboarded.slice(
				warmUp * WARM_UP_BORROWERS,
				(warmUp + 1) * WARM_UP_BORROWERS,
			);
			await poll(sandbox, borrowers, options);
		}
		const measured = onboarded.slice(options.warmUps * WARM_UP_BORROWERS);
		const heapBefore = options.midRunMs === undefined ? 0 : liveHeap();
		const { value, memory } = await measureMemory(async () => {
			const midRun = measureMidRun(options, heapBefore);
			const started = performance.now();
			const before = process.cpuUsage();
			const mainBefore = mainThreadCpuMs();
			const work = () => poll(sandbox, measured, options);
			if (options.callgrind) {
				await callgrind('--instr=on');
				await callgrind('--zero');
			}
			const outcome = await (options.profile
				? profiled(options.profile, work)
				: options.allocations
					? allocationsProfiled(options.allocations, work)
					: work());
			if (options.callgrind) {
				await callgrind('--dump=measured');
				await callgrind('--instr=off');
			}
			const cpu = process.cpuUsage(before);
			const mainAfter = mainThreadCpuMs();
			clearTimeout(midRun);
			return {
				outcome,
				wallMs: performance.now() - started,
				cpuMs: (cpu.user + cpu.system) / 1000,
				mainThreadMs:
					mainBefore !== undefined && mainAfter !== undefined ? mainAfter - mainBefore : undefined,
			};
		});
		const { outcome, wallMs, cpuMs, mainThreadMs } = value;
		const n = options.borrowers;
		console.log(
			`${options.contender === 'httpRequest' ? 'HTTP Request GET' : options.operation}${options.contender === 'node' ? BORROWER_FROM_NOTE[options.borrowerFrom] : ''}${options.sealed ? ', keys sealed' : ''} × ${n} borrowers${options.events ? `, Events: ${options.events.join(', ')}` : ''}: ${outcome.items} items, ${outcome.failed} failed; ` +
				`${(wallMs / 1000).toFixed(2)} s, CPU ${(cpuMs / n).toFixed(3)} ms per borrower` +
				(mainThreadMs === undefined
					? '; '
					: ` (main thread ${(mainThreadMs / n).toFixed(3)} ms, V8's and libuv's threads ${((cpuMs - mainThreadMs) / n).toFixed(3)} ms); `) +
				`heap + external peak ${(memory.peakGrowth / 2 ** 20).toFixed(1)} MB (${(memory.peakGrowth / n / 1024).toFixed(1)} KB per borrower), kept ${(memory.retained / 2 ** 20).toFixed(1)} MB; peak RSS ${(memory.peakRss / 2 ** 20).toFixed(0)} MB` +
				(outcome.stateBytes === undefined
					? ''
					: `; memory to store ${(outcome.stateBytes / n).toFixed(1)} B per borrower`),
		);
		const operationLabel = `Contract → ${options.operation === 'getEvents' ? 'Get Events' : 'Get New Events'}`;
		if (options.profile)
			console.log(
				summarizeProfile(options.profile, `CPU profile: ${operationLabel} × ${n} borrowers, warm`),
			);
		if (options.allocations)
			console.log(
				summarizeAllocations(
					options.allocations,
					`Allocations that lived to the old space: ${operationLabel} × ${n} borrowers`,
					n,
				),
			);
	} finally {
		await sandbox.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
