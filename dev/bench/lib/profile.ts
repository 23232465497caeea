/**
 * `--profile`: a CPU profile of our node's measured runs (scenario 1) and where the time goes: our
 * code, n8n's expression evaluation, the rest of n8n's engine, the HTTP client, garbage collection.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';

import { ContenderProcess, type SandboxProcess } from './processes';
import type { Settings } from './scenarios';
import type { Job } from './types';

const WARM_UP_RUNS = 2;
const ITEMS = 1000;

/**
 * Runs `work` between `start` and `stop` on an inspector session of this process and writes what
 * `stop` returns as `profile` to `file`, whether `work` succeeds or not.
 */
async function recorded<T>(
	file: string,
	start: (session: Session) => Promise<void>,
	stop: (session: Session) => Promise<{ profile: unknown }>,
	work: () => Promise<T>,
): Promise<T> {
	const session = new Session();
	session.connect();
	await start(session);
	try {
		return await work();
	} finally {
		const { profile } = await stop(session);
		writeFileSync(file, JSON.stringify(profile));
		session.disconnect();
	}
}

/** Runs `work` under the V8 sampling profiler of this process and writes the profile to `file`. */
export async function profiled<T>(file: string, work: () => Promise<T>): Promise<T> {
	return await recorded(
		file,
		async (session) => {
			await session.post('Profiler.enable');
			await session.post('Profiler.setSamplingInterval', { interval: 200 });
			await session.post('Profiler.start');
		},
		async (session) => await session.post('Profiler.stop'),
		work,
	);
}

/**
 * Runs `work` under V8's sampling heap profiler and writes what it allocated to `file`: what was
 * still live at the end and what a major GC collected, that is garbage that lived long enough to be
 * promoted to the old space, whose collection V8 puts off until the heap has grown (the peak).
 */
export async function allocationsProfiled<T>(file: string, work: () => Promise<T>): Promise<T> {
	return await recorded(
		file,
		async (session) => {
			await session.post('HeapProfiler.enable');
			await session.post('HeapProfiler.startSampling', {
				samplingInterval: 16 * 1024,
				includeObjectsCollectedByMajorGC: true,
				includeObjectsCollectedByMinorGC: false,
			});
		},
		async (session) => await session.post('HeapProfiler.stopSampling'),
		work,
	);
}

interface AllocationNode {
	callFrame: ProfileNode['callFrame'];
	selfSize: number;
	children: AllocationNode[];
}

/** The bytes sampled by where they were allocated: category, and the heaviest frames of any kind. */
export function summarizeAllocations(file: string, title: string, borrowers: number): string {
	const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: AllocationNode };
	const byCategory = new Map<string, number>();
	const byFrame = new Map<string, number>();
	let total = 0;
	// `sourced`: the innermost frame on the way here that has a source (a native frame has none).
	const walk = (node: AllocationNode, sourced: AllocationNode | undefined): void => {
		const innermost = node.callFrame.url !== '' ? node : sourced;
		if (node.selfSize > 0) {
			total += node.selfSize;
			const frame = innermost ?? node;
			const category = categoryOf(frame);
			byCategory.set(category, (byCategory.get(category) ?? 0) + node.selfSize);
			const name = frameName(frame);
			byFrame.set(name, (byFrame.get(name) ?? 0) + node.selfSize);
		}
		for (const child of node.children) walk(child, innermost);
	};
	walk(head, undefined);
	const perBorrower = (bytes: number) => `${(bytes / borrowers / 1024).toFixed(1).padStart(6)} KB`;
	const lines = [
		title,
		`  ${(total / 2 ** 20).toFixed(0)} MB live or promoted (${perBorrower(total).trim()} per borrower), by the innermost frame with a source:`,
	];
	for (const [category, bytes] of [...byCategory].sort((a, b) => b[1] - a[1]))
		lines.push(`  ${perBorrower(bytes)} ${percent(bytes, total)}  ${category}`);
	lines.push('  Heaviest frames:');
	for (const [name, bytes] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 25))
		lines.push(`  ${perBorrower(bytes)} ${percent(bytes, total)}  ${name}`);
	return lines.join('\n');
}

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

const repositoryRoot = path.resolve(__dirname, '..', '..', '..');
const OURS = new RegExp(
	`^(file://)?${repositoryRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/dist/`,
);
const CATEGORIES: Array<[string, RegExp]> = [
	['our code (dist/nodes)', OURS],
	[
		"n8n expression evaluation (n8n-workflow expressions, data proxy, luxon's $now)",
		/n8n-workflow\/dist\/cjs\/(expression|workflow-expression|workflow-data-proxy|extensions|expressions)|\/luxon\/|@n8n\/tournament|@n8n\/expression/,
	],
	[
		'n8n engine, other (n8n-core, n8n-workflow, lodash)',
		/\/(n8n-core|n8n-workflow|lodash|@n8n\/(?!backend-network))/,
	],
	[
		'HTTP client (axios, follow-redirects, node:http/net)',
		/\/(axios|follow-redirects|form-data|proxy-from-env|@n8n\/backend-network|undici)\/|^node:(_http|http|net|stream|internal\/streams|url|internal\/url|zlib|dns|internal\/deps\/undici)/,
	],
];

function categoryOf(node: Pick<ProfileNode, 'callFrame'>): string {
	const { url, functionName } = node.callFrame;
	if (functionName === '(garbage collector)') return 'garbage collection';
	if (functionName === '(idle)') return 'idle (waiting for the sandbox)';
	return (
		CATEGORIES.find(([, pattern]) => pattern.test(url))?.[0] ??
		'other (V8, Node internals, microtasks)'
	);
}

/** "runNode n8n-core/dist/execution-engine/routing-node.js:21", "sendRequest dist/nodes/…/transport.js:126" */
function frameName(node: Pick<ProfileNode, 'callFrame'>): string {
	const file = node.callFrame.url
		.replace(/^file:\/\//, '')
		.replace(`${repositoryRoot}/`, '')
		.replace(/^.*\/node_modules\//, '');
	return `${node.callFrame.functionName || '(anonymous)'} ${file}:${node.callFrame.lineNumber + 1}`;
}

function percent(part: number, whole: number): string {
	return `${((100 * part) / whole).toFixed(1).padStart(5)} %`;
}

/** The breakdown as text: self time by category, split by whether our code is on the stack. */
export function summarizeProfile(file: string, title: string): string {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
	const parents = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parents.set(child, node.id);

	const self = new Map<string, number>();
	const underOurs = new Map<string, number>();
	const inclusive = new Map<string, number>();
	let busy = 0;
	profile.samples.forEach((id, index) => {
		const delta = profile.timeDeltas[index] ?? 0;
		const leaf = nodes.get(id);
		if (!leaf) return;
		const category = categoryOf(leaf);
		self.set(category, (self.get(category) ?? 0) + delta);
		if (!category.startsWith('idle')) busy += delta;
		const seen = new Set<string>();
		let ours = false;
		for (
			let current: number | undefined = id;
			current !== undefined;
			current = parents.get(current)
		) {
			const node = nodes.get(current)!;
			const name = frameName(node);
			if (OURS.test(node.callFrame.url) || /routing-node\.js/.test(node.callFrame.url)) {
				if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
			}
			seen.add(name);
			if (OURS.test(node.callFrame.url)) ours = true;
		}
		if (ours) underOurs.set(category, (underOurs.get(category) ?? 0) + delta);
	});

	const lines = [
		title,
		`  CPU busy ${(busy / 1000).toFixed(0)} ms; shares of busy time (self time of the innermost frame):`,
	];
	const width = Math.max(...[...self.keys()].map((key) => key.length));
	lines.push(`  ${'where'.padEnd(width)}   total   with our code on the stack`);
	for (const [category, time] of [...self].sort((a, b) => b[1] - a[1])) {
		if (category.startsWith('idle')) continue;
		lines.push(
			`  ${category.padEnd(width)} ${percent(time, busy)}  ${percent(underOurs.get(category) ?? 0, busy)}`,
		);
	}
	const ourTotal = [...underOurs.values()].reduce((sum, time) => sum + time, 0);
	lines.push(`  ${'everything below our functions'.padEnd(width)} ${percent(ourTotal, busy)}`);
	lines.push("  Heaviest frames of our code and of n8n-core's RoutingNode (inclusive):");
	for (const [name, time] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 16)) {
		lines.push(`  ${percent(time, busy)}  ${name}`);
	}
	return lines.join('\n');
}

/** Profiles our node's Contract → Create of 1,000 items, warm, in a contender process of its own. */
export async function profileOurNode(sandbox: SandboxProcess, settings: Settings): Promise<string> {
	const contender = await ContenderProcess.start();
	const target = { url: sandbox.url, apiKey: sandbox.keys.borrower };
	const job = (profileFile?: string): Job => ({
		kind: 'create',
		contender: 'node',
		items: ITEMS,
		runId: randomUUID(),
		target,
		profileFile,
	});
	const file = path.join(os.tmpdir(), `lendasat-bench-${process.pid}.cpuprofile`);
	try {
		for (let warmUp = 1; warmUp <= WARM_UP_RUNS; warmUp++) {
			await sandbox.reset({ idempotency: true });
			await contender.run(job());
		}
		await sandbox.reset({ idempotency: true });
		const result = await contender.run(job(file));
		settings.log(
			`profiled run: ${(result.wallMs / 1000).toFixed(2)} s (profiler on), profile written to ${file}`,
		);
	} finally {
		await contender.close();
	}
	return summarizeProfile(
		file,
		`CPU profile of our node (bench --profile): Contract → Create × ${ITEMS}, one warm run`,
	);
}
