/**
 * The partner template (templates/partner-borrower-alerts.json) in a real n8n against the sandbox:
 * its twin differs only where the template asks the user to set something (the credential, the two
 * Data tables, the two URLs, where the shards split the rows), polls every 20 seconds instead of 5
 * minutes, gives Send alert 5 seconds instead of 30, keeps successful executions (the template saves
 * none) so that the test can read each poll, and runs in UTC (the daily once of the watch alerts).
 * test/e2e/partner.e2e.ts runs it on n8n 2.x and 1.x, test/e2e/queue.e2e.ts in queue mode.
 *
 * The two shards overlap (rows 1 to 30, and rows above 20), so that ten borrowers are polled by two
 * executions at the same moment: each of their events must still be alerted once. Seven polls, with
 * changes made between them through the sandbox's admin functions: every change alerted once, and
 * nothing else; the alert URL failing for a whole poll (some alerts time out, the rest get 500),
 * delivered whole at the next; extra collateral, and an unrelated update during a margin call, alert
 * nothing; a margin call after Healthy alerts again; a year passes (every contract ends, every
 * borrower takes a new loan) and what the watch remembers stays one event per borrower.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Json, N8nServer } from '../../dev/n8n/n8n-env';
import type { OnboardedBorrower } from '../../dev/sandbox/partner';
import type { Sandbox } from '../../dev/sandbox/server';
import { sealKey } from '../../nodes/LendasatBorrower/encryption/sealedKeys';
import { deactivate, saveLendasatCredential, waitFor, type Receiver } from './helpers';

export const TEMPLATE_FILE = join(
	__dirname,
	'..',
	'..',
	'templates',
	'partner-borrower-alerts.json',
);

/** The placeholders the template's sticky notes ask the user to replace. */
const PLACEHOLDERS = {
	credentialId: 'YOUR_LENDASAT_CREDENTIAL',
	alertUrl: 'https://hooks.slack.com/services/YOUR/ALERT/WEBHOOK',
	watchUrl: 'https://hooks.slack.com/services/YOUR/WATCH/WEBHOOK',
};

const POLL_SECONDS = 20;
export const ALERT_PATH = '/partner-alerts';
export const WATCH_PATH = '/partner-watch';

/** The nodes that use the borrower table, and those that use the watch-alerts table. */
const BORROWER_TABLE_NODES = [
	'Borrowers',
	'Claim the borrower',
	'Record delivered',
	'Release the claim',
	'Record what ended',
];
const ALERT_TABLE_NODES = ['Not alerted today', 'Alerted today'];

/** The largest row ID a Postgres `integer` holds: "no upper bound" in a shard's range. */
const LAST_ROW = 2_147_483_647;

/** Shard 1 polls rows 1 to 30, shard 2 the rows above 20: rows 21 to 30 are polled twice at once. */
export const SHARDS = [
	{ node: 'Shard 1: rows 1 to 10,000', from: 0, to: 30 },
	{ node: 'Shard 2: rows above 10,000', from: 20, to: LAST_ROW },
];

/** A borrower in the partner's table whose key Lendasat does not know (revoked, mistyped). */
export const BAD_BORROWER = {
	borrower_id: 'B-REVOKED',
	name: 'Revoked key',
	api_key: 'lndst_sk_0000000000ff_ThisKeyWasRevokedLongAgoThisKeyWasRevoked',
};

/** The template with the user's settings put in, as someone following its sticky notes would. */
export function templateTwin(settings: {
	credential: { id: string; name: string };
	borrowerTable: string;
	alertTable: string;
	alertUrl: string;
	watchUrl: string;
}): Json {
	const template = JSON.parse(
		readFileSync(TEMPLATE_FILE, 'utf8')
			.replaceAll(PLACEHOLDERS.alertUrl, settings.alertUrl)
			.replaceAll(PLACEHOLDERS.watchUrl, settings.watchUrl),
	);
	for (const node of template.nodes as Json[]) {
		if (node.credentials?.lendasatApi?.id === PLACEHOLDERS.credentialId)
			node.credentials.lendasatApi = settings.credential;
		if (BORROWER_TABLE_NODES.includes(node.name))
			node.parameters.dataTableId = { __rl: true, mode: 'id', value: settings.borrowerTable };
		if (ALERT_TABLE_NODES.includes(node.name))
			node.parameters.dataTableId = { __rl: true, mode: 'id', value: settings.alertTable };
		if (node.type === 'n8n-nodes-base.scheduleTrigger')
			node.parameters.rule = { interval: [{ field: 'seconds', secondsInterval: POLL_SECONDS }] };
		const shard = SHARDS.find((candidate) => candidate.node === node.name);
		if (shard) {
			const [from, to] = node.parameters.assignments.assignments;
			from.value = shard.from;
			to.value = shard.to;
		}
		if (node.name === 'Send alert') node.parameters.options.timeout = 5000;
	}
	const used = new Set((template.nodes as Json[]).map((node) => node.name));
	for (const name of [...BORROWER_TABLE_NODES, ...ALERT_TABLE_NODES, ...SHARDS.map((s) => s.node)])
		if (!used.has(name)) throw new Error(`the template has no node "${name}" any more`);
	// Saved as a new workflow next to the template (the test imports that too).
	delete template.id;
	template.name = 'e2e: partner borrower alerts (template twin)';
	template.settings = { ...template.settings, saveDataSuccessExecution: 'all', timezone: 'UTC' };
	return template;
}

export interface PartnerWatch {
	workflowId: string;
	borrowers: OnboardedBorrower[];
	projectId: string;
	borrowerTable: string;
	alertTable: string;
	/** The borrowers' plain keys: sealed in the table, they must appear nowhere n8n stores. */
	plainKeys: string[];
}

/** The partner's Key Sealing Secret: only the credential holds it, encrypted as n8n encrypts credentials. */
const SEALING_SECRET = randomBytes(32).toString('hex');

/**
 * What the partner sets up before activating the template: a credential with its master key and Key
 * Sealing Secret, the borrower table (the borrowers, with their keys sealed as Account → Create's
 * Seal API Key gives them, and one whose key Lendasat rejects), the watch-alerts table and the
 * workflow itself.
 */
export async function setUpPartnerWatch(
	server: N8nServer,
	sandbox: Sandbox,
	receiver: Receiver,
	borrowers: OnboardedBorrower[],
): Promise<PartnerWatch> {
	const credential = await saveLendasatCredential(server, 'Lendasat partner (master key)', {
		baseUrl: sandbox.url,
		keyType: 'master',
		apiKey: sandbox.keys.master,
		sealingSecret: SEALING_SECRET,
	});
	const project = await server.rest('GET', '/projects/personal');
	const text = (name: string) => ({ name, type: 'string' });
	const borrowerTable = await server.rest('POST', `/projects/${project.id}/data-tables`, {
		name: 'Lendasat borrowers',
		columns: ['borrower_id', 'name', 'api_key', 'reported'].map(text),
	});
	const alertTable = await server.rest('POST', `/projects/${project.id}/data-tables`, {
		name: 'Lendasat watch alerts',
		columns: ['cause', 'day'].map(text),
	});
	const rows = [
		...borrowers.map((borrower) => ({
			borrower_id: borrower.id,
			name: borrower.name,
			api_key: borrower.api_key,
		})),
		BAD_BORROWER,
	].map((row) => ({ ...row, api_key: sealKey(row.api_key, SEALING_SECRET, randomBytes) }));
	await server.rest('POST', `/projects/${project.id}/data-tables/${borrowerTable.id}/insert`, {
		data: rows,
		returnType: 'count',
	});
	const twin = templateTwin({
		credential,
		borrowerTable: borrowerTable.id,
		alertTable: alertTable.id,
		alertUrl: `${receiver.url}${ALERT_PATH}`,
		watchUrl: `${receiver.url}${WATCH_PATH}`,
	});
	// n8n 1.x needs `active` in the body; 2.x ignores it.
	const { id: workflowId } = await server.rest('POST', '/workflows', { ...twin, active: false });
	return {
		workflowId,
		borrowers,
		projectId: project.id,
		borrowerTable: borrowerTable.id,
		alertTable: alertTable.id,
		plainKeys: [...borrowers.map((borrower) => borrower.api_key), BAD_BORROWER.api_key],
	};
}

/** The borrower table's rows as n8n stores them. */
export async function tableRows(server: N8nServer, watch: PartnerWatch): Promise<Json[]> {
	const page = await server.rest(
		'GET',
		`/projects/${watch.projectId}/data-tables/${watch.borrowerTable}/rows?take=1000&skip=0`,
	);
	return page.data ?? page;
}

/** One poll as the test saw it: the executions of both shards, and the alerts they sent. */
export interface Poll {
	executions: Json[];
	/** The alerts delivered (answered 200), one per borrower with news. */
	alerts: Json[];
	/** Alerts the receiver failed (500 or no answer). */
	failedAlerts: Json[];
	/** Watch alerts: the watch itself failing, or borrowers it could not check. */
	watchAlerts: Json[];
}

/** What changes before a poll, and the event keys the poll must alert. */
export interface Step {
	change: (watch: PartnerWatch) => string[] | Promise<string[]>;
	/** The alert URL fails at the next poll: n8n records the executions that had alerts to send as errors. */
	failing?: boolean;
}

/**
 * Activates the twin, waits for each poll (both shards' executions, and the watch's own error run
 * where a poll fails) and makes the next changes as soon as it has finished, 20 seconds before the
 * next poll starts; checks that no poll started before its changes were made. Returns each poll and
 * the event keys each was expected to alert (the first poll's: every contract, see the test).
 */
export async function runPolls(
	server: N8nServer,
	receiver: Receiver,
	watch: PartnerWatch,
	steps: Step[],
): Promise<{ polls: Poll[]; expected: string[][] }> {
	const polls: Poll[] = [];
	const expected: string[][] = [[]];
	let seen = 0;
	let changesMadeAt = 0;
	let failing = false;
	await server.activate(watch.workflowId);
	try {
		for (let index = 0; index <= steps.length; index++) {
			const executions = await finishedPoll(server, watch.workflowId, index + 1, failing);
			for (const execution of executions)
				if (Date.parse(execution.startedAt) < changesMadeAt - 1000)
					throw new Error(`poll ${index + 1} started before its changes were made`);
			const received = receiver.received.slice(seen);
			seen = receiver.received.length;
			const alerts = received.filter((request) => request.path === ALERT_PATH);
			polls.push({
				executions,
				alerts: alerts.filter((alert) => alert.answered === 'ok').map((alert) => alert.body),
				failedAlerts: alerts.filter((alert) => alert.answered !== 'ok').map((alert) => alert.body),
				watchAlerts: received
					.filter((request) => request.path === WATCH_PATH)
					.map((alert) => alert.body),
			});
			if (index === steps.length) break;
			expected.push(await steps[index].change(watch));
			failing = steps[index].failing === true;
			changesMadeAt = Date.now();
		}
	} finally {
		await deactivate(server, watch.workflowId);
	}
	return { polls, expected };
}

/**
 * Waits for the `count`-th poll: both shards' executions (started by the schedule, at the same
 * moment) and, where they fail, the watch's own run on n8n's error trigger; returns the shards'
 * executions with their data.
 */
async function finishedPoll(
	server: N8nServer,
	workflowId: string,
	count: number,
	failing: boolean,
): Promise<Json[]> {
	const done = (execution: Json) => !['new', 'running', 'waiting'].includes(execution.status);
	const summaries = await waitFor(
		async () => {
			const executions = (await server.executions(workflowId)).sort(
				(a: Json, b: Json) => Number(a.id) - Number(b.id),
			);
			const polls = executions.filter((execution: Json) => execution.mode === 'trigger');
			const poll = polls.slice((count - 1) * SHARDS.length, count * SHARDS.length);
			if (poll.length < SHARDS.length || !poll.every(done)) return undefined;
			const errorRuns = executions.filter(
				(execution: Json) =>
					execution.mode === 'error' && Number(execution.id) > Number(poll[0].id),
			);
			const failed = poll.filter((execution: Json) => execution.status !== 'success');
			// Each failed poll starts one run of the watch's error trigger; wait for it to end too.
			if (errorRuns.filter(done).length < failed.length) return undefined;
			return poll;
		},
		(POLL_SECONDS + 90) * 1000,
		`poll ${count} of the partner workflow`,
	);
	// A poll fails where a shard had alerts to send and the alert URL failed; the other shard is fine.
	const statuses = summaries.map((summary: Json) => summary.status);
	if (!failing && statuses.some((status: string) => status !== 'success')) {
		const failed = await server.execution(
			String(summaries[statuses.findIndex((status: string) => status !== 'success')].id),
		);
		const error = failed.data?.resultData?.error;
		throw new Error(
			`poll ${count} failed at ${failed.data?.resultData?.lastNodeExecuted}: ${error?.message} ${error?.description ?? ''}`,
		);
	}
	if (failing) expect(statuses).toContain('error');
	return await Promise.all(
		summaries.map(async (summary: Json) => await server.execution(String(summary.id))),
	);
}

/** The items of one output of a node in an execution's data. */
function taskOutput(execution: Json, node: string, output: number): Json[] {
	const runData = execution.data?.resultData?.runData ?? execution.resultData?.runData;
	return runData?.[node]?.[0]?.data?.main?.[output] ?? [];
}

/** The contracts the scenario changes, by borrower and kind. */
function contractOf(watch: PartnerWatch, borrower: number, which: 'loan' | 'request'): string {
	return watch.borrowers[borrower].contracts[which === 'loan' ? 0 : 1];
}

const DAY = 24 * 60 * 60_000;

/**
 * The changes between polls, each returning the event keys it must alert: margin calls, a due
 * installment, status changes and extra collateral with the alert URL failing; the same delivered
 * at the next poll, with collateral added to a loan in margin call; a margin call's next level, one
 * that ends, the installment late, more status changes (one of a borrower both shards poll); the
 * margin call that ended comes back; a year passes; nothing.
 */
export function partnerSteps(sandbox: Sandbox, receiver: Receiver): Step[] {
	const installmentOf = (contractId: string) =>
		String(sandbox.state.contracts.get(contractId)?.contract.installments[0].id);
	const dueKey = (contractId: string, late = false) => {
		const installment = sandbox.state.contracts.get(contractId)?.contract.installments[0];
		return `${contractId}:${installmentOf(contractId)}:${new Date(String(installment?.due_date)).toISOString()}${late ? ':late' : ''}`;
	};
	let missed: string[] = [];
	return [
		{
			failing: true,
			change: (watch) => {
				const loan = (borrower: number) => contractOf(watch, borrower, 'loan');
				const request = (borrower: number) => contractOf(watch, borrower, 'request');
				sandbox.admin.setLiquidationStatus(loan(3), 'FirstMarginCall');
				sandbox.admin.setLiquidationStatus(loan(7), 'FirstMarginCall');
				sandbox.admin.setLiquidationStatus(loan(11), 'SecondMarginCall');
				sandbox.admin.setInstallment(loan(5), installmentOf(loan(5)), {
					due_date: new Date(Date.now() + DAY).toISOString(),
				});
				sandbox.admin.setContractStatus(request(2), 'CollateralSeen');
				sandbox.admin.setContractStatus(request(9), 'Cancelled');
				sandbox.admin.setContractStatus(loan(13), 'RepaymentProvided');
				// More collateral on a paid-out loan: no status change, nothing to alert.
				sandbox.admin.addCollateral(loan(15), 25_000);
				// The alert URL is down for this poll: the first alerts get no answer, the rest 500.
				receiver.answer(ALERT_PATH, 'hang');
				setTimeout(() => receiver.answer(ALERT_PATH, 500), 2_000).unref();
				missed = [
					`${loan(3)}:marginCall:FirstMarginCall`,
					`${loan(7)}:marginCall:FirstMarginCall`,
					`${loan(11)}:marginCall:SecondMarginCall`,
					dueKey(loan(5)),
					`${request(2)}:CollateralSeen:1`,
					`${request(9)}:Cancelled:1`,
					`${loan(13)}:RepaymentProvided:1`,
				];
				return [];
			},
		},
		{
			change: (watch) => {
				receiver.answer(ALERT_PATH, 'ok');
				// The borrower answers the margin call: collateral that does not end it yet.
				sandbox.admin.addCollateral(contractOf(watch, 3, 'loan'), 10_000);
				return missed;
			},
		},
		{
			change: (watch) => {
				const loan = (borrower: number) => contractOf(watch, borrower, 'loan');
				const request = (borrower: number) => contractOf(watch, borrower, 'request');
				sandbox.admin.setLiquidationStatus(loan(3), 'SecondMarginCall');
				sandbox.admin.setLiquidationStatus(loan(7), 'Healthy');
				sandbox.admin.setInstallment(loan(5), installmentOf(loan(5)), {
					due_date: new Date(Date.now() - DAY).toISOString(),
					status: 'late',
				});
				sandbox.admin.setContractStatus(request(2), 'CollateralConfirmed');
				sandbox.admin.setContractStatus(request(17), 'Rejected');
				// Row 26: both shards poll this borrower.
				sandbox.admin.setContractStatus(request(25), 'Cancelled');
				return [
					`${loan(3)}:marginCall:SecondMarginCall`,
					dueKey(loan(5), true),
					`${request(2)}:CollateralConfirmed:1`,
					`${request(17)}:Rejected:1`,
					`${request(25)}:Cancelled:1`,
				];
			},
		},
		{
			change: (watch) => {
				// Healthy at the last poll, in margin call again now: a new episode.
				const loan = contractOf(watch, 7, 'loan');
				sandbox.admin.setLiquidationStatus(loan, 'FirstMarginCall');
				return [`${loan}:marginCall:FirstMarginCall`];
			},
		},
		{
			change: (watch) => {
				const yearAgo = new Date(Date.now() - 365 * DAY).toISOString();
				const keys: string[] = [];
				for (const borrower of watch.borrowers) {
					for (const id of borrower.contracts) {
						const contract = sandbox.state.contracts.get(id)?.contract;
						if (!contract) continue;
						contract.status = 'Closed';
						contract.liquidation_status = 'Healthy';
						contract.updated_at = yearAgo;
					}
					const loan = sandbox.admin.createContract(borrower.api_key, {
						status: 'PrincipalGiven',
					});
					borrower.contracts.push(loan.id);
					keys.push(`${loan.id}:PrincipalGiven:1`);
				}
				return keys;
			},
		},
		{ change: () => [] },
	];
}

/**
 * Every poll alerted exactly what changed before it (the first: every contract's status), each
 * event once across all polls, one alert per borrower and poll; the failed poll delivered nothing
 * and its events came whole at the next; the rejected key is a watch alert once a day; no alert,
 * and nothing n8n stores, holds a key; what the watch remembers is one entry per event that stands.
 */
export async function expectEachChangeOnce(
	server: N8nServer,
	watch: PartnerWatch,
	polls: Poll[],
	expected: string[][],
	secrets: string[],
): Promise<void> {
	const keysOf = (poll: Poll) =>
		poll.alerts.flatMap((alert) =>
			(alert.events as Json[]).map((event) => String(event.event_key)),
		);
	const contracts = watch.borrowers.flatMap((borrower) => borrower.contracts.slice(0, 2));
	const first = keysOf(polls[0]);
	expect(first.map((key) => key.split(':')[0]).sort()).toEqual([...contracts].sort());
	expect(polls[0].alerts).toHaveLength(watch.borrowers.length);
	for (let index = 1; index < polls.length; index++)
		expect(keysOf(polls[index]).sort()).toEqual([...expected[index]].sort());
	// Never twice, although ten borrowers are polled by two executions at once: each poll's keys are
	// exactly those expected (a key sent twice would be one too many), and one alert per borrower.
	expect(new Set(first).size).toBe(first.length);
	for (const poll of polls) {
		const borrowers = poll.alerts.map((alert) => alert.borrower);
		expect(new Set(borrowers).size).toBe(borrowers.length);
	}
	// Poll 2's alert URL failed: nothing delivered, every alert tried once and released.
	expect(polls[1].alerts).toEqual([]);
	expect(
		polls[1].failedAlerts
			.flatMap((alert) => (alert.events as Json[]).map((event) => String(event.event_key)))
			.sort(),
	).toEqual([...expected[2]].sort());

	// The watch's own alerts, once a day per cause: the rejected key at the first poll, the failed
	// alerts at the second (a new day in UTC would bring each once more).
	const days = polls.map((poll) => String(poll.executions[0].startedAt).slice(0, 10));
	const watchAlerts = polls.map((poll) => poll.watchAlerts.map((alert) => String(alert.text)));
	expect(watchAlerts[0]).toEqual([
		`Lendasat could not check 1 borrower(s) (${BAD_BORROWER.borrower_id}): Lendasat rejected the borrower's API key from the input item (HTTP 401)`,
	]);
	expect(watchAlerts[1]).toEqual([
		expect.stringMatching(
			/^The Lendasat watch failed at Alerts not delivered: Some alerts could not be delivered to your alert URL; they go out again at the next poll/,
		),
	]);
	for (let index = 2; index < polls.length; index++)
		if (days[index] === days[index - 1]) expect(watchAlerts[index]).toEqual([]);

	// The error output of a failed borrower holds the error only; its pairing names the row.
	for (const execution of polls[0].executions) {
		const failed = taskOutput(execution, 'New events', 1);
		if (failed.length === 0) continue;
		expect(failed.map((item) => Object.keys(item.json))).toEqual([['error']]);
		expect(
			taskOutput(execution, 'Name the borrower', 0).map((item) => item.json.borrower_id),
		).toEqual([BAD_BORROWER.borrower_id]);
	}
	// The ten borrowers of both shards: how often both executions found the same news at once (each
	// then sent it once, as checked above).
	const raced = polls.slice(1).filter((poll) => {
		const told = poll.executions.map((execution) =>
			taskOutput(execution, 'New events', 0).map((item) => String(item.json.borrower)),
		);
		return told.length === 2 && told[0].some((borrower) => told[1].includes(borrower));
	}).length;
	process.stdout.write(
		`partner template: both shards found the same borrower's news at ${raced} poll(s)\n`,
	);

	// What the watch remembers: for each borrower, one 11-character entry per event that stands now.
	const rows = await tableRows(server, watch);
	for (const row of rows) {
		if (row.borrower_id === BAD_BORROWER.borrower_id) {
			expect(row.reported ?? null).toBeNull();
			continue;
		}
		expect(row.reported).toMatch(/^1:[A-Za-z0-9_-]{11}$/);
	}

	// No key in any alert, in any execution n8n saved (failed ones included) or in the table: the
	// table and the executions hold the sealed keys only.
	const saved = await Promise.all(
		(await server.executions(watch.workflowId)).map(
			async (execution: Json) => await server.execution(String(execution.id)),
		),
	);
	const stored = JSON.stringify({ alerts: polls, saved, rows });
	expect(stored).toContain('lendasat-sealed:v1:');
	for (const secret of [...secrets, ...watch.plainKeys, SEALING_SECRET])
		expect(stored).not.toContain(secret);
}
