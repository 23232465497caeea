/** The contenders themselves: each sends one job's requests and says how many items succeeded. */
import type { INodeExecutionData } from 'n8n-workflow';

import type { RunResult as WorkflowRun } from '../../harness/n8n';
import type { CreateJob, Job, PartnerOperation, PartnerPollJob, SandboxTarget } from './types';
import { contractRequestBody, inputItems, liveContractRequestBody, loanAmountOf } from './requests';

/** The contender's answer, with whatever it holds (the output items) so that memory counts it. */
export interface Outcome {
	succeeded: number;
	error?: string;
	bytesReceived?: number;
	/** Scenario 9: see RunResult.stateBytes. */
	stateBytes?: number;
	held: unknown;
}

/** Largest page the API serves; the node uses the same. */
const PAGE_SIZE = 100;

export async function runJob(job: Job): Promise<Outcome> {
	if (job.kind === 'partnerPoll') return nodePartnerPoll(job, job.target);
	if (job.kind === 'list')
		return job.contender === 'fetch' ? fetchAllContracts(job.target) : nodeGetMany(job.target);
	switch (job.contender) {
		case 'fetch':
			return fetchCreate(job, job.target);
		case 'node':
			return nodeCreate(job, job.target);
		case 'httpRequest':
			return httpRequestCreate(job, job.target);
	}
}

/** The floor: every request at once (the concurrency n8n uses for a declarative node), no retries. */
async function fetchCreate(job: CreateJob, target: SandboxTarget): Promise<Outcome> {
	const contracts = await Promise.all(
		Array.from({ length: job.items }, async (_, index) => {
			try {
				const response = await fetch(`${target.url}/api/contracts`, {
					method: 'POST',
					headers: {
						'x-api-key': target.apiKey,
						Accept: 'application/json',
						'Content-Type': 'application/json',
						'Idempotency-Key': `bench-${job.runId}-${index}`,
					},
					body: JSON.stringify(
						job.live
							? liveContractRequestBody(job.live, loanAmountOf(index))
							: contractRequestBody(loanAmountOf(index)),
					),
				});
				const body: unknown = await response.json();
				return response.ok ? body : undefined;
			} catch {
				return undefined;
			}
		}),
	);
	return { succeeded: contracts.filter(Boolean).length, held: contracts };
}

function succeededItems(run: WorkflowRun, nodeName: string): Outcome {
	const items = run.output(nodeName);
	const succeeded = run.error
		? 0
		: items.filter((item) => !item.error && item.json.id !== undefined).length;
	return { succeeded, error: run.error?.message, held: items };
}

/** n8n-core and the package are loaded only by the n8n contenders: the floor's footprint stays its own. */
async function harness() {
	const [n8n, workflows] = await Promise.all([import('../../harness/n8n'), import('./workflows')]);
	return { ...n8n, ...workflows };
}

async function nodeCreate(job: CreateJob, target: SandboxTarget): Promise<Outcome> {
	const { runWorkflow, nodeCreateWorkflow } = await harness();
	const run = await runWorkflow(nodeCreateWorkflow(job.live, job.maxConcurrent), {
		credential: {
			environment: 'custom',
			baseUrl: target.url,
			keyType: 'borrower',
			apiKey: target.apiKey,
		},
		items: inputItems(job.items, job.firstItem),
	});
	return succeededItems(run, 'Lendasat Borrower');
}

async function httpRequestCreate(job: CreateJob, target: SandboxTarget): Promise<Outcome> {
	const variant = job.httpRequest ?? { idempotencyKey: true, retryOnFail: false };
	const { runWorkflow, httpRequestCreateWorkflow } = await harness();
	const { loadHttpRequestNode } = await import('./httpRequestNode');
	const run = await runWorkflow(
		httpRequestCreateWorkflow(target.url, target.apiKey, variant, job.live),
		{
			// The harness gives a credential only to our node; the HTTP Request node carries the key as a header.
			credential: { apiKey: target.apiKey },
			items: inputItems(job.items),
			extraNodeTypes: loadHttpRequestNode(),
		},
	);
	return succeededItems(run, 'HTTP Request');
}

/** The raw Return All: pages of 100, one after the other, until a short page. */
async function fetchAllContracts(target: SandboxTarget): Promise<Outcome> {
	const contracts: unknown[] = [];
	let bytesReceived = 0;
	for (let page = 1; ; page++) {
		const response = await fetch(`${target.url}/api/contracts?page=${page}&limit=${PAGE_SIZE}`, {
			headers: { 'x-api-key': target.apiKey, Accept: 'application/json' },
		});
		if (!response.ok) throw new Error(`page ${page}: HTTP ${response.status}`);
		const text = await response.text();
		bytesReceived += Buffer.byteLength(text);
		const { data } = JSON.parse(text) as { data: unknown[] };
		contracts.push(...data);
		if (data.length < PAGE_SIZE) break;
	}
	return { succeeded: contracts.length, bytesReceived, held: contracts };
}

async function nodeGetMany(target: SandboxTarget): Promise<Outcome> {
	const { runWorkflow, nodeListWorkflow } = await harness();
	const run = await runWorkflow(nodeListWorkflow(), {
		credential: {
			environment: 'custom',
			baseUrl: target.url,
			keyType: 'borrower',
			apiKey: target.apiKey,
		},
	});
	return succeededItems(run, 'Lendasat Borrower');
}

/**
 * The state one poll hands on to the next, in bytes over all borrowers, or undefined when the
 * operation keeps none. Contract → Get Events keeps none (what was alerted is the workflow's to
 * keep). Contract → Get New Events gives each borrower with news its memory, `reported`, which the
 * template stores in the borrower's row: measured here as the bytes (UTF-8) of the text stored.
 */
export function partnerPollStateBytes(
	operation: PartnerOperation,
	items: INodeExecutionData[],
): number | undefined {
	if (operation !== 'getNewEvents') return undefined;
	return items.reduce(
		(total, item) =>
			total + (typeof item.json.reported === 'string' ? Buffer.byteLength(item.json.reported) : 0),
		0,
	);
}

/** Whether an output item of the poll is a borrower that failed: an n8n error, or with Input Item List an item with error. */
export function isFailedBorrower(item: INodeExecutionData): boolean {
	return item.error !== undefined || item.json.error !== undefined;
}

/** The events a poll gave: one item per event (Get Events), or a list per borrower (Get New Events). */
function eventsOf(operation: PartnerOperation, items: INodeExecutionData[]): number {
	if (operation === 'getEvents') return items.filter((item) => !isFailedBorrower(item)).length;
	return items.reduce(
		(total, item) => total + (Array.isArray(item.json.events) ? item.json.events.length : 0),
		0,
	);
}

/**
 * One poll of a partner's borrowers, each a row of the template's borrower table never polled
 * (`reported` empty), read as the template reads them (Borrower From → Input Item Fields) or in
 * lists (Input Item List): succeeded counts the events, error the borrowers that failed.
 */
async function nodePartnerPoll(job: PartnerPollJob, target: SandboxTarget): Promise<Outcome> {
	const { runWorkflow, nodePartnerPollWorkflow, partnerPollInput } = await harness();
	const run = await runWorkflow(
		nodePartnerPollWorkflow(job.operation, job.maxConcurrent, job.events, job.borrowerFrom),
		{
			credential: {
				environment: 'custom',
				baseUrl: target.url,
				keyType: 'master',
				apiKey: target.apiKey,
			},
			items: partnerPollInput(
				job.borrowers.map((borrower) => ({ ...borrower, reported: null })),
				job.borrowerFrom,
			),
		},
	);
	const items = run.output('Lendasat Borrower');
	const failed = items.filter(isFailedBorrower);
	return {
		succeeded: eventsOf(job.operation, items),
		error: run.error?.message ?? (failed.length ? `${failed.length} borrowers failed` : undefined),
		stateBytes: partnerPollStateBytes(job.operation, items),
		held: items,
	};
}
