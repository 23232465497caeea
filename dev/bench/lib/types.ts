/** What the orchestrator (bench/run.ts) and the contender processes (bench/contender.ts) exchange. */

export type ContenderName =
	/** A plain `fetch` loop: the floor. */
	| 'fetch'
	/** The Lendasat Borrower node through n8n-core's WorkflowExecute. */
	| 'node'
	/** n8n's HTTP Request node through the same engine. */
	| 'httpRequest';

export interface HttpRequestVariant {
	/** Send an `Idempotency-Key` header from an expression, as a careful user would. */
	idempotencyKey: boolean;
	/** n8n's node setting Retry On Fail at its maximum: 5 tries, 5 s apart. */
	retryOnFail: boolean;
	/** The node's Batching option: this many items, then a pause of `intervalMs`. */
	batching?: { size: number; intervalMs: number };
}

export interface SandboxTarget {
	url: string;
	apiKey: string;
}

/** Where a contract request goes in the sandbox's live dialect (no such key: the spec dialect's body). */
export interface LiveTarget {
	/** The offer added for this run (the live backend takes each amount off the offer's max). */
	offerId: string;
}

export interface CreateJob {
	kind: 'create';
	contender: ContenderName;
	items: number;
	/** Makes every item's body distinct from other runs' (idempotency keys) and items' (loan amount). */
	runId: string;
	httpRequest?: HttpRequestVariant;
	/** Send the live backend's contract body to this offer instead of the specification's. */
	live?: LiveTarget;
	/** Our node only: its Options → Max Parallel Requests (unset: the node's default). */
	maxConcurrent?: number;
	/** The index of the first item (amounts go on from there), so that processes sharing a run differ. */
	firstItem?: number;
}

export interface ListJob {
	kind: 'list';
	contender: Exclude<ContenderName, 'httpRequest'>;
}

/**
 * Scenario 9: Contract → Get New Events (the partner template's node) or Get Events once per
 * borrower, each item acting with the borrower's own key.
 */
export interface PartnerPollJob {
	kind: 'partnerPoll';
	contender: 'node';
	operation: PartnerOperation;
	/** The partner's list: its reference and the key of each borrower (the target's key is the master key). */
	borrowers: Array<{ borrower_id: string; api_key: string }>;
	/** Options → Max Parallel Requests (unset: the node's default). */
	maxConcurrent?: number;
	/** The node's Events parameter (unset: its default, every event). */
	events?: string[];
	/** Where the node reads each borrower: a row per input item, or lists of rows. */
	borrowerFrom: PartnerListedBorrowers;
}

/** The operation a partner poll runs: the template's (Get New Events), or Get Events. */
export type PartnerOperation = 'getNewEvents' | 'getEvents';
/**
 * Where the partner poll's node reads each borrower: its parameters' expressions, or Borrower From →
 * Input Item Fields (an item per borrower) or Input Item List (lists of borrowers, PARTNER_LIST_SIZE each).
 */
export type PartnerBorrowerFrom = 'parameters' | PartnerListedBorrowers;
/** The forms that read the borrower table's rows as they are, without an expression. */
export type PartnerListedBorrowers = 'inputFields' | 'inputList';

export type Job = (CreateJob | ListJob | PartnerPollJob) & {
	target: SandboxTarget;
	/** Write a CPU profile of the measured run to this file. */
	profileFile?: string;
};

export interface MemoryFigures {
	/**
	 * Largest heapUsed + external seen during the run, minus the same after a full GC before it
	 * (bytes). Includes garbage V8 had not collected yet: what the process really needed at its peak.
	 */
	peakGrowth: number;
	/** heapUsed + external after the run and a full GC, minus the baseline: what its output holds. */
	retained: number;
	/** Largest resident set size of the whole contender process seen during the run (bytes). */
	peakRss: number;
}

export interface RunResult {
	wallMs: number;
	/**
	 * CPU time of the contender process during the run, user and system (process.cpuUsage()): n8n,
	 * the node and the HTTP client, never the sandbox, which runs in a process of its own.
	 */
	cpuMs: number;
	/** Items that came out as successes (for a node: output items without an error). */
	succeeded: number;
	/** The error that stopped the workflow, if one did. */
	error?: string;
	/** Bytes of JSON bodies received (Get Many, raw loop only). */
	bytesReceived?: number;
	/** Scenario 9: bytes of the state the poll hands on for its next run, over all borrowers (undefined: none). */
	stateBytes?: number;
	memory: MemoryFigures;
}

export type ToContender = { type: 'run'; job: Job } | { type: 'exit' };
export type FromContender =
	| { type: 'ready' }
	| { type: 'result'; result: RunResult }
	| { type: 'failed'; message: string };
