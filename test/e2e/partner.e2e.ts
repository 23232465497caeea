/**
 * A partner watches the 50 borrowers it onboarded with the template (templates/partner-borrower-
 * alerts.json) on a running n8n: activated, two shards polling every 20 seconds, what was delivered
 * remembered with each borrower in a Data table. Runs on n8n 2.x (`jest -c jest.e2e.config.js`) and
 * 1.x (jest.e2e-n8n1.config.js); queue.e2e.ts runs it in queue mode. See partnerWatch.ts for the
 * scenario.
 */
import { readFileSync } from 'node:fs';

import { createN8nHome, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import { onboardBorrowers } from '../../dev/sandbox/partner';
import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { startReceiver, type Receiver } from './helpers';
import {
	expectEachChangeOnce,
	partnerSteps,
	runPolls,
	setUpPartnerWatch,
	TEMPLATE_FILE,
} from './partnerWatch';

const BORROWERS = 50;

let sandbox: Sandbox;
let receiver: Receiver;
let home: N8nHome;
let server: N8nServer;

beforeAll(async () => {
	sandbox = await startSandbox({ dialect: 'live' });
	receiver = await startReceiver();
	// n8n 2.x's default; on 1.x it gives SQLite the pool that concurrent Data table writes need
	// (docs/partners.md, Shards).
	home = createN8nHome({ extraEnv: { DB_SQLITE_POOL_SIZE: '3' } });
	server = await home.start();
	await server.setupOwner();
}, 180_000);

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	await receiver?.close();
	home?.remove();
});

test('the template file imports as it is, placeholders and all, with the n8n CLI', async () => {
	const imported = await home.cli(['import:workflow', `--input=${TEMPLATE_FILE}`]);
	expect(imported.code).toBe(0);
	const template = JSON.parse(readFileSync(TEMPLATE_FILE, 'utf8'));
	const { nodes } = await server.rest('GET', `/workflows/${template.id}`);
	expect(nodes.map((node: { type: string }) => node.type)).toEqual(
		expect.arrayContaining([
			'n8n-nodes-base.scheduleTrigger',
			'n8n-nodes-base.dataTable',
			'n8n-nodes-lendasat.lendasatBorrower',
			'n8n-nodes-base.httpRequest',
			'n8n-nodes-base.errorTrigger',
		]),
	);
});

test(`the partner template over ${BORROWERS} borrowers in two overlapping shards: each change alerted once over seven polls, the failed alerts delivered at the next, memory one entry per standing event`, async () => {
	const borrowers = await onboardBorrowers(sandbox.url, sandbox.keys.master, BORROWERS, [
		{ status: 'PrincipalGiven' },
		{ status: 'Approved' },
	]);
	const watch = await setUpPartnerWatch(server, sandbox, receiver, borrowers);
	const { polls, expected } = await runPolls(
		server,
		receiver,
		watch,
		partnerSteps(sandbox, receiver),
	);
	process.stdout.write(
		`partner template: ${polls.map((poll, index) => `poll ${index + 1} ${poll.alerts.length} alerts (${poll.failedAlerts.length} failed)`).join(', ')}\n`,
	);
	await expectEachChangeOnce(server, watch, polls, expected, [sandbox.keys.master]);
}, 600_000);
