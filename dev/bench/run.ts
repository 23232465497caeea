/**
 * `npm run bench [-- --quick] [-- --reps N] [-- --slow-reps N] [-- --only 1,4,3-live,7,8,9,10] [-- --borrowers 500,10000] [-- --parallel 32,128] [-- --endless-storm] [-- --profile] [-- --no-write]`
 *
 * Measures the Lendasat Borrower node against the floor (plain fetch) and n8n's HTTP Request node,
 * side by side in the same run, against the sandbox on 127.0.0.1 in a process of its own. Prints one
 * table and writes it to bench/RESULTS.md (keeping the hand-written analysis below the table).
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { measureLookupCost } from './lookupCost';
import { watchSimulatedYear } from './lib/watchYear';
import { SandboxProcess } from './lib/processes';
import { profileOurNode } from './lib/profile';
import {
	faultRows,
	latencyRows,
	liveFaultRows,
	overheadRows,
	partnerPollTable,
	rateLimitedRows,
	renderTable,
	returnAllRows,
	sharedKeyRows,
	stormRows,
	type Row,
	type Verdict,
} from './lib/report';
import {
	faults,
	latency,
	liveFaults,
	MAX_CONCURRENT_CHOICES,
	PARTNER_BORROWERS,
	PARTNER_LATENCY_MS,
	overhead,
	partnerPoll,
	rateLimited,
	returnAll,
	sharedKey,
	storm,
	type Settings,
} from './lib/scenarios';
import { DEFAULT_TIME_BUDGET_MS } from '../../nodes/LendasatBorrower/transport/settings';

const USAGE = `Usage: npm run bench -- [--quick] [--reps N] [--slow-reps N] [--only 1,2,3,4,5,6,7,8,9,10] [--borrowers LIST] [--parallel LIST] [--endless-storm] [--profile] [--no-write]
  Scenarios: 1 overhead per item, 2 rate limited 10/s, 3 faults (spec and live dialect), 4 Return All,
  5 latency 1 s (2,000 items; our node at Max Parallel Requests 16, 32, 64), 6 cost growth (100 / 10,000 items),
  7 shared key: 1,000 items over 1, 2 and 4 processes at 10/s (about 6 min),
  8 storm: 130 and 300 items, 20 s of nothing but 429, then 10/s (about 2 min)
  9 partner poll: the template's Contract → Get New Events over 500 borrowers, each with its own key
    and its row's memory, latency 200 ms, at Max Parallel Requests 16, 32, 64, twice without latency,
    and Get Events without latency (about 2 min)
  10 a year of watching (dev/sandbox/yearOfLoans.ts): Get New Events' core polls every borrower daily
    for 365 days, each poll checked against what changed; mismatches, events, memory per borrower
    (--borrowers, its first number; default 2,000: about 25 s; 50,000 about 10 min)
  --quick        1 repetition, scenario 2 with 300 items (floor 30 s), no Batching contender, scenario 5 with 500 items
  --reps N       repetitions of scenarios 1, 3, 4 and 6 (default 3)
  --slow-reps N  repetitions of scenarios 2, 5, 7, 8 and 9 (≥ 100 s and ≥ 125 s per run of the slowest contender; default 1)
  --borrowers LIST  scenario 9's numbers of borrowers, e.g. 500,10000 (default 500; 10,000 takes
                 about 5 min; one run of 50,000 at 32 parallel passes the time budget's 28,800 and
                 needs about 2.5 GB: dev/bench/partnerPollCost.ts measures it without latency);
                 scenario 10's is the first (default 2,000)
  --parallel LIST   scenario 9's Max Parallel Requests of the polls at 200 ms (default 16,32,64)
  --only LIST    scenarios to run (default all); 3 is both dialects, 3-spec or 3-live one of them
  --endless-storm  scenario 8 also with 200 items and a storm that never ends (about 3 min more)
  --profile      also profile our node in scenario 1 and print where its time goes
  --no-write     do not update bench/RESULTS.md`;

const RESULTS_FILE = path.join(__dirname, 'RESULTS.md');
const ANALYSIS_MARKER =
	'<!-- Everything below this line is kept when bench/run.ts rewrites the file. -->';

type Dialect = 'spec' | 'live';

interface Options extends Settings {
	only: Set<number>;
	/** Scenario 10's borrowers. */
	yearBorrowers: number;
	/** The dialects scenario 3 runs against. */
	faultDialects: Set<Dialect>;
	profile: boolean;
	write: boolean;
}

function fail(message: string): never {
	console.error(`bench: ${message}\n${USAGE}`);
	process.exit(2);
}

function positiveInteger(flag: string, value: string | undefined): number {
	const number = Number(value);
	if (!Number.isSafeInteger(number) || number < 1) fail(`${flag} needs a positive whole number`);
	return number;
}

/** "500,10000,50000" (or "10_000"): each a positive whole number, at most `max`. */
function positiveIntegers(flag: string, value: string | undefined, max: number): number[] {
	const list = (value ?? '').split(',').map((part) => Number(part.trim().replace(/_/g, '')));
	if (
		!list.length ||
		list.some((number) => !Number.isSafeInteger(number) || number < 1 || number > max)
	)
		fail(`${flag} takes a list of whole numbers from 1 to ${max}, separated by commas`);
	return list;
}

function parseArgs(argv: string[]): Options {
	const options: Options = {
		reps: 3,
		slowReps: 1,
		rateLimitedItems: 1000,
		tunedBatching: true,
		latencyItems: 2000,
		sizes: [100, 1000, 10_000],
		only: new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
		faultDialects: new Set<Dialect>(['spec', 'live']),
		endlessStorm: false,
		partnerBorrowers: PARTNER_BORROWERS,
		partnerParallel: MAX_CONCURRENT_CHOICES,
		yearBorrowers: YEAR_BORROWERS,
		profile: false,
		write: true,
		log: (line) => console.error(`  ${line}`),
	};
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		switch (flag) {
			case '--quick':
				Object.assign(options, {
					reps: 1,
					slowReps: 1,
					rateLimitedItems: 300,
					tunedBatching: false,
					latencyItems: 500,
				});
				break;
			case '--reps':
				options.reps = positiveInteger(flag, argv[++index]);
				break;
			case '--slow-reps':
				options.slowReps = positiveInteger(flag, argv[++index]);
				break;
			case '--only': {
				const list = (argv[++index] ?? '').split(',').map((part) => part.trim());
				const dialects = list.flatMap(
					(part) => /^3-(spec|live)$/.exec(part)?.[1] ?? [],
				) as Dialect[];
				const numbers = list.map((part) => (/^3-(spec|live)$/.test(part) ? 3 : Number(part)));
				if (
					!list.length ||
					numbers.some((scenario) => ![1, 2, 3, 4, 5, 6, 7, 8, 9, 10].includes(scenario))
				) {
					fail('--only takes scenario numbers 1–10, 3-spec and 3-live');
				}
				options.only = new Set(numbers);
				options.faultDialects = new Set(
					list.includes('3') || !dialects.length ? ['spec', 'live'] : dialects,
				);
				break;
			}
			case '--borrowers':
				options.partnerBorrowers = positiveIntegers(flag, argv[++index], 1_000_000);
				options.yearBorrowers = options.partnerBorrowers[0];
				break;
			case '--parallel':
				// The bounds of the node's own option.
				options.partnerParallel = positiveIntegers(flag, argv[++index], 256);
				break;
			case '--endless-storm':
				options.endlessStorm = true;
				break;
			case '--profile':
				options.profile = true;
				break;
			case '--no-write':
				options.write = false;
				break;
			case '--help':
			case '-h':
				console.log(USAGE);
				process.exit(0);
				break;
			default:
				fail(`unknown argument ${flag}`);
		}
	}
	if (!options.only.has(6)) options.sizes = [1000];
	else if (!options.only.has(1)) options.sizes = options.sizes.filter((size) => size !== 1000);
	return options;
}

/** Scenario 10's borrowers by default: a simulated year in about a minute. */
const YEAR_BORROWERS = 2000;

/**
 * Scenario 10 as a table of its own: a year of daily polls over the simulation (no HTTP, no n8n:
 * Get New Events' pure core), with the polls that told something else than what changed (must be
 * 0), the events told, the memory per borrower and all borrowers' together, and the CPU time.
 */
function yearTable(borrowers: number, verdicts: Verdict[]): string {
	const year = watchSimulatedYear(borrowers);
	const polls = year.borrowers * year.days;
	verdicts.push({
		target: `10 A year of watching, ${borrowers.toLocaleString('en-US')} borrowers: every poll tells exactly what changed (${year.mismatches} mismatches${year.firstMismatch ? `, first: ${year.firstMismatch}` : ''})`,
		met: year.mismatches === 0,
	});
	const rows = [
		['Borrowers × days', `${year.borrowers.toLocaleString('en-US')} × ${year.days}`],
		['Polls that told something else than what changed', String(year.mismatches)],
		['Events told', year.told.toLocaleString('en-US')],
		[
			'Memory (`reported`) per borrower: mean / largest',
			`${year.meanLength.toFixed(1)} B / ${year.maxLength} B`,
		],
		[
			"All borrowers' memory, the largest day",
			`${(year.peakTotalLength / 1024).toFixed(0)} KB (${(year.peakTotalLength / year.borrowers).toFixed(1)} B per borrower)`,
		],
		[
			'CPU (events, news, memory; no HTTP)',
			`${(year.cpuMs / 1000).toFixed(1)} s, ${((year.cpuMs * 1000) / polls).toFixed(1)} µs per poll`,
		],
	];
	return [
		'| Measure | Value |',
		'|---|---|',
		...rows.map(([name, value]) => `| ${name} | ${value} |`),
	].join('\n');
}

function machine(): string {
	let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
	try {
		cpu = `${execSync('nproc').toString().trim()} × ${cpu}`;
	} catch {
		cpu = `${os.cpus().length} × ${cpu}`;
	}
	const n8nCore = JSON.parse(readFileSync(require.resolve('n8n-core/package.json'), 'utf8'))
		.version as string;
	return `${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}, n8n-core ${n8nCore}`;
}

function minutes(ms: number): string {
	return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const METHOD = `How it is measured: the sandbox (dev/sandbox) runs on 127.0.0.1 in a process of its own; each
contender runs in its own process too (the floor does not even load n8n), warmed up with one
unmeasured run, and the sandbox is reset before every measured run. Repetitions alternate between
contenders, and ratios are the median of the ratios within each repetition. Our node and n8n's HTTP
Request node (n8n-nodes-base 2.41.1 from dev/n8n) run through the same n8n-core 2.41.1
WorkflowExecute (dev/harness/n8n.ts); every item is a distinct Contract → Create (loan_amount
100.00, 100.01, …, from an expression on the input item), and every contender sends the same
request: x-api-key, Idempotency-Key, JSON body (in scenarios 2 and 3 one HTTP Request variant
leaves the Idempotency-Key out, as a hand-wired workflow usually does). The sandbox counts
duplicates: the same request body creating a second contract. Scenarios 2 and 3 start a fresh
process per repetition (our node's rate gate learns per process) and wait 1.5 s after the warm-up,
so that the warm-up's unlimited successes do not count as "accepted in the last second". Scenario 3
also runs against the sandbox's live dialect (Lendasat's backend: Idempotency-Key ignored; both
faults come after the contract was stored), each run (and warm-up) on an offer of its own (1 to 10^12,
as the live backend takes every amount off the offer's max); every contender sends the live body, and
our node adds a client_contract_id, by which it looks for the contract after an ambiguous failure. Its
Ratio column is GET /api/contracts requests per item: those lookups. Scenario 5 delays every API
answer by 1 s (the sandbox's latencyMs) and counts the sandbox's peak of open TCP connections;
the fetch loop and each setting of our node's Max Parallel Requests run in a warm process of their own.
Scenario 9 onboards N borrowers (--borrowers; each gets one PrincipalGiven contract) and 500 more
for the warm-up, once per N, in bulk (the sandbox's benchmark-only POST /__admin/borrowers stores
them as Account → Create's call does). Every run is a fresh contender process, warmed up by 10 runs
over the 500 without latency (a worker that has polled before): every key of the measured run is new
to the process. It then sets the sandbox's latency and clears its counters, and times one run of the
partner template's node, Contract → Get New Events, over the N borrowers as rows of its borrower
table never polled (Act as Borrower {{ $json.api_key }}, Borrower {{ $json.borrower_id }}, Already
Reported {{ $json.reported }}, empty: every event that stands is new): at 200 ms for each Max
Parallel Requests P (--parallel), against the bound ⌈N ÷ P⌉ × 200 ms × 1 request (each list is one
page) plus the CPU part, the same run without latency; once more without latency with Events set to
Margin Call only, which none of the contracts stands at (every answer read and checked, no event:
the floor of a borrower's cost apart from its output); and Contract → Get Events without latency,
for comparison. Each of these runs once with a borrower per input item (Borrower From → Input Item
Fields) and once with the rows in lists of 500 (Input Item List); the lists also run at the highest
P in a contender whose old space is capped at 1,024 MB (--max-old-space-size), to show how much of
the peak RSS is garbage that V8, sizing its heap from the machine's memory, chose not to collect
yet. CPU per borrower is the contender process's CPU time (process.cpuUsage(), user + system: n8n,
the node and the HTTP client; the sandbox runs in a process of its own) over the run, divided by N.
State size is what a poll hands on to the next: the bytes of the memory (reported) the template
stores in each borrower's row (none for Get Events). The sandbox counts the most requests in flight
at once and the most any one key sent within a second. Scenario 10 runs no HTTP and no n8n: Get New
Events' pure core (currentEvents, findNews) polls a simulated year of loans
(dev/sandbox/yearOfLoans.ts) daily for every borrower, each poll checked against what the simulation
says changed.

Columns: Time is the wall time of one run (median); Spread is (max − min) / median over the
repetitions; Per item = Time / Items. Memory is growth over a forced full GC before the run, in the
contender's process: "peak" is the largest heapUsed + external sampled every 5 ms during the run
(it includes garbage V8 had not collected yet), "kept" is what is still held after the run and a
forced full GC (the output). Peak RSS is the whole contender process, code included (loading
n8n-core alone takes about 100 MB). Scenario 2's floor is items / 10 s. Scenario 6's per-item ratio
compares a size with the smallest one, for the same contender.`;

function writeResults(
	command: string,
	header: string,
	table: string,
	verdicts: Verdict[],
	profile: string,
): void {
	const kept = existsSync(RESULTS_FILE)
		? readFileSync(RESULTS_FILE, 'utf8').split(ANALYSIS_MARKER)[1]
		: undefined;
	const content = [
		'# Benchmarks',
		'',
		'Produced by:',
		'',
		'```',
		command,
		'```',
		'',
		header,
		'',
		table,
		'',
		...verdicts.map((verdict) => `- ${verdict.met ? 'Met' : '**Missed**'}: ${verdict.target}`),
		'',
		METHOD,
		...(profile ? ['', '```', profile, '```'] : []),
		'',
		ANALYSIS_MARKER,
		kept?.replace(/^\n+/, '') ?? '\n## Analysis\n\n(write it here)\n',
	].join('\n');
	writeFileSync(RESULTS_FILE, content);
}

async function main(): Promise<void> {
	const options = parseArgs(process.argv.slice(2));
	const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
	const started = Date.now();
	const startedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
	const rows: Row[] = [];
	const verdicts: Verdict[] = [];
	let profile = '';
	let partnerTable = '';
	let yearOfWatching = '';
	const sandbox = await SandboxProcess.start();
	try {
		if (options.only.has(1) || options.only.has(6)) {
			console.error('Scenarios 1 and 6: overhead per item');
			rows.push(...overheadRows(await overhead(sandbox, options), options.sizes, verdicts));
		}
		if (options.only.has(2)) {
			console.error('Scenario 2: rate limited (≥ 100 s per run)');
			rows.push(...rateLimitedRows(await rateLimited(sandbox, options), verdicts));
		}
		if (options.only.has(3) && options.faultDialects.has('spec')) {
			console.error('Scenario 3: faults');
			rows.push(...faultRows(await faults(sandbox, options)));
		}
		if (options.only.has(3) && options.faultDialects.has('live')) {
			console.error(
				'Scenario 3: faults, live dialect (no Idempotency-Key; both faults after the contract was stored)',
			);
			rows.push(...liveFaultRows(await liveFaults(sandbox, options)));
		}
		if (options.only.has(4)) {
			console.error('Scenario 4: Return All');
			rows.push(...returnAllRows(await returnAll(sandbox, options), verdicts));
		}
		if (options.only.has(5)) {
			console.error(
				`Scenario 5: latency 1 s, ${options.latencyItems} items (≥ ${options.latencyItems / 16} s for our node at 16 parallel)`,
			);
			rows.push(...latencyRows(await latency(sandbox, options)));
		}
		if (options.only.has(7)) {
			console.error('Scenario 7: one key shared by 1, 2 and 4 processes, 10/s (≥ 100 s per run)');
			const lookups = await measureLookupCost({ items: 1000, executions: 1 });
			const lookupCost = `check for other contracts with the same key (dev/bench/lookupCost.ts, live dialect, 1,000 items with their own key, no limit): ${lookups.checkListRequestsPerItem.toFixed(3)} list requests/item after the last create, ${(lookups.listRequests / lookups.items).toFixed(3)}/item in all`;
			console.error(`  ${lookupCost}`);
			rows.push(...sharedKeyRows(await sharedKey(sandbox, options), verdicts, lookupCost));
		}
		if (options.only.has(8)) {
			console.error(
				`Scenario 8: storm of 429s (20 s, then 10/s)${options.endlessStorm ? ', and one without end' : ''}`,
			);
			rows.push(...stormRows(await storm(sandbox, options), verdicts, DEFAULT_TIME_BUDGET_MS));
		}
		if (options.only.has(9)) {
			const borrowers = options.partnerBorrowers.map((count) => count.toLocaleString('en-US'));
			console.error(
				`Scenario 9: partner poll, ${borrowers.join(', ')} borrowers with keys of their own, latency ${PARTNER_LATENCY_MS} ms at Max Parallel Requests ${options.partnerParallel.join(', ')}, and without latency`,
			);
			partnerTable = partnerPollTable(await partnerPoll(sandbox, options), verdicts);
		}
		if (options.only.has(10)) {
			console.error(
				`Scenario 10: a year of watching, ${options.yearBorrowers.toLocaleString('en-US')} borrowers polled daily`,
			);
			yearOfWatching = yearTable(options.yearBorrowers, verdicts);
		}
		if (options.profile) {
			console.error('Profiling our node (scenario 1)');
			profile = await profileOurNode(sandbox, options);
		}
	} finally {
		await sandbox.close();
	}
	rows.sort((a, b) => a.scenario.localeCompare(b.scenario, 'en', { numeric: true }));
	verdicts.sort((a, b) => a.target.localeCompare(b.target, 'en', { numeric: true }));
	const header = `${startedAt} · ${machine()} · total ${minutes(Date.now() - started)}`;
	const table = [
		...(rows.length ? [renderTable(rows)] : []),
		...(partnerTable ? [`Scenario 9, partner poll:\n\n${partnerTable}`] : []),
		...(yearOfWatching ? [`Scenario 10, a year of watching:\n\n${yearOfWatching}`] : []),
	].join('\n\n');
	console.log(`\n${header}\n\n${table}\n`);
	for (const verdict of verdicts)
		console.log(`${verdict.met ? 'met    ' : 'MISSED '} ${verdict.target}`);
	if (profile) console.log(`\n${profile}`);
	if (options.write) writeResults(command, header, table, verdicts, profile);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
