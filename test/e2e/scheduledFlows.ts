/**
 * The scheduled loan-flow templates (templates/ltv-guard.json, installment-reminders.json,
 * expiry-reminders.json) in a real n8n against the sandbox: each twin differs from its template only
 * where the sticky notes ask the user to set something (the credentials, the Data tables, the alert
 * URL, the form's address), runs its schedule every few seconds instead of minutes or hours, keeps
 * its successful executions (the templates save none) so that the test can read each run, runs in
 * UTC, and is its own error workflow as the notes ask. test/e2e/scheduledFlows.e2e.ts runs them on
 * n8n 2.x and 1.x.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Json, N8nServer } from '../../dev/n8n/n8n-env';
import type { Sandbox } from '../../dev/sandbox/server';
import { saveLendasatCredential, waitFor, type Receiver } from './helpers';
import { BROWSER_USER_AGENT } from './hostedChat';

const TEMPLATES_DIR = join(__dirname, '..', '..', 'templates');

export const TEMPLATE_FILES = {
	ltvGuard: join(TEMPLATES_DIR, 'ltv-guard.json'),
	installments: join(TEMPLATES_DIR, 'installment-reminders.json'),
	expiry: join(TEMPLATES_DIR, 'expiry-reminders.json'),
};

/** What the templates' sticky notes ask the user to replace. */
export const PLACEHOLDERS = {
	credentialId: 'YOUR_LENDASAT_CREDENTIAL',
	formLoginId: 'YOUR_FORM_LOGIN',
	alertUrl: 'https://hooks.slack.com/services/YOUR/ALERT/WEBHOOK',
	n8nUrl: 'https://YOUR-N8N-HOST',
};

/** The columns of the failures table every template uses (one row per cause, the day it was alerted). */
const ALERTS_TABLE_COLUMNS = ['cause', 'day'];

/** What a test needs of a running n8n: its REST API. */
export type N8nApi = Pick<N8nServer, 'url' | 'rest' | 'activate' | 'executions' | 'execution'>;

export interface TwinSettings {
	credential: { id: string; name: string };
	formLogin?: { id: string; name: string };
	/** The Data table each node reads or writes: the flow's own, or the shared failures table. */
	tables: { flow: string; alerts: string };
	alertUrl: string;
	n8nUrl: string;
	scheduleSeconds: number;
	name: string;
}

/** Whether a Data table node works on the failures table (its conditions or columns name `cause`). */
function usesAlertsTable(node: Json): boolean {
	const keys = [
		...(node.parameters.filters?.conditions ?? []).map((condition: Json) => condition.keyName),
		...Object.keys(node.parameters.columns?.value ?? {}),
	];
	return keys.includes('cause');
}

/** The template with the user's settings put in, as someone following its sticky notes would. */
export function templateTwin(file: string, settings: TwinSettings): Json {
	const text = readFileSync(file, 'utf8')
		.replaceAll(PLACEHOLDERS.alertUrl, settings.alertUrl)
		.replaceAll(PLACEHOLDERS.n8nUrl, settings.n8nUrl);
	const template = JSON.parse(text);
	for (const node of template.nodes as Json[]) {
		if (node.credentials?.lendasatApi?.id === PLACEHOLDERS.credentialId)
			node.credentials.lendasatApi = settings.credential;
		if (node.credentials?.httpBasicAuth?.id === PLACEHOLDERS.formLoginId) {
			if (!settings.formLogin) throw new Error(`${file} asks for a form login`);
			node.credentials.httpBasicAuth = settings.formLogin;
		}
		if (node.type === 'n8n-nodes-base.dataTable')
			node.parameters.dataTableId = {
				__rl: true,
				mode: 'id',
				value: usesAlertsTable(node) ? settings.tables.alerts : settings.tables.flow,
			};
		if (node.type === 'n8n-nodes-base.scheduleTrigger')
			node.parameters.rule = {
				interval: [{ field: 'seconds', secondsInterval: settings.scheduleSeconds }],
			};
	}
	const left = /YOUR[_/-][A-Z0-9_/-]*/.exec(JSON.stringify(template));
	if (left) throw new Error(`${file}: the twin leaves the placeholder ${left[0]} unset`);
	delete template.id;
	template.name = settings.name;
	template.settings = { ...template.settings, saveDataSuccessExecution: 'all', timezone: 'UTC' };
	return template;
}

/** A Data table in the owner's personal project, with text columns. */
export async function createTable(
	server: N8nApi,
	name: string,
	columns: string[],
): Promise<string> {
	const project = await server.rest('GET', '/projects/personal');
	const table = await server.rest('POST', `/projects/${project.id}/data-tables`, {
		name,
		columns: columns.map((column) => ({ name: column, type: 'string' })),
	});
	return String(table.id);
}

/** Every row of a Data table. */
export async function tableRows(server: N8nApi, tableId: string): Promise<Json[]> {
	const project = await server.rest('GET', '/projects/personal');
	const page = await server.rest(
		'GET',
		`/projects/${project.id}/data-tables/${tableId}/rows?skip=0&take=1000`,
	);
	return page.data as Json[];
}

export interface Flow {
	workflowId: string;
	tables: { flow: string; alerts: string };
}

/**
 * What a user sets up before activating a template: a credential with the borrower's key, the
 * flow's Data table and the failures table, a login for the forms, and the workflow itself, set as
 * its own error workflow.
 */
export async function setUpFlow(
	server: N8nApi,
	file: string,
	options: {
		sandboxUrl: string;
		borrowerKey: string;
		alertUrl: string;
		flowColumns: string[];
		formLogin?: { user: string; password: string };
		scheduleSeconds: number;
		name: string;
	},
): Promise<Flow> {
	const credential = await saveLendasatCredential(server, `Lendasat borrower (${options.name})`, {
		baseUrl: options.sandboxUrl,
		keyType: 'borrower',
		apiKey: options.borrowerKey,
	});
	let formLogin: { id: string; name: string } | undefined;
	if (options.formLogin) {
		const name = `Form login (${options.name})`;
		const { id } = await server.rest('POST', '/credentials', {
			name,
			type: 'httpBasicAuth',
			data: options.formLogin,
		});
		formLogin = { id, name };
	}
	const tables = {
		flow: await createTable(server, `${options.name}: memory`, options.flowColumns),
		alerts: await createTable(server, `${options.name}: watch alerts`, ALERTS_TABLE_COLUMNS),
	};
	const twin = templateTwin(file, {
		credential,
		formLogin,
		tables,
		alertUrl: options.alertUrl,
		n8nUrl: server.url,
		scheduleSeconds: options.scheduleSeconds,
		name: `e2e: ${options.name} (template twin)`,
	});
	// n8n 1.x needs `active` in the body; 2.x ignores it.
	const { id: workflowId, versionId } = await server.rest('POST', '/workflows', {
		...twin,
		active: false,
	});
	await server.rest('PATCH', `/workflows/${workflowId}`, {
		settings: { ...twin.settings, errorWorkflow: workflowId },
		versionId,
	});
	return { workflowId, tables };
}

/** The workflow's executions that have ended, oldest first (summaries, without their data). */
async function endedExecutions(server: N8nApi, workflowId: string, mode: string): Promise<Json[]> {
	return (await server.executions(workflowId))
		.filter((execution: Json) => execution.mode === mode)
		.filter((execution: Json) => !['new', 'running', 'waiting'].includes(execution.status))
		.sort((a: Json, b: Json) => Number(a.id) - Number(b.id));
}

/** One run of the schedule as the test saw it. */
export interface Poll {
	execution: Json;
	/** Every message the flow posted since the poll before, delivered or not, in order. */
	messages: Array<{ body: Json; answered: string | number }>;
	/** The failures the flow's error workflow reported after this poll failed (when it did). */
	errorRuns: Json[];
}

/** The messages a flow posted to its path of the receiver, delivered or not. */
export function messagesTo(receiver: Receiver, path: string): Poll['messages'] {
	return receiver.received
		.filter((request) => request.path === path)
		.map((request) => ({ body: request.body, answered: request.answered }));
}

/**
 * Activates the flow and hands out its polls one by one: `next(change)` makes the change, then
 * waits for the first scheduled run that started after it and has ended (and, when that run
 * failed, for the run of the error workflow it started). Runs that started before the change are
 * passed over; their messages count for the next poll the test sees.
 */
export async function startPolls(
	server: N8nApi,
	receiver: Receiver,
	flow: Flow,
	path: string,
	timeoutMs: number,
): Promise<{ next(change?: () => unknown): Promise<Poll> }> {
	const seen = new Set<string>();
	let messagesBefore = 0;
	await server.activate(flow.workflowId);
	return {
		async next(change) {
			await change?.();
			const changedAt = Date.now();
			const errorRunsBefore = (await endedExecutions(server, flow.workflowId, 'error')).length;
			const execution = await waitFor(
				async () => {
					const runs = await endedExecutions(server, flow.workflowId, 'trigger');
					return runs.find(
						(run) => !seen.has(String(run.id)) && Date.parse(run.startedAt) >= changedAt,
					);
				},
				timeoutMs,
				`a scheduled run of ${flow.workflowId} after the change`,
			);
			for (const run of await endedExecutions(server, flow.workflowId, 'trigger'))
				if (Number(run.id) <= Number(execution.id)) seen.add(String(run.id));
			const errorRuns =
				execution.status === 'error'
					? (
							await waitFor(
								async () => {
									const runs = await endedExecutions(server, flow.workflowId, 'error');
									return runs.length > errorRunsBefore ? runs : undefined;
								},
								timeoutMs,
								`the error workflow after run ${execution.id}`,
							)
						).slice(errorRunsBefore)
					: [];
			const messages = messagesTo(receiver, path);
			const poll = { execution, messages: messages.slice(messagesBefore), errorRuns };
			messagesBefore = messages.length;
			return poll;
		},
	};
}

export interface FormLogin {
	user: string;
	password: string;
}

function basicAuth(login: FormLogin): string {
	return `Basic ${Buffer.from(`${login.user}:${login.password}`).toString('base64')}`;
}

/** Opens a form link as a browser does; returns the page. */
export async function openForm(
	url: string,
	login: FormLogin,
): Promise<{ status: number; html: string }> {
	const response = await fetch(url, {
		headers: { 'user-agent': BROWSER_USER_AGENT, authorization: basicAuth(login) },
	});
	return { status: response.status, html: await response.text() };
}

/**
 * Submits a form as its page does (multipart, field-0, field-1, … in the order of its fields) and
 * waits for n8n's answer, which comes once the workflow has finished (Respond When: Workflow
 * Finishes).
 */
export async function submitForm(url: string, login: FormLogin, values: string[]): Promise<number> {
	const form = new FormData();
	values.forEach((value, index) => form.append(`field-${index}`, value));
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'user-agent': BROWSER_USER_AGENT, authorization: basicAuth(login) },
		body: form,
	});
	await response.text();
	return response.status;
}

/** The API requests the sandbox received with this method and a path that matches. */
export function sandboxCalls(sandbox: Sandbox, method: string, path: RegExp): Json[] {
	return sandbox.requests.filter((request) => request.method === method && path.test(request.path));
}
