/**
 * The partner template (templates/partner-borrower-alerts.json) in a real n8n against the sandbox:
 * its twin differs only where the template asks the user to set something (the credential, the
 * borrower table, the alert URL), polls every 20 seconds instead of 5 minutes, keeps successful
 * executions (the template saves none) so that the test can read each poll, and runs in UTC (the
 * daily once of the error alerts). test/e2e/partner.e2e.ts runs it on n8n 2.x and 1.x,
 * test/e2e/queue.e2e.ts in queue mode.
 *
 * Three polls with changes made between them through the sandbox's admin functions (margin calls,
 * a due installment, status changes), then a fourth with none: every change is alerted exactly once,
 * nothing for unchanged contracts, and one borrower whose key Lendasat rejects fails alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Json, N8nServer } from '../../dev/n8n/n8n-env';
import type { OnboardedBorrower } from '../../dev/sandbox/partner';
import type { Sandbox } from '../../dev/sandbox/server';
import { nodeOutput, waitFor, type Receiver } from './helpers';

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
	alertUrl: 'https://hooks.slack.com/services/YOUR/WEBHOOK/URL',
};

const POLL_SECONDS = 20;
const ALERT_PATH = '/partner-alerts';
const EVENTS_NODE = 'Contract events';

/** A borrower in the partner's table whose key Lendasat does not know (revoked, mistyped). */
export const BAD_BORROWER = {
	borrower_id: 'B-REVOKED',
	name: 'Revoked key',
	api_key: 'lndst_sk_0000000000ff_ThisKeyWasRevokedLongAgoThisKeyWasRevoked',
};

/** The template with the user's settings put in, as someone following its sticky notes would. */
export function templateTwin(settings: {
	credential: { id: string; name: string };
	dataTableId: string;
	alertUrl: string;
}): Json {
	const template = JSON.parse(
		readFileSync(TEMPLATE_FILE, 'utf8').replaceAll(PLACEHOLDERS.alertUrl, settings.alertUrl),
	);
	for (const node of template.nodes as Json[]) {
		if (node.credentials?.lendasatApi?.id === PLACEHOLDERS.credentialId)
			node.credentials.lendasatApi = settings.credential;
		if (node.type === 'n8n-nodes-base.dataTable')
			node.parameters.dataTableId = { __rl: true, mode: 'id', value: settings.dataTableId };
		if (node.type === 'n8n-nodes-base.scheduleTrigger')
			node.parameters.rule = { interval: [{ field: 'seconds', secondsInterval: POLL_SECONDS }] };
	}
	// Saved as a new workflow next to the template (the test imports that too).
	delete template.id;
	template.name = 'e2e: partner borrower alerts (template twin)';
	template.settings = { ...template.settings, saveDataSuccessExecution: 'all', timezone: 'UTC' };
	return template;
}

export interface PartnerWatch {
	workflowId: string;
	borrowers: OnboardedBorrower[];
}

/**
 * What the partner sets up before activating the template: a credential with its master key, the
 * borrower table (50 borrowers and the one with a rejected key) and the workflow itself.
 */
export async function setUpPartnerWatch(
	server: N8nServer,
	sandbox: Sandbox,
	receiver: Receiver,
	borrowers: OnboardedBorrower[],
): Promise<PartnerWatch> {
	const credential = { name: 'Lendasat partner (master key)' };
	const { id: credentialId } = await server.rest('POST', '/credentials', {
		...credential,
		type: 'lendasatApi',
		data: {
			environment: 'custom',
			baseUrl: sandbox.url,
			keyType: 'master',
			apiKey: sandbox.keys.master,
		},
	});
	const project = await server.rest('GET', '/projects/personal');
	const table = await server.rest('POST', `/projects/${project.id}/data-tables`, {
		name: 'Lendasat borrowers',
		columns: [
			{ name: 'borrower_id', type: 'string' },
			{ name: 'name', type: 'string' },
			{ name: 'api_key', type: 'string' },
		],
	});
	await server.rest('POST', `/projects/${project.id}/data-tables/${table.id}/insert`, {
		data: [
			...borrowers.map((borrower) => ({
				borrower_id: borrower.id,
				name: borrower.name,
				api_key: borrower.api_key,
			})),
			BAD_BORROWER,
		],
		returnType: 'count',
	});
	const twin = templateTwin({
		credential: { id: credentialId, ...credential },
		dataTableId: table.id,
		alertUrl: `${receiver.url}${ALERT_PATH}`,
	});
	// n8n 1.x needs `active` in the body; 2.x ignores it.
	const { id: workflowId } = await server.rest('POST', '/workflows', { ...twin, active: false });
	return { workflowId, borrowers };
}

/** One poll as the test saw it: the alerts it sent and what the Lendasat node gave. */
export interface Poll {
	executionId: string;
	startedAt: string;
	alerts: Json[];
	/** Borrowers (borrower_id) on the Lendasat node's error output. */
	failed: string[];
	/** Items on the Lendasat node's main output: every event as it stands now. */
	events: number;
}

/** The changes made before a poll: the event_keys' prefixes they must alert, one alert each. */
type Changes = (watch: PartnerWatch) => string[];

/**
 * Activates the twin, waits for each poll in turn and makes the next changes as soon as a poll has
 * finished (20 seconds before the next one starts), then runs `afterChanges`; checks that no poll
 * started before its changes were made. Returns what each poll did and what each was expected to
 * alert.
 */
export async function runPolls(
	server: N8nServer,
	receiver: Receiver,
	watch: PartnerWatch,
	changes: Changes[],
	afterChanges: (index: number, poll: Poll) => Promise<void> = async () => {},
): Promise<{ polls: Poll[]; expected: string[][] }> {
	const alerts = () => receiver.received.filter((request) => request.path === ALERT_PATH);
	const polls: Poll[] = [];
	const expected: string[][] = [[]];
	await server.activate(watch.workflowId);
	let alertsBefore = 0;
	let changesMadeAt = 0;
	try {
		for (let index = 0; index <= changes.length; index++) {
			const execution = await finishedPoll(server, watch.workflowId, index + 1);
			if (Date.parse(execution.startedAt) < changesMadeAt - 1000)
				throw new Error(`poll ${index + 1} started before its changes were made`);
			const runData = execution.data;
			const sent = alerts();
			polls.push({
				executionId: String(execution.id),
				startedAt: execution.startedAt,
				alerts: sent.slice(alertsBefore).map((alert) => alert.body),
				failed: failedBorrowers(runData),
				events: nodeOutput(runData, EVENTS_NODE).length,
			});
			alertsBefore = sent.length;
			if (index === changes.length) break;
			expected.push(changes[index](watch));
			changesMadeAt = Date.now();
			await afterChanges(index, polls[index]);
		}
	} finally {
		await deactivate(server, watch.workflowId);
	}
	return { polls, expected };
}

/** Waits for the workflow's `count`-th execution to finish; returns it with its data. */
async function finishedPoll(server: N8nServer, workflowId: string, count: number): Promise<Json> {
	const summary = await waitFor(
		async () => {
			const executions = (await server.executions(workflowId)).sort(
				(a: Json, b: Json) => Number(a.id) - Number(b.id),
			);
			const poll = executions[count - 1];
			return poll && !['new', 'running', 'waiting'].includes(poll.status) ? poll : undefined;
		},
		(POLL_SECONDS + 60) * 1000,
		`poll ${count} of the partner workflow`,
	);
	expect(summary.status).toBe('success');
	return server.execution(String(summary.id));
}

/**
 * The borrowers on the Lendasat node's error output (output 1) in a run: n8n keeps only the error
 * of a failed item, and its pairedItem points at the borrower's row.
 */
function failedBorrowers(runData: Json): string[] {
	const task = (runData?.resultData?.runData ?? runData?.data?.resultData?.runData)?.[
		EVENTS_NODE
	]?.[0];
	const rows = nodeOutput(runData, 'Borrowers');
	return (task?.data?.main?.[1] ?? []).map((item: Json) => {
		expect(Object.keys(item.json)).toEqual(['error']);
		return String(rows[item.pairedItem.item].borrower_id);
	});
}

async function deactivate(server: N8nServer, workflowId: string): Promise<void> {
	const { versionId } = await server.rest('GET', `/workflows/${workflowId}`);
	const deactivated = await fetch(`${server.url}/rest/workflows/${workflowId}/deactivate`, {
		method: 'POST',
		headers: { cookie: server.cookie, 'content-type': 'application/json' },
		body: JSON.stringify({ versionId }),
	});
	if (deactivated.status === 404)
		await server.rest('PATCH', `/workflows/${workflowId}`, { active: false, versionId });
}

/** The contracts the scenario changes, by borrower and kind. */
function contractOf(watch: PartnerWatch, borrower: number, which: 'loan' | 'request'): string {
	return watch.borrowers[borrower].contracts[which === 'loan' ? 0 : 1];
}

/**
 * The changes between polls, each returning the event_key prefixes it must alert: margin calls, a
 * due installment, status changes; then a margin call's next level, one that ended and came back,
 * the installment late, more status changes.
 */
export function partnerChanges(sandbox: Sandbox): Changes[] {
	const installmentOf = (contractId: string) =>
		String(sandbox.state.contracts.get(contractId)?.contract.installments[0].id);
	const day = 24 * 60 * 60_000;
	return [
		(watch) => {
			const loan = (borrower: number) => contractOf(watch, borrower, 'loan');
			const request = (borrower: number) => contractOf(watch, borrower, 'request');
			sandbox.admin.setLiquidationStatus(loan(3), 'FirstMarginCall');
			sandbox.admin.setLiquidationStatus(loan(7), 'FirstMarginCall');
			sandbox.admin.setLiquidationStatus(loan(11), 'SecondMarginCall');
			sandbox.admin.setInstallment(loan(5), installmentOf(loan(5)), {
				due_date: new Date(Date.now() + day).toISOString(),
			});
			sandbox.admin.setContractStatus(request(2), 'CollateralSeen');
			sandbox.admin.setContractStatus(request(9), 'Cancelled');
			sandbox.admin.setContractStatus(loan(13), 'RepaymentProvided');
			return [
				`${loan(3)}:marginCall:FirstMarginCall:`,
				`${loan(7)}:marginCall:FirstMarginCall:`,
				`${loan(11)}:marginCall:SecondMarginCall:`,
				`${loan(5)}:${installmentOf(loan(5))}:`,
				`${request(2)}:CollateralSeen:`,
				`${request(9)}:Cancelled:`,
				`${loan(13)}:RepaymentProvided:`,
			];
		},
		(watch) => {
			const loan = (borrower: number) => contractOf(watch, borrower, 'loan');
			const request = (borrower: number) => contractOf(watch, borrower, 'request');
			sandbox.admin.setLiquidationStatus(loan(3), 'SecondMarginCall');
			// Healthy again, then a new margin call: news although the level is the same.
			sandbox.admin.setLiquidationStatus(loan(7), 'Healthy');
			sandbox.admin.advanceClock(60_000);
			sandbox.admin.setLiquidationStatus(loan(7), 'FirstMarginCall');
			sandbox.admin.setInstallment(loan(5), installmentOf(loan(5)), {
				due_date: new Date(Date.now() - day).toISOString(),
				status: 'late',
			});
			sandbox.admin.setContractStatus(request(2), 'CollateralConfirmed');
			sandbox.admin.setContractStatus(request(17), 'Rejected');
			return [
				`${loan(3)}:marginCall:SecondMarginCall:`,
				`${loan(7)}:marginCall:FirstMarginCall:`,
				`${loan(5)}:${installmentOf(loan(5))}:`,
				`${request(2)}:CollateralConfirmed:`,
				`${request(17)}:Rejected:`,
			];
		},
		() => [],
	];
}

/** Every poll alerted exactly its changes (the first: every contract once), nothing more. */
export function expectEachChangeOnce(
	polls: Poll[],
	expected: string[][],
	watch: PartnerWatch,
	keys: string[],
): void {
	const eventAlerts = (poll: Poll) =>
		poll.alerts.filter((alert) => alert.event !== 'borrowerNotChecked');
	const contracts = watch.borrowers.flatMap((borrower) => borrower.contracts);
	// The first poll: the current status of every contract, once.
	const first = eventAlerts(polls[0]);
	expect(first.map((alert) => alert.event)).toEqual(contracts.map(() => 'contractStatusChanged'));
	expect(first.map((alert) => alert.contract_id).sort()).toEqual([...contracts].sort());
	for (let index = 1; index < polls.length; index++) {
		const sent = eventAlerts(polls[index]).map((alert) => String(alert.event_key));
		expect(sent).toHaveLength(expected[index].length);
		for (const prefix of expected[index])
			expect(sent.filter((key) => key.startsWith(prefix))).toHaveLength(1);
	}
	// No event alerted twice, ever.
	const all = polls.flatMap((poll) => eventAlerts(poll).map((alert) => alert.event_key));
	expect(new Set(all).size).toBe(all.length);

	// The borrower with a rejected key fails alone at every poll; the other 50 are checked.
	for (const poll of polls) {
		expect(poll.failed).toEqual([BAD_BORROWER.borrower_id]);
		expect(poll.events).toBeGreaterThanOrEqual(contracts.length);
	}
	// Its alert goes out once a day (UTC, the twin's time zone): at the first poll, and again only on a new day.
	const days = polls.map((poll) => poll.startedAt.slice(0, 10));
	polls.forEach((poll, index) => {
		const errors = poll.alerts.filter((alert) => alert.event === 'borrowerNotChecked');
		const newDay = !days.slice(0, index).includes(days[index]);
		expect(errors).toHaveLength(newDay ? 1 : 0);
		for (const error of errors) {
			expect(error.borrower).toBe(BAD_BORROWER.borrower_id);
			expect(error.text).toMatch(
				/^Lendasat could not check borrower B-REVOKED: Lendasat rejected the Act as Borrower API key/,
			);
		}
	});
	// Every alert names its borrower, and no alert carries a key.
	const sentText = JSON.stringify(polls.map((poll) => poll.alerts));
	for (const key of keys) expect(sentText).not.toContain(key);
	const borrowerIds = new Set(watch.borrowers.map((borrower) => borrower.id));
	for (const alert of polls.flatMap(eventAlerts))
		expect(borrowerIds.has(alert.borrower)).toBe(true);
}
