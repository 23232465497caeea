/**
 * The scenarios of the bench (see bench/run.ts). Each contender runs in a process of its own, warmed up once (JIT,
 * n8n-core and the package loaded) before any measured run; the sandbox is reset before every run.
 * Repetitions are interleaved across contenders, so that a slow moment of the machine hits all of them.
 */
import { randomUUID } from 'node:crypto';

import { DEFAULT_MAX_CONCURRENT } from '../../../nodes/LendasatBorrower/transport/settings';
import type { SandboxConfig, SandboxStats } from '../../sandbox/types';
import { onboardBorrowersInBulk, type OnboardedBorrower } from '../../sandbox/partner';
import { ContenderProcess, type SandboxProcess } from './processes';
import { countLooks } from './requests';
import type {
	ContenderName,
	CreateJob,
	HttpRequestVariant,
	Job,
	LiveTarget,
	PartnerListedBorrowers,
	PartnerOperation,
	RunResult,
} from './types';

export interface Settings {
	reps: number;
	/** Repetitions of the rate-limited scenario (≥ 100 s per run). */
	slowReps: number;
	/** Items of the rate-limited scenario; its floor is items / 10 s. */
	rateLimitedItems: number;
	/** Also run the HTTP Request node with Batching set to the limit (another ≥ 100 s per run). */
	tunedBatching: boolean;
	/** Items of the latency scenario (1 s per request). */
	latencyItems: number;
	sizes: number[];
	/** Scenario 8 also runs a storm that outlasts the time budget (about 3 minutes). */
	endlessStorm: boolean;
	/** Scenario 9: the borrowers of one poll, one set of runs for each. */
	partnerBorrowers: number[];
	/** Scenario 9: the Max Parallel Requests of its polls at the latency. */
	partnerParallel: number[];
	log: (line: string) => void;
}

/** One measured repetition: the contender's figures and the sandbox's counters after it. */
export interface Measurement {
	result: RunResult;
	stats: SandboxStats;
}

export interface ContenderSpec {
	/** As shown in the table. */
	label: string;
	contender: ContenderName;
	httpRequest?: HttpRequestVariant;
	/** Our node's Options → Max Parallel Requests (unset: its default). */
	maxConcurrent?: number;
}

export interface ScenarioResult {
	contender: ContenderSpec;
	items: number;
	runs: Measurement[];
}

const WARM_UP_ITEMS = 200;

export const FLOOR: ContenderSpec = { label: '(a) fetch loop (the floor)', contender: 'fetch' };
const FETCH_NO_RETRIES: ContenderSpec = { label: 'fetch loop, no retries', contender: 'fetch' };
export const OUR_NODE: ContenderSpec = {
	label: `(b) Lendasat node, default settings (${DEFAULT_MAX_CONCURRENT} parallel)`,
	contender: 'node',
};
/** The values of Max Parallel Requests the bench compares (scenarios 1 and 5). */
export const MAX_CONCURRENT_CHOICES = [16, 32, 64];
function ourNodeWith(maxConcurrent: number): ContenderSpec {
	return maxConcurrent === DEFAULT_MAX_CONCURRENT
		? OUR_NODE
		: {
				label: `Lendasat node, Max Parallel Requests ${maxConcurrent}`,
				contender: 'node',
				maxConcurrent,
			};
}
/** Our node with the other choices of Max Parallel Requests than its default. */
export const OUR_NODE_VARIANTS: ContenderSpec[] = MAX_CONCURRENT_CHOICES.filter(
	(value) => value !== DEFAULT_MAX_CONCURRENT,
).map(ourNodeWith);
const SAME_REQUESTS: HttpRequestVariant = { idempotencyKey: true, retryOnFail: false };
export const HTTP_REQUEST: ContenderSpec = {
	label: '(c) HTTP Request node',
	contender: 'httpRequest',
	httpRequest: SAME_REQUESTS,
};
const HTTP_RETRY: ContenderSpec = {
	label: 'HTTP Request, Retry On Fail max',
	contender: 'httpRequest',
	httpRequest: { idempotencyKey: false, retryOnFail: true },
};
const HTTP_RETRY_KEYED: ContenderSpec = {
	label: 'HTTP Request, Retry On Fail max, Idempotency-Key',
	contender: 'httpRequest',
	httpRequest: { idempotencyKey: true, retryOnFail: true },
};
const HTTP_BATCHED: ContenderSpec = {
	label: 'HTTP Request, same + Batching 10 per 1 s',
	contender: 'httpRequest',
	httpRequest: {
		idempotencyKey: true,
		retryOnFail: true,
		batching: { size: 10, intervalMs: 1000 },
	},
};

export const RATE_LIMIT_PER_SECOND = 10;
const OVERHEAD_CONFIG: Partial<SandboxConfig> = { idempotency: true };
/** Scenario 5: every API answer 1 s late, as over a slow network to a far server. */
export const LATENCY_MS = 1000;
const LATENCY_CONFIG: Partial<SandboxConfig> = { idempotency: true, latencyMs: LATENCY_MS };
const RATE_LIMITED_CONFIG: Partial<SandboxConfig> = {
	idempotency: true,
	rateLimit: { requestsPerSecond: RATE_LIMIT_PER_SECOND },
};
const FAULT_CONFIG: Partial<SandboxConfig> = {
	idempotency: true,
	faults: [
		{ kind: '503', method: 'POST', path: '/api/contracts', probability: 0.025 },
		{ kind: 'reset', method: 'POST', path: '/api/contracts', probability: 0.025, after: true },
	],
};
/**
 * Scenario 3 against the live dialect (Lendasat's backend: no Idempotency-Key), both faults after the
 * contract was stored: every fault is ambiguous, and re-sending blindly creates a second contract.
 */
const LIVE_FAULT_CONFIG: Partial<SandboxConfig> = {
	dialect: 'live',
	faults: [
		{ kind: '503', method: 'POST', path: '/api/contracts', probability: 0.025, after: true },
		{ kind: 'reset', method: 'POST', path: '/api/contracts', probability: 0.025, after: true },
	],
};
/** The live dialect takes each contract's amount off the offer's max: every live run adds its own offer. */
const LIVE_OFFER = { loan_amount_min: 1, loan_amount_max: 1e12 };
/** The request our node makes to find a contract by its client_contract_id (the sandbox's byRoute key). */
export const LOOKUP_ROUTE = 'GET /api/contracts';
export const LIST_SIZE = 10_000;

function createJob(
	spec: ContenderSpec,
	items: number,
	sandbox: SandboxProcess,
	live?: LiveTarget,
	extra: Pick<CreateJob, 'firstItem'> = {},
): Job {
	const job: CreateJob = {
		kind: 'create',
		contender: spec.contender,
		items,
		runId: randomUUID(),
		httpRequest: spec.httpRequest,
		live,
		maxConcurrent: spec.maxConcurrent,
		...extra,
	};
	return { ...job, target: { url: sandbox.url, apiKey: sandbox.keys.borrower } };
}

/** Resets the sandbox to `config`; in the live dialect also adds the run's offer and says which. */
async function resetFor(
	sandbox: SandboxProcess,
	config: Partial<SandboxConfig>,
): Promise<LiveTarget | undefined> {
	await sandbox.reset(config);
	return config.dialect === 'live' ? { offerId: await sandbox.addOffer(LIVE_OFFER) } : undefined;
}

/**
 * Our node's rate gate takes what the server accepted in the last second as its first guess of the
 * limit; a warm-up's unlimited successes would count. A real workflow does not start one second
 * after 200 unlimited requests, so the measured run starts after a quiet moment.
 */
const QUIET_AFTER_WARM_UP_MS = 1500;

/** A fresh contender process, warmed up on the dialect of `config` (without its faults or limits). */
async function startWarm(
	sandbox: SandboxProcess,
	spec: ContenderSpec,
	config: Partial<SandboxConfig>,
): Promise<ContenderProcess> {
	const contender = await ContenderProcess.start();
	const live = await resetFor(sandbox, config.dialect ? { dialect: config.dialect } : {});
	await contender.run(warmUpCreate(spec, sandbox, live));
	await new Promise((resolve) => setTimeout(resolve, QUIET_AFTER_WARM_UP_MS));
	return contender;
}

function warmUpCreate(spec: ContenderSpec, sandbox: SandboxProcess, live?: LiveTarget): Job {
	// Without retries or batching: the warm-up only loads and compiles the code.
	return createJob(
		{ ...spec, httpRequest: spec.httpRequest && SAME_REQUESTS },
		WARM_UP_ITEMS,
		sandbox,
		live,
	);
}

async function measure(
	contender: ContenderProcess,
	sandbox: SandboxProcess,
	job: Job,
	config: Partial<SandboxConfig>,
	seeded = false,
): Promise<Measurement> {
	if (!seeded) await sandbox.reset(config);
	const result = await contender.run(job);
	return { result, stats: await sandbox.stats() };
}

function describe(spec: ContenderSpec, items: number, { result, stats }: Measurement): string {
	const error = result.error ? `, error: ${result.error.slice(0, 80)}` : '';
	const lookups = stats.byRoute[LOOKUP_ROUTE] ? `, ${stats.byRoute[LOOKUP_ROUTE]} lookups` : '';
	return `${spec.label} × ${items}: ${(result.wallMs / 1000).toFixed(2)} s, ${result.succeeded} succeeded, ${stats.contractsCreated} created, ${stats.duplicateContracts} duplicates${lookups}${error}`;
}

/**
 * Scenarios 1 and 6: the same three contenders at each size, one warm process each; at 1,000 items
 * (scenario 1) also our node with the other choices of Max Parallel Requests.
 */
export async function overhead(
	sandbox: SandboxProcess,
	settings: Settings,
): Promise<ScenarioResult[]> {
	const specs = [FLOOR, OUR_NODE, HTTP_REQUEST, ...OUR_NODE_VARIANTS];
	const variantAt = (spec: ContenderSpec, items: number) =>
		!OUR_NODE_VARIANTS.includes(spec) || items === 1000;
	const processes = await Promise.all(specs.map(() => ContenderProcess.start()));
	try {
		for (const [index, spec] of specs.entries()) {
			await sandbox.reset();
			await processes[index].run(warmUpCreate(spec, sandbox));
		}
		const results: ScenarioResult[] = [];
		for (const items of settings.sizes) {
			const bySpec = specs.map((contender) => ({ contender, items, runs: [] as Measurement[] }));
			for (let rep = 1; rep <= settings.reps; rep++) {
				for (const [index, spec] of specs.entries()) {
					if (!variantAt(spec, items)) continue;
					const measurement = await measure(
						processes[index],
						sandbox,
						createJob(spec, items, sandbox),
						OVERHEAD_CONFIG,
					);
					bySpec[index].runs.push(measurement);
					settings.log(
						`overhead rep ${rep}/${settings.reps}: ${describe(spec, items, measurement)}`,
					);
				}
			}
			results.push(...bySpec.filter((result) => result.runs.length));
		}
		return results;
	} finally {
		await Promise.all(processes.map((contender) => contender.close()));
	}
}

/**
 * Runs each contender in a fresh process per repetition: our node's rate gate learns the limit once
 * per process, and a second run would start with what the first one learned.
 */
async function freshProcessEach(
	sandbox: SandboxProcess,
	specs: ContenderSpec[],
	items: number,
	reps: number,
	config: Partial<SandboxConfig>,
	settings: Settings,
	name: string,
): Promise<ScenarioResult[]> {
	const results = specs.map((contender) => ({ contender, items, runs: [] as Measurement[] }));
	for (let rep = 1; rep <= reps; rep++) {
		for (const [index, spec] of specs.entries()) {
			const contender = await startWarm(sandbox, spec, config);
			try {
				const live = await resetFor(sandbox, config);
				const measurement = await measure(
					contender,
					sandbox,
					createJob(spec, items, sandbox, live),
					config,
					true,
				);
				results[index].runs.push(measurement);
				settings.log(`${name} rep ${rep}/${reps}: ${describe(spec, items, measurement)}`);
			} finally {
				await contender.close();
			}
		}
	}
	return results;
}

/** Scenario 2: a limit of 10 requests per second. */
export function rateLimited(
	sandbox: SandboxProcess,
	settings: Settings,
): Promise<ScenarioResult[]> {
	const specs = [
		OUR_NODE,
		HTTP_RETRY,
		HTTP_RETRY_KEYED,
		...(settings.tunedBatching ? [HTTP_BATCHED] : []),
	];
	return freshProcessEach(
		sandbox,
		specs,
		settings.rateLimitedItems,
		settings.slowReps,
		RATE_LIMITED_CONFIG,
		settings,
		'rate limited',
	);
}

/** Scenario 3: 2.5 % of contract requests answered 503, 2.5 % processed and then reset. */
export function faults(sandbox: SandboxProcess, settings: Settings): Promise<ScenarioResult[]> {
	return freshProcessEach(
		sandbox,
		[OUR_NODE, HTTP_RETRY, HTTP_RETRY_KEYED],
		1000,
		settings.reps,
		FAULT_CONFIG,
		settings,
		'faults',
	);
}

/**
 * Scenario 3 in the live dialect: 2.5 % of contract requests answered 503 and 2.5 % reset, both
 * after the contract was stored, and no Idempotency-Key support. Every contender sends the live body
 * to an offer of the run's own; only our node sends a client_contract_id and looks for it.
 */
export function liveFaults(sandbox: SandboxProcess, settings: Settings): Promise<ScenarioResult[]> {
	const specs = [FETCH_NO_RETRIES, OUR_NODE, HTTP_RETRY, HTTP_RETRY_KEYED];
	return freshProcessEach(
		sandbox,
		specs,
		1000,
		settings.reps,
		LIVE_FAULT_CONFIG,
		settings,
		'faults (live)',
	);
}

/** Scenario 4: Contract → Get Many with Return All over 10,000 contracts, against the raw loop. */
export async function returnAll(
	sandbox: SandboxProcess,
	settings: Settings,
): Promise<ScenarioResult[]> {
	const specs: ContenderSpec[] = [
		{ label: 'raw paginating fetch loop', contender: 'fetch' },
		{ label: 'Lendasat node, Return All', contender: 'node' },
	];
	await sandbox.reset();
	await sandbox.seedContracts(LIST_SIZE);
	const target = { url: sandbox.url, apiKey: sandbox.keys.borrower };
	const jobs = specs.map(
		(spec): Job => ({ kind: 'list', contender: spec.contender as 'fetch' | 'node', target }),
	);
	const processes = await Promise.all(specs.map(() => ContenderProcess.start()));
	try {
		for (const [index, contender] of processes.entries()) await contender.run(jobs[index]);
		const results = specs.map((contender) => ({
			contender,
			items: LIST_SIZE,
			runs: [] as Measurement[],
		}));
		for (let rep = 1; rep <= settings.reps; rep++) {
			for (const [index, spec] of specs.entries()) {
				const measurement = await measure(processes[index], sandbox, jobs[index], {}, true);
				results[index].runs.push(measurement);
				settings.log(
					`return all rep ${rep}/${settings.reps}: ${spec.label}: ${(measurement.result.wallMs / 1000).toFixed(2)} s, ${measurement.result.succeeded} items`,
				);
			}
		}
		return results;
	} finally {
		await Promise.all(processes.map((contender) => contender.close()));
	}
}

/**
 * Scenario 5: every answer 1 s late, 2,000 Contract → Create items. The fetch loop sends them all at
 * once (a socket each); our node holds at most Max Parallel Requests connections of the key, so its
 * wall time is at least items / that × 1 s. One warm process per contender, warmed up without latency.
 */
export async function latency(
	sandbox: SandboxProcess,
	settings: Settings,
): Promise<ScenarioResult[]> {
	const specs: ContenderSpec[] = [
		{ label: '(a) fetch loop, unbounded concurrency', contender: 'fetch' },
		...MAX_CONCURRENT_CHOICES.map(ourNodeWith),
	];
	const items = settings.latencyItems;
	const processes = await Promise.all(specs.map(() => ContenderProcess.start()));
	try {
		for (const [index, spec] of specs.entries()) {
			await sandbox.reset();
			await processes[index].run(warmUpCreate(spec, sandbox));
		}
		const results = specs.map((contender) => ({ contender, items, runs: [] as Measurement[] }));
		for (let rep = 1; rep <= settings.slowReps; rep++) {
			for (const [index, spec] of specs.entries()) {
				await sandbox.quiet();
				const measurement = await measure(
					processes[index],
					sandbox,
					createJob(spec, items, sandbox),
					LATENCY_CONFIG,
				);
				results[index].runs.push(measurement);
				settings.log(
					`latency rep ${rep}/${settings.slowReps}: ${describe(spec, items, measurement)}, peak ${measurement.stats.peakConnections} connections`,
				);
			}
		}
		return results;
	} finally {
		await Promise.all(processes.map((contender) => contender.close()));
	}
}

/** Scenario 7: how many processes share the key (each its own n8n, as queue-mode workers are). */
export const SHARED_KEY_PROCESSES = [1, 2, 4];
export const SHARED_KEY_ITEMS = 1000;

/** One run of scenario 7: the processes' figures side by side, and the sandbox's after all of them. */
export interface SharedKeyRun extends Measurement {
	processes: RunResult[];
	/** GET /api/contracts after the last POST /api/contracts: the look after creating, in all. */
	looksAfterLastCreate: number;
}

export interface SharedKeyResult {
	processes: number;
	items: number;
	runs: SharedKeyRun[];
}

/**
 * Scenario 7: `SHARED_KEY_ITEMS` Contract → Create in all, split evenly over N fresh contender
 * processes that share one borrower key against one sandbox at 10 requests per second, all started
 * at once, with default settings (the automatic Idempotency Key: nothing but the pacing is
 * measured). The time is the orchestrator's, from sending the jobs to the last answer.
 */
export async function sharedKey(
	sandbox: SandboxProcess,
	settings: Settings,
): Promise<SharedKeyResult[]> {
	const results: SharedKeyResult[] = [];
	for (const count of SHARED_KEY_PROCESSES) {
		const result: SharedKeyResult = { processes: count, items: SHARED_KEY_ITEMS, runs: [] };
		for (let rep = 1; rep <= settings.slowReps; rep++) {
			const contenders: ContenderProcess[] = [];
			try {
				for (let index = 0; index < count; index++)
					contenders.push(await startWarm(sandbox, OUR_NODE, {}));
				await sandbox.reset(RATE_LIMITED_CONFIG);
				const run = await runTogether(sandbox, contenders, SHARED_KEY_ITEMS);
				result.runs.push(run);
				settings.log(
					`shared key rep ${rep}/${settings.slowReps}: ${count} process${count > 1 ? 'es' : ''} × ${SHARED_KEY_ITEMS / count}: ${(run.result.wallMs / 1000).toFixed(2)} s, ${run.result.succeeded} succeeded, ${run.stats.byStatus['429'] ?? 0} answers 429, ${run.stats.duplicateContracts} duplicates, each ${run.processes.map((each) => `${(each.wallMs / 1000).toFixed(1)} s`).join(' / ')}${run.result.error ? `, error: ${run.result.error.slice(0, 80)}` : ''}`,
				);
			} finally {
				await Promise.all(contenders.map((contender) => contender.close()));
			}
		}
		results.push(result);
	}
	return results;
}

/** Starts one share of `items` on each contender at once; the wall time runs until the last is done. */
async function runTogether(
	sandbox: SandboxProcess,
	contenders: ContenderProcess[],
	items: number,
): Promise<SharedKeyRun> {
	const share = Math.ceil(items / contenders.length);
	const started = performance.now();
	const processes = await Promise.all(
		contenders.map((contender, index) =>
			contender.run(
				createJob(OUR_NODE, Math.min(share, items - index * share), sandbox, undefined, {
					firstItem: index * share,
				}),
			),
		),
	);
	const wallMs = performance.now() - started;
	const stats = await sandbox.stats();
	const result: RunResult = {
		wallMs,
		cpuMs: processes.reduce((sum, each) => sum + each.cpuMs, 0),
		succeeded: processes.reduce((sum, each) => sum + each.succeeded, 0),
		error: processes.find((each) => each.error)?.error,
		memory: {
			peakGrowth: Math.max(...processes.map((each) => each.memory.peakGrowth)),
			retained: Math.max(...processes.map((each) => each.memory.retained)),
			peakRss: Math.max(...processes.map((each) => each.memory.peakRss)),
		},
	};
	return {
		result,
		stats,
		processes,
		looksAfterLastCreate: countLooks(await sandbox.requests()).afterLastCreate,
	};
}

/** Scenario 8: a storm of this long (every request answered 429), then the limit of scenario 2. */
export const STORM_MS = 20_000;
export const STORM_ITEMS = [130, 300];
/** Scenario 8's storm that does not end within the run: every request's time budget runs out. */
export const ENDLESS_STORM_ITEMS = 200;

export interface StormResult extends ScenarioResult {
	/** How long the server answered only 429; Infinity: for longer than the run. */
	stormMs: number;
}

/**
 * Scenario 8: our node in a fresh process, warmed up, against a sandbox that answers only 429 for
 * `STORM_MS` from the moment the run starts and then accepts 10 requests per second; and once
 * against a storm that outlasts every request's time budget (the node's default of 180 s).
 */
export async function storm(sandbox: SandboxProcess, settings: Settings): Promise<StormResult[]> {
	const cases = [
		...STORM_ITEMS.map((items) => ({ items, stormMs: STORM_MS })),
		...(settings.endlessStorm ? [{ items: ENDLESS_STORM_ITEMS, stormMs: Infinity }] : []),
	];
	const results: StormResult[] = [];
	for (const { items, stormMs } of cases) {
		const result: StormResult = { contender: OUR_NODE, items, stormMs, runs: [] };
		for (let rep = 1; rep <= settings.slowReps; rep++) {
			const contender = await startWarm(sandbox, OUR_NODE, {});
			try {
				const job = createJob(OUR_NODE, items, sandbox);
				const until = Date.now() + (stormMs === Infinity ? 3_600_000 : stormMs);
				await sandbox.reset({
					...RATE_LIMITED_CONFIG,
					rateLimit: { requestsPerSecond: RATE_LIMIT_PER_SECOND, stormUntilMs: until },
				});
				const measurement = await measure(contender, sandbox, job, {}, true);
				result.runs.push(measurement);
				settings.log(
					`storm ${stormMs === Infinity ? 'without end' : `${stormMs / 1000} s`} rep ${rep}/${settings.slowReps}: ${describe(OUR_NODE, items, measurement)}, ${measurement.stats.byStatus['429'] ?? 0} answers 429`,
				);
			} finally {
				await contender.close();
			}
		}
		results.push(result);
	}
	return results;
}

/** Scenario 9's defaults: the borrowers of one poll, each with a key of its own, and the server's latency. */
export const PARTNER_BORROWERS = [500];
export const PARTNER_LATENCY_MS = 200;
/** Requests per borrower in one poll: each has one contract, so its list is one page. */
export const PARTNER_REQUESTS_PER_BORROWER = 1;
/** Borrowers of the unmeasured runs that load and compile the code in each fresh process. */
const PARTNER_WARM_UP_BORROWERS = 500;
/**
 * How often each fresh process polls the warm-up borrowers before the measured run, as a worker on a
 * five-minute schedule has polled many times before (partnerPollCost at 500, within one hour: 2.3 ms
 * of CPU per borrower after 2 warm-up runs, 1.7 ms after 10).
 */
const PARTNER_WARM_UP_RUNS = 10;
/**
 * Events the bench's borrowers stand at none of (each has one Healthy PrincipalGiven contract): the
 * run reads and checks every answer as always, and outputs nothing, which leaves the floor of what
 * a borrower costs in memory, apart from the items a poll gives.
 */
export const PARTNER_QUIET_EVENTS = ['marginCall'];
/**
 * The heap cap of one more run of Input Item List at the highest Max Parallel Requests. Without a
 * cap, V8 sizes its heap limit from the machine's memory (4 GB here) and then lets the old space
 * grow to about 4 × what the last full GC kept before it collects again; under a cap it collects
 * sooner. The run shows how much of the peak RSS is garbage V8 chose to keep.
 */
export const PARTNER_HEAP_LIMIT_MB = 1024;

/** One kind of run of scenario 9. */
export interface PartnerRunSpec {
	label: string;
	/** Get New Events (the partner template's node), or Get Events (its CPU part only, for comparison). */
	operation: PartnerOperation;
	/** A borrower per input item (the template's form), or lists of them (Input Item List). */
	borrowerFrom: PartnerListedBorrowers;
	/** `poll`: at the latency; `cpuPart`: the same without latency; `quietOutput`: without latency, nothing output. */
	kind: 'poll' | 'cpuPart' | 'quietOutput';
	/** Options → Max Parallel Requests (unset: the node's default). */
	maxConcurrent?: number;
	latencyMs: number;
	/** The node's Events (unset: every event). */
	events?: string[];
	/** The contender's V8 old space capped at this many MB (`--max-old-space-size`; unset: V8's default). */
	heapLimitMb?: number;
}

export interface PartnerPollResult {
	borrowers: number;
	spec: PartnerRunSpec;
	runs: Measurement[];
}

/** How scenario 9's labels name each form. */
const PARTNER_FORM_LABELS: Record<PartnerListedBorrowers, string> = {
	inputFields: 'Input Item Fields',
	inputList: 'Input Item List',
};

/**
 * The runs of scenario 9 for one number of borrowers, for each Borrower From that reads the rows
 * as they are (Input Item Fields: a borrower per item, the template's; Input Item List: lists of
 * them): Get New Events at each Max Parallel Requests, its CPU part and its floor, then Get Events'
 * CPU part beside it.
 */
export function partnerRunSpecs(parallel: number[]): PartnerRunSpec[] {
	return (['inputFields', 'inputList'] as const).flatMap((borrowerFrom): PartnerRunSpec[] => {
		const form = PARTNER_FORM_LABELS[borrowerFrom];
		const most = Math.max(...parallel);
		const capped: PartnerRunSpec[] =
			borrowerFrom === 'inputList'
				? [
						{
							label: `${form}: Get New Events, Max Parallel Requests ${most}, --max-old-space-size=${PARTNER_HEAP_LIMIT_MB}`,
							operation: 'getNewEvents',
							borrowerFrom,
							kind: 'poll',
							maxConcurrent: most,
							latencyMs: PARTNER_LATENCY_MS,
							heapLimitMb: PARTNER_HEAP_LIMIT_MB,
						},
					]
				: [];
		return [
			...parallel.map(
				(maxConcurrent): PartnerRunSpec => ({
					label: `${form}: Get New Events, Max Parallel Requests ${maxConcurrent}${maxConcurrent === DEFAULT_MAX_CONCURRENT ? ' (default)' : ''}`,
					operation: 'getNewEvents',
					borrowerFrom,
					kind: 'poll',
					maxConcurrent,
					latencyMs: PARTNER_LATENCY_MS,
				}),
			),
			...capped,
			{
				label: `${form}: Get New Events, no latency (the CPU part)`,
				operation: 'getNewEvents',
				borrowerFrom,
				kind: 'cpuPart',
				latencyMs: 0,
			},
			{
				label: `${form}: Get New Events, no latency, Events: ${PARTNER_QUIET_EVENTS.join(', ')} (no event stands)`,
				operation: 'getNewEvents',
				borrowerFrom,
				kind: 'quietOutput',
				latencyMs: 0,
				events: PARTNER_QUIET_EVENTS,
			},
			{
				label: `${form}: Get Events, no latency (the CPU part)`,
				operation: 'getEvents',
				borrowerFrom,
				kind: 'cpuPart',
				latencyMs: 0,
			},
		];
	});
}

function partnerPollJob(
	sandbox: SandboxProcess,
	borrowers: OnboardedBorrower[],
	spec: PartnerRunSpec,
): Job {
	return {
		kind: 'partnerPoll',
		contender: 'node',
		operation: spec.operation,
		borrowers: borrowers.map((borrower) => ({
			borrower_id: borrower.id,
			api_key: borrower.api_key,
		})),
		maxConcurrent: spec.maxConcurrent,
		events: spec.events,
		borrowerFrom: spec.borrowerFrom,
		target: { url: sandbox.url, apiKey: sandbox.keys.master },
	};
}

/**
 * Scenario 9: one run of Contract → Get New Events over N items, each acting as a borrower of its
 * own with its row's memory (the partner template's Lendasat node, at a borrower's first poll: every
 * event that stands is new), for each N of `partnerBorrowers`: against a server that
 * answers every request `PARTNER_LATENCY_MS` late at each Max Parallel Requests of
 * `partnerParallel`, and twice without the latency: with every event (the CPU part, the time the
 * node and n8n spend on the items) and with Events that give nothing (the floor, in CPU and memory,
 * of a borrower apart from its output). The borrowers (N, and 500 more for the warm-up) are
 * onboarded once per N, in bulk (the sandbox's benchmark-only admin route). Every run is a fresh
 * contender process, warmed up by 10 runs over the other 500 borrowers: every key of the measured
 * run is new to the process, as at a worker's first poll, its peak RSS is that run's alone, and the
 * stats cleared before it are its own.
 */
export async function partnerPoll(
	sandbox: SandboxProcess,
	settings: Settings,
): Promise<PartnerPollResult[]> {
	const results: PartnerPollResult[] = [];
	for (const count of settings.partnerBorrowers) {
		await sandbox.reset();
		const started = performance.now();
		const onboarded = await onboardBorrowersInBulk(
			sandbox.url,
			sandbox.keys.master,
			count + PARTNER_WARM_UP_BORROWERS,
			[{ status: 'PrincipalGiven' }],
		);
		settings.log(
			`partner poll: ${onboarded.length.toLocaleString('en-US')} borrowers onboarded in bulk in ${((performance.now() - started) / 1000).toFixed(1)} s`,
		);
		const warmUp = onboarded.slice(0, PARTNER_WARM_UP_BORROWERS);
		const measured = onboarded.slice(PARTNER_WARM_UP_BORROWERS);
		const bySpec = partnerRunSpecs(settings.partnerParallel).map(
			(spec): PartnerPollResult => ({ borrowers: count, spec, runs: [] }),
		);
		for (let rep = 1; rep <= settings.slowReps; rep++) {
			for (const result of bySpec) {
				const measurement = await freshPartnerPoll(sandbox, warmUp, measured, result.spec);
				result.runs.push(measurement);
				const { result: run, stats } = measurement;
				settings.log(
					`partner poll rep ${rep}/${settings.slowReps}: ${count.toLocaleString('en-US')} borrowers, ${result.spec.label}: ${(run.wallMs / 1000).toFixed(2)} s, CPU ${(run.cpuMs / count).toFixed(3)} ms per borrower, peak RSS ${(run.memory.peakRss / 2 ** 20).toFixed(0)} MB, ${run.succeeded} events, peak ${stats.peakRequestsInFlight} in flight, at most ${stats.peakRequestsPerKeySecond} per key in a second${run.error ? `, ${run.error.slice(0, 80)}` : ''}`,
				);
			}
		}
		results.push(...bySpec);
	}
	return results;
}

/** One measured run in a contender process of its own, warmed up without latency on other borrowers. */
async function freshPartnerPoll(
	sandbox: SandboxProcess,
	warmUp: OnboardedBorrower[],
	measured: OnboardedBorrower[],
	spec: PartnerRunSpec,
): Promise<Measurement> {
	const contender = await ContenderProcess.start(
		spec.heapLimitMb === undefined ? [] : [`--max-old-space-size=${spec.heapLimitMb}`],
	);
	try {
		await sandbox.configure({ latencyMs: 0 });
		for (let run = 0; run < PARTNER_WARM_UP_RUNS; run++) {
			await contender.run(partnerPollJob(sandbox, warmUp, spec));
		}
		await sandbox.configure({ latencyMs: spec.latencyMs });
		await sandbox.quiet();
		await sandbox.clearStats();
		const result = await contender.run(partnerPollJob(sandbox, measured, spec));
		return { result, stats: await sandbox.stats() };
	} finally {
		await contender.close();
	}
}
