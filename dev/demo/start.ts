// `npm start`: the package running in a real n8n against the local sandbox, ready to click through.
//
//   build → sandbox → n8n installed (cached) → fresh n8n user folder with this package as a community
//   package, the demo credentials and workflows → n8n on 127.0.0.1 → owner account → banner.
//
// Ctrl-C stops everything it started. Ports: N8N_PORT (default 5678) and SANDBOX_PORT (default 7337),
// each replaced by a free port when taken. The n8n data lives in .tmp/n8n-demo and is recreated on
// every start.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, SEED_IDS, type Sandbox } from '../sandbox/server';
import { ROOT, ensureN8n, node24Env } from '../n8n/ensure-n8n';
import { DEMO_WORKFLOWS, importDemo } from './demo';
import { seconds, step } from '../n8n/steps';
import { DEMO_OWNER, createN8nHome, freePort, type N8nServer } from '../n8n/n8n-env';

// Outside the repository: from inside it the package would find the repository's dev copy of n8n-workflow.
const DEMO_DIR = join(tmpdir(), 'n8n-nodes-lendasat-demo');

/** The preferred port if it is free on 127.0.0.1, else any free one. */
function portOr(preferred: number): Promise<number> {
	return new Promise((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(freePort()));
		probe.listen(preferred, '127.0.0.1', () => probe.close(() => resolve(preferred)));
	});
}

function npmRunBuild(): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn('npm', ['run', '--silent', 'build'], {
			cwd: ROOT,
			env: node24Env(),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
		child.on('error', reject);
		child.on('close', (code) =>
			code === 0 ? resolve() : reject(new Error(`npm run build failed:\n${output.slice(-4000)}`)),
		);
	});
}

const cleanups: (() => Promise<void>)[] = [];
let stoppingSince = 0;

/** Stops what was started, newest first. n8n is killed on exit in any case (see n8n-env.ts). */
async function stopAll(exitCode: number): Promise<void> {
	if (stoppingSince) return;
	stoppingSince = Date.now();
	process.stdout.write('\n▶ Stopping n8n and the sandbox …\n');
	for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
	process.stdout.write(`✔ Stopped (${seconds(stoppingSince)} s)\n`);
	process.exit(exitCode);
}

/** Ctrl-C stops everything; pressing it again after a second does not wait for n8n any more. */
function onSignal(exitCode: number): void {
	if (!stoppingSince) void stopAll(exitCode);
	else if (Date.now() - stoppingSince > 1000) process.exit(exitCode);
}

function banner(n8n: N8nServer, sandbox: Sandbox): string {
	const contract = SEED_IDS.contracts.principalGiven;
	return `
────────────────────────────────────────────────────────────────────────────
  n8n with n8n-nodes-lendasat is running: ${n8n.url}

  Log in:     ${DEMO_OWNER.email}
  Password:   ${DEMO_OWNER.password}

  What to click (open a workflow from Overview, then its "Execute workflow"):
   1. "Lendasat demo: take a loan": click "Execute workflow", then the "Request
      the loan" node to see the contract the sandbox created.
   2. "Lendasat demo: partner onboarding": click "Execute workflow": the master
      key creates a borrower account, then the same credential acts as that
      borrower (Options → Act as Borrower = the key it returned).
   3. "Lendasat demo: margin-call alert" is active and polls every minute. Start
      a margin call in the sandbox, then watch Overview → Executions:
        curl -s -X POST ${sandbox.url}/__admin/contracts/${contract}/liquidation-status \\
             -H 'content-type: application/json' -d '{"liquidation_status":"FirstMarginCall"}'
   4. "Lendasat demo: alert inbox" is active too: its webhook receives what step 3
      sends; its executions show each alert.
   5. "Lendasat demo: daily report of open contracts": run it from its "Run now"
      trigger (the play button on that node), not from the morning schedule.
   6. "Lendasat demo: repay in bitcoin and reclaim the collateral": click
      "Execute workflow": a loan is taken, repaid in bitcoin and its collateral
      claimed; "Contract closed" shows it Closed. The STAND-IN nodes play your
      wallet, your external signer, the lender and the blockchain.
   7. "Lendasat demo: repay an Arkade loan and claim the collateral off-chain":
      the same with Arkade collateral: an Ark address, the Ark claim PSBTs, a
      STAND-IN Ark wallet that signs them, then Broadcast Ark Claim.
   Add a Lendasat node yourself: "+" → search "Lendasat". Credentials: Overview →
   Credentials ("Lendasat partner (master key)", "Lendasat borrower key").

  Sandbox API:     ${sandbox.url}  (demo data, resets on every start)
  Master key:      ${sandbox.keys.master}
  Borrower key:    ${sandbox.keys.borrower}
  n8n log:         ${join(DEMO_DIR, 'n8n.log')}

  Press Ctrl-C to stop everything.
────────────────────────────────────────────────────────────────────────────
`;
}

async function main(): Promise<void> {
	const started = Date.now();
	process.on('SIGINT', () => onSignal(130));
	process.on('SIGTERM', () => onSignal(143));

	await step('Build the package (npm run build)', npmRunBuild);
	const sandbox = await step('Start the Lendasat sandbox', async () => {
		const port = await portOr(Number(process.env.SANDBOX_PORT ?? 7337));
		const started = await startSandbox({ port, idempotency: true });
		cleanups.push(() => started.close());
		return started;
	});
	await step('Install n8n if needed', () => ensureN8n());
	const n8nPort = await portOr(Number(process.env.N8N_PORT ?? 5678));
	const n8nUrl = `http://127.0.0.1:${n8nPort}`;
	const home = await step(
		'Prepare the n8n user folder with this package as a community package',
		() => {
			rmSync(DEMO_DIR, { recursive: true, force: true });
			return createN8nHome({ dir: DEMO_DIR });
		},
	);
	await step('Import the credentials (master key, borrower key) and the demo workflows', () =>
		importDemo(home, { sandboxUrl: sandbox.url, n8nUrl, keys: sandbox.keys }),
	);
	const n8n = await step(`Start n8n on ${n8nUrl}`, async () => {
		const server = await home.start({ port: n8nPort, logFile: join(DEMO_DIR, 'n8n.log') });
		cleanups.push(() => server.stop());
		return server;
	});
	await step(`Create the owner account ${DEMO_OWNER.email}`, () => n8n.setupOwner());
	await step('Activate the alert inbox and the margin-call alert', async () => {
		await n8n.activate(DEMO_WORKFLOWS.alertInbox);
		try {
			await n8n.activate(DEMO_WORKFLOWS.marginCall);
		} catch (error) {
			process.stdout.write(
				`  (margin-call alert not activated: ${(error as Error).message.slice(0, 300)})\n`,
			);
		}
	});
	process.stdout.write(banner(n8n, sandbox));
	process.stdout.write(`Ready after ${seconds(started)} s.\n`);

	// Keep running until Ctrl-C; notice if n8n dies on its own.
	const watch = setInterval(() => {
		if (!n8n.running && !stoppingSince) {
			process.stdout.write(
				`\nn8n stopped unexpectedly; last output:\n${n8n.output().slice(-2000)}\n`,
			);
			void stopAll(1);
		}
	}, 1000);
	cleanups.unshift(async () => clearInterval(watch));
}

main().catch(async (error: Error) => {
	process.stderr.write(`\n${error.message}\n`);
	await stopAll(1);
});
