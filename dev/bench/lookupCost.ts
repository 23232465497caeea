/**
 * What Contract → Create's duplicate protection costs in list requests when nothing collides:
 * `items` contracts with the user's own Idempotency Key (each item its own key), in `executions`
 * executions started at once, against the sandbox on 127.0.0.1 (in this process). Each execution
 * looks once before sending (one walk shared by its items) and once after (one walk when the
 * last of its requests is answered); the figure of interest is the look after, per item.
 *
 *   npm run build && npx tsx dev/bench/lookupCost.ts [--items 1000] [--executions 1]
 *        [--dialect live|spec] [--rate-limit 10] [--automatic-key]
 *
 * `measureLookupCost(options)` gives the same figures to the benchmark.
 */
import { runWorkflow, singleNodeWorkflow } from '../harness/n8n';
import { startSandbox } from '../sandbox/server';
import { LIVE_FIELDS, countLooks } from './lib/requests';

export interface LookupCostOptions {
	/** Contract → Create items in all (default 1,000). */
	items?: number;
	/** Executions started at once, the items split evenly between them (default 1). */
	executions?: number;
	dialect?: 'live' | 'spec';
	/** The sandbox's limit per key, in requests per second (default none). */
	rateLimit?: number;
	/** Leave the Idempotency Key automatic (no look before or after, unless a request fails). */
	automaticKey?: boolean;
}

export interface LookupCost {
	items: number;
	executions: number;
	created: number;
	duplicates: number;
	failedItems: number;
	/** GET /api/contracts in all: the looks before sending and the checks after. */
	listRequests: number;
	/**
	 * GET /api/contracts after the last contract request: the check for a second contract with the
	 * same key (exact for one execution; with several, the checks of those that finished earlier
	 * are counted in listRequests only).
	 */
	checkListRequests: number;
	/** checkListRequests ÷ items. */
	checkListRequestsPerItem: number;
	requests: number;
	rateLimited: number;
	seconds: number;
}

/** Contract → Create's Additional Fields that Lendasat's backend requires. */
export const LIVE_CREATE_FIELDS = {
	collateralAddress: LIVE_FIELDS.borrowerBtcAddress,
	repaymentAddress: LIVE_FIELDS.borrowerLoanAddress,
	borrowerPublicKey: LIVE_FIELDS.borrowerPk,
	derivationPath: LIVE_FIELDS.derivationPath,
	loanType: LIVE_FIELDS.loanType,
};

export async function measureLookupCost(options: LookupCostOptions = {}): Promise<LookupCost> {
	const { items = 1000, executions = 1, dialect = 'live', rateLimit, automaticKey } = options;
	const sandbox = await startSandbox({
		dialect,
		...(rateLimit !== undefined && { rateLimit: { requestsPerSecond: rateLimit } }),
	});
	try {
		const offer = sandbox.admin.addOffer({ loan_amount_min: 100, loan_amount_max: 1e12 });
		const workflow = singleNodeWorkflow({
			resource: 'contract',
			operation: 'create',
			loanId: { __rl: true, mode: 'id', value: offer.id },
			loanAmount: 500,
			durationDays: 30,
			...(dialect === 'live' && { additionalFields: LIVE_CREATE_FIELDS }),
			options: automaticKey ? {} : { idempotencyKey: '={{ $json.order }}' },
		});
		const perExecution = Math.ceil(items / executions);
		const started = Date.now();
		const runs = await Promise.all(
			Array.from({ length: executions }, (_, execution) =>
				runWorkflow(workflow, {
					credential: {
						environment: 'custom',
						baseUrl: sandbox.url,
						keyType: 'borrower',
						apiKey: sandbox.keys.borrower,
					},
					executionId: String(9000 + execution),
					items: Array.from(
						{ length: Math.min(perExecution, items - execution * perExecution) },
						(_, index) => ({ order: `cost-${execution}-${index}` }),
					),
				}),
			),
		);
		const seconds = (Date.now() - started) / 1000;
		const looks = countLooks(sandbox.requests);
		const stats = sandbox.stats();
		return {
			items,
			executions,
			created: stats.contractsCreated,
			duplicates: stats.duplicateContracts,
			failedItems: runs.filter(({ error }) => error).length,
			listRequests: looks.all,
			checkListRequests: looks.afterLastCreate,
			checkListRequestsPerItem: looks.afterLastCreate / items,
			requests: stats.requests,
			rateLimited: stats.rateLimited,
			seconds,
		};
	} finally {
		await sandbox.close();
	}
}

function parseArgs(argv: string[]): LookupCostOptions {
	const value = (flag: string) => {
		const at = argv.indexOf(flag);
		return at >= 0 ? argv[at + 1] : undefined;
	};
	const number = (flag: string) => {
		const text = value(flag);
		return text === undefined ? undefined : Number(text);
	};
	const dialect = value('--dialect');
	return {
		items: number('--items'),
		executions: number('--executions'),
		dialect: dialect === 'spec' ? 'spec' : 'live',
		rateLimit: number('--rate-limit'),
		automaticKey: argv.includes('--automatic-key'),
	};
}

if (require.main === module) {
	measureLookupCost(parseArgs(process.argv.slice(2)))
		.then((cost) => {
			process.stdout.write(`${JSON.stringify(cost, null, 2)}\n`);
			process.exit(0);
		})
		.catch((error: Error) => {
			process.stderr.write(`${error.stack ?? error.message}\n`);
			process.exit(1);
		});
}
