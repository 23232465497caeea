/**
 * `npm run sandbox [-- --port 7337 --dialect live --rate-limit 5 --storm 20 --idempotency --create-status 201 --latency 50]`
 * Starts the sandbox, prints how to use it and runs until Ctrl-C / SIGTERM.
 */
import { PAGING_MODES } from './config';
import { SEED_IDS, startSandbox, type PagingMode, type StartOptions } from './server';

const USAGE = `Usage: npm run sandbox -- [--port N] [--dialect spec|live] [--rate-limit N [--storm SECONDS]] [--idempotency]
                            [--create-status 200|201] [--latency MS] [--seed TEXT] [--extra-contracts N]
                            [--paging ignore-page|endless|lying-total-pages|no-ids]
Port also from SANDBOX_PORT (default: a free port).`;

function fail(message: string): never {
	console.error(`sandbox: ${message}\n${USAGE}`);
	process.exit(2);
}

function numberArg(flag: string, value: string | undefined): number {
	const parsed = Number(value);
	if (value === undefined || !Number.isFinite(parsed) || parsed < 0)
		fail(`${flag} needs a non-negative number`);
	return parsed;
}

function parseArgs(argv: string[]): StartOptions {
	const options: StartOptions = {
		port: process.env.SANDBOX_PORT ? numberArg('SANDBOX_PORT', process.env.SANDBOX_PORT) : 0,
	};
	for (let index = 0; index < argv.length; index += 1) {
		const flag = argv[index];
		const next = (): string | undefined => argv[++index];
		switch (flag) {
			case '--port':
				options.port = numberArg(flag, next());
				break;
			case '--dialect': {
				const dialect = next();
				if (dialect !== 'spec' && dialect !== 'live') fail('--dialect must be spec or live');
				options.dialect = dialect;
				break;
			}
			case '--rate-limit':
				options.rateLimit = { ...options.rateLimit, requestsPerSecond: numberArg(flag, next()) };
				break;
			case '--storm': {
				const seconds = numberArg(flag, next());
				if (!options.rateLimit) fail('--storm needs --rate-limit first');
				options.rateLimit = { ...options.rateLimit, stormUntilMs: Date.now() + seconds * 1000 };
				break;
			}
			case '--idempotency':
				options.idempotency = true;
				break;
			case '--create-status': {
				const status = numberArg(flag, next());
				if (status !== 200 && status !== 201) fail('--create-status must be 200 or 201');
				options.createStatus = status;
				break;
			}
			case '--latency':
				options.latencyMs = numberArg(flag, next());
				break;
			case '--paging': {
				const mode = next();
				if (!PAGING_MODES.includes(mode as PagingMode))
					fail(`--paging must be one of ${PAGING_MODES.join(', ')}`);
				options.paging = mode as PagingMode;
				break;
			}
			case '--seed':
				options.seed = { ...options.seed, seed: next() };
				break;
			case '--extra-contracts':
				options.seed = { ...options.seed, extraContracts: numberArg(flag, next()) };
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
	return options;
}

async function main(): Promise<void> {
	const options = parseArgs(process.argv.slice(2));
	const sandbox = await startSandbox(options);
	const config = sandbox.config;
	const offers = Object.entries(SEED_IDS.offers).map(([name, id]) => `    ${id}  ${name}`);
	console.log(
		[
			'Lendasat borrower API sandbox',
			`  URL            ${sandbox.url}   (base URL; paths start with /api)`,
			`  Master key     ${sandbox.keys.master}`,
			`  Borrower key   ${sandbox.keys.borrower}`,
			`  Other borrower ${sandbox.keys.otherBorrower}`,
			`  Dialect ${config.dialect}, create status ${config.createStatus}, rate limit ${config.rateLimit ? `${config.rateLimit.requestsPerSecond}/s` : 'off'}, idempotency ${config.idempotency ? 'on' : 'off'}`,
			'  Offers (loan_id):',
			...offers,
			`  Admin: ${sandbox.url}/__admin/{keys,config,stats,requests,reset,contracts,offers,notifications}`,
			'  Ctrl-C to stop.',
		].join('\n'),
	);
	let stopping = false;
	const stop = (signal: string): void => {
		if (stopping) return;
		stopping = true;
		console.log(`\nsandbox: ${signal}, closing`);
		sandbox.close().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
	console.error('sandbox: failed to start', error);
	process.exit(1);
});
