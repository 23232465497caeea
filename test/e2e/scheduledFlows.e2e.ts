/**
 * The scheduled loan-flow templates on a running n8n: their twins (scheduledFlows.ts) activated,
 * the schedule every few seconds, the sandbox changed between runs through its admin functions,
 * the messages caught by a receiver standing in for a chat webhook, the forms submitted as a
 * browser does. Runs on n8n 2.x (`jest -c jest.e2e.config.js`) and 1.x (jest.e2e-n8n1.config.js).
 */
import { readFileSync } from 'node:fs';

import { createN8nHome, type Json, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import { onboardBorrowers } from '../../dev/sandbox/partner';
import { startSandbox, type Contract, type Sandbox } from '../../dev/sandbox/server';
import { deactivate, startReceiver, type Receiver } from './helpers';
import {
	messagesTo,
	openForm,
	sandboxCalls,
	setUpFlow,
	startPolls,
	submitForm,
	tableRows,
	TEMPLATE_FILES,
	type FormLogin,
	type Poll,
} from './scheduledFlows';

/** The LTV guard's schedule in its twin. */
const POLL_SECONDS = 12;
/**
 * The schedule of the flows with a form: each form is submitted right after a run, and the next
 * run (which forgets what is no longer due) must not start before the test has looked.
 */
const FORM_FLOW_POLL_SECONDS = 25;
const timeoutFor = (seconds: number) => (seconds + 90) * 1000;

let sandbox: Sandbox;
let receiver: Receiver;
let home: N8nHome;
let server: N8nServer;

beforeAll(async () => {
	sandbox = await startSandbox({ dialect: 'live' });
	receiver = await startReceiver();
	// SQLite with a pool, as docs/scheduled-flows.md asks on n8n 1.x (2.x's default): without one, two
	// executions using Data tables at the same moment can fail ("Transaction is not started yet").
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

/** The contract as Lendasat's API serves it to its borrower now. */
async function served(id: string, key: string): Promise<Contract> {
	const response = await fetch(`${sandbox.url}/api/contracts/${id}`, {
		headers: { 'x-api-key': key },
	});
	return (await response.json()) as Contract;
}

/** The sats that count for the LTV: what was sent less the origination fee (both dialects). */
const countedSats = (record: Contract) =>
	Math.max(record.collateral_sats, record.deposited_sats) - record.origination_fee_sats;

/**
 * Whether the LTV, owed / (sats / 10^8 × price), is at most `target` (a ratio in tenths), in exact
 * integers: the owed amount in cents, a whole-dollar price.
 */
function ltvAtMost(owed: number, sats: number, price: number, targetTenths: number): boolean {
	const owedCents = BigInt(Math.round(owed * 100));
	return (
		owedCents * 100_000_000n * 10n <= BigInt(targetTenths) * BigInt(sats) * BigInt(price) * 100n
	);
}

/** [event, contract] of each message, as the flow posted them. */
const events = (poll: Poll) =>
	poll.messages.map((message) => [message.body.event, message.body.contract_id]);

/** Rows in the order rowsOf gives them: by their text. */
const sorted = (...rows: unknown[][]) => rows.sort((a, b) => String(a).localeCompare(String(b)));

/** The rows of a flow's Data table as [contract_id, state], sorted. */
async function rowsOf(tableId: string, ...columns: string[]): Promise<unknown[][]> {
	const rows = await tableRows(server, tableId);
	return sorted(...rows.map((row: Json) => columns.map((column) => row[column])));
}

const login = (name: string): FormLogin => ({ user: 'borrower', password: `${name}-Pa55-word` });

test('the three templates import as they are, placeholders and all, with the n8n CLI', async () => {
	for (const file of Object.values(TEMPLATE_FILES)) {
		const imported = await home.cli(['import:workflow', `--input=${file}`]);
		expect(imported.code).toBe(0);
		const template = JSON.parse(readFileSync(file, 'utf8'));
		const { nodes } = await server.rest('GET', `/workflows/${template.id}`);
		expect(nodes.map((node: Json) => node.name).sort()).toEqual(
			template.nodes.map((node: Json) => node.name).sort(),
		);
	}
});

describe('LTV guard (templates/ltv-guard.json)', () => {
	const PATH = '/ltv-guard';
	const PRICE = { start: 100_000, fallen: 66_000, lower: 55_000 };

	test('one alert per episode as the price moves across polls, and one when healthy again; the alerted sats bring the LTV back to the target; an undelivered alert goes out at the next poll; a loan it cannot check is alerted once a day', async () => {
		const [borrower] = await onboardBorrowers(sandbox.url, sandbox.keys.master, 1, [
			{ status: 'PrincipalGiven' },
			{ status: 'PrincipalGiven' },
		]);
		const [first, second] = borrower.contracts;
		// The second loan holds more collateral: LTV 0.4 at the starting price, the first 0.5.
		const secondRecord = await served(second, borrower.api_key);
		const satsAtLtv04 = Math.ceil((secondRecord.balance_outstanding / (0.4 * PRICE.start)) * 1e8);
		sandbox.admin.addCollateral(second, satsAtLtv04 - countedSats(secondRecord));
		sandbox.admin.setBtcPrice(PRICE.start);

		const flow = await setUpFlow(server, TEMPLATE_FILES.ltvGuard, {
			sandboxUrl: sandbox.url,
			borrowerKey: borrower.api_key,
			alertUrl: `${receiver.url}${PATH}`,
			flowColumns: ['contract_id', 'state'],
			scheduleSeconds: POLL_SECONDS,
			name: 'LTV guard',
		});
		const rows = () => rowsOf(flow.tables.flow, 'contract_id', 'state');
		const polls = await startPolls(server, receiver, flow, PATH, timeoutFor(POLL_SECONDS));
		try {
			// Both loans healthy at 100,000 USD: nothing to say; each open loan has its row, in no episode.
			const healthy = await polls.next();
			expect(healthy.messages).toEqual([]);
			expect(await rows()).toEqual(sorted([first, null], [second, null]));

			// 66,000 USD: the first loan's LTV is 0.76, at or above the warning LTV 0.7; the second's 0.61.
			const fallen = await polls.next(() => sandbox.admin.setBtcPrice(PRICE.fallen));
			expect(events(fallen)).toEqual([['ltvWarning', first]]);
			const warning = fallen.messages[0].body;
			const firstRecord = await served(first, borrower.api_key);
			expect(warning).toMatchObject({ warning_ltv: 0.7, target_ltv: 0.6, contract_id: first });
			expect(warning.ltv).toBeGreaterThanOrEqual(0.7);
			expect(warning.sats_to_target).toBeGreaterThan(0);
			expect(warning.collateral_address).toBe(firstRecord.contract_address);
			expect(warning.payment_uri).toBe(
				`bitcoin:${firstRecord.contract_address}?amount=${warning.btc_to_target}`,
			);
			expect(warning.text).toContain(`Send ${warning.sats_to_target} sats`);
			expect(warning.text).toContain(warning.payment_uri);
			expect(await rows()).toEqual(sorted([first, 'warned'], [second, null]));

			// The borrower sends exactly the alerted sats: the LTV at that price is the target (one sat less
			// would not do), and the next poll says the loan is healthy again.
			const toppedUp = await polls.next(async () => {
				const before = countedSats(firstRecord);
				sandbox.admin.addCollateral(first, warning.sats_to_target);
				const after = await served(first, borrower.api_key);
				expect(countedSats(after)).toBe(before + warning.sats_to_target);
				const owed = after.balance_outstanding;
				expect(ltvAtMost(owed, countedSats(after), PRICE.fallen, 6)).toBe(true);
				expect(ltvAtMost(owed, countedSats(after) - 1, PRICE.fallen, 6)).toBe(false);
			});
			expect(events(toppedUp)).toEqual([['ltvHealthy', first]]);
			expect(await rows()).toEqual(sorted([first, null], [second, null]));

			// 55,000 USD, and the alert URL fails: both loans cross, neither warning is delivered, the
			// claims are released, the run ends as failed and the error workflow says why.
			const undelivered = await polls.next(() => {
				sandbox.admin.setBtcPrice(PRICE.lower);
				receiver.answer(PATH, 500);
			});
			expect(undelivered.execution.status).toBe('error');
			const failedWarnings = undelivered.messages.filter(
				(message) => message.body.event === 'ltvWarning',
			);
			expect(failedWarnings.map((message) => message.body.contract_id).sort()).toEqual(
				[first, second].sort(),
			);
			expect(failedWarnings.every((message) => message.answered === 500)).toBe(true);
			expect(undelivered.errorRuns).toHaveLength(1);
			expect(
				undelivered.messages
					.filter((message) => message.body.event === 'guardFailed')
					.map((message) => message.body.text),
			).toEqual([
				expect.stringMatching(
					/^Lendasat LTV guard stopped at Alerts not delivered: Some LTV alerts could not be delivered/,
				),
			]);
			expect(await rows()).toEqual(sorted([first, null], [second, null]));

			// The URL works again: both warnings go out at the next poll, once.
			const delivered = await polls.next(() => receiver.answer(PATH, 'ok'));
			expect(delivered.execution.status).toBe('success');
			expect(events(delivered).sort()).toEqual(
				[
					['ltvWarning', first],
					['ltvWarning', second],
				].sort(),
			);
			expect(delivered.messages.every((message) => message.answered === 'ok')).toBe(true);

			// Still above the warning LTV: the episode goes on, no alert.
			const stillHigh = await polls.next();
			expect(stillHigh.messages).toEqual([]);
			expect((await rows()).map((row) => row[1])).toEqual(['warned', 'warned']);

			// Lendasat serves no price: neither loan can be checked; each is alerted once a day (UTC).
			const noPrice = await polls.next(() => sandbox.admin.setBtcPrice(null));
			const noPriceAgain = await polls.next();
			for (const [index, poll] of [noPrice, noPriceAgain].entries()) {
				const day = String(poll.execution.startedAt).slice(0, 10);
				const newDay = index === 0 || day !== String(noPrice.execution.startedAt).slice(0, 10);
				const failures = poll.messages.map((message) => message.body);
				expect(failures).toHaveLength(newDay ? 2 : 0);
				for (const failure of failures) {
					expect(failure.event).toBe('guardFailed');
					expect(failure.text).toMatch(
						/^Lendasat LTV guard could not check contract .*: Lendasat gave no bitcoin price/,
					);
				}
				if (newDay)
					expect(
						failures
							.map((failure) => /could not check contract (\S+?):/.exec(failure.text)?.[1])
							.sort(),
					).toEqual([first, second].sort());
			}
			expect((await rows()).map((row) => row[1])).toEqual(['warned', 'warned']);

			// The price is back and the first loan is repaid: the second is healthy again, the first is
			// no longer open and its row goes.
			const recovered = await polls.next(() => {
				sandbox.admin.setBtcPrice(PRICE.start);
				sandbox.admin.setContractStatus(first, 'RepaymentConfirmed');
			});
			expect(events(recovered)).toEqual([['ltvHealthy', second]]);
			expect(await rows()).toEqual([[second, null]]);
		} finally {
			receiver.answer(PATH, 'ok');
			await deactivate(server, flow.workflowId);
		}
		// No message ever carried the borrower's key.
		expect(JSON.stringify(messagesTo(receiver, PATH))).not.toContain(borrower.api_key);
	}, 900_000);
});

describe('Installment due → repaid (templates/installment-reminders.json)', () => {
	const PATH = '/installments';
	const DAY = 24 * 60 * 60_000;

	test('a reminder for each installment due within 3 days, once; a confirmation submitted twice (at once, and again later) reports once; a refused one is released and can be corrected', async () => {
		const [borrower] = await onboardBorrowers(sandbox.url, sandbox.keys.master, 1, [
			{ status: 'PrincipalGiven' },
			{ status: 'PrincipalGiven' },
		]);
		const [soon, later] = borrower.contracts;
		const installmentOf = (id: string) =>
			String(sandbox.state.contracts.get(id)?.contract.installments[0].id);
		sandbox.admin.setInstallment(soon, installmentOf(soon), {
			due_date: new Date(Date.now() + 2 * DAY).toISOString(),
		});
		sandbox.admin.setInstallment(later, installmentOf(later), {
			due_date: new Date(Date.now() + 20 * DAY).toISOString(),
		});
		const formLogin = login('installments');
		const flow = await setUpFlow(server, TEMPLATE_FILES.installments, {
			sandboxUrl: sandbox.url,
			borrowerKey: borrower.api_key,
			alertUrl: `${receiver.url}${PATH}`,
			flowColumns: ['contract_id', 'installment_id', 'state'],
			formLogin,
			scheduleSeconds: FORM_FLOW_POLL_SECONDS,
			name: 'Installments',
		});
		const rows = () => rowsOf(flow.tables.flow, 'contract_id', 'installment_id', 'state');
		const reports = () => sandboxCalls(sandbox, 'PUT', /^\/api\/contracts\/.*\/installment-paid$/);
		const outcomes = () =>
			messagesTo(receiver, PATH)
				.map((message) => message.body)
				.filter((body) => body.event !== 'installmentReminder');
		const polls = await startPolls(
			server,
			receiver,
			flow,
			PATH,
			timeoutFor(FORM_FLOW_POLL_SECONDS),
		);
		try {
			// The installment due in 2 days is reminded, with what to pay where and the link to confirm.
			const first = await polls.next();
			expect(events(first)).toEqual([['installmentReminder', soon]]);
			const reminder = first.messages[0].body;
			const record = await served(soon, borrower.api_key);
			expect(reminder).toMatchObject({
				installment_id: installmentOf(soon),
				amount: record.installments[0].principal + record.installments[0].interest,
				pay_to: record.loan_repayment_address,
			});
			expect(reminder.text).toContain(`Pay it to ${record.loan_repayment_address}`);
			expect(reminder.confirm_url).toBe(
				`${server.url}/form/lendasat-installment-paid?Contract=${soon}&Installment=${installmentOf(soon)}`,
			);
			expect(await rows()).toEqual([[soon, installmentOf(soon), 'reminded']]);

			// Once: the next poll reminds nothing.
			expect((await polls.next()).messages).toEqual([]);

			// The link opens the form with the contract and installment filled in (the login is required).
			expect(
				(await openForm(reminder.confirm_url, { user: 'borrower', password: 'wrong' })).status,
			).toBe(401);
			const page = await openForm(reminder.confirm_url, formLogin);
			expect(page.status).toBe(200);
			expect(page.html).toContain(soon);
			expect(page.html).toContain(installmentOf(soon));
			const confirm = (id: string, installment: string, transaction: string) =>
				submitForm(reminder.confirm_url, formLogin, [id, installment, transaction]);

			// A transaction ID that is not one: the node refuses it before sending, the claim is released.
			expect(await confirm(soon, installmentOf(soon), '0x5c50 4ed4')).toBe(200);
			expect(reports()).toHaveLength(0);
			expect(outcomes().map((outcome) => outcome.event)).toEqual(['installmentNotReported']);
			expect(outcomes()[0].text).toMatch(/Invalid Payment Transaction ID/);
			expect(await rows()).toEqual([[soon, installmentOf(soon), 'reminded']]);

			// An installment it never reminded of is not reported.
			expect(await confirm(later, installmentOf(later), '0xfeed')).toBe(200);
			expect(outcomes().map((outcome) => outcome.event)[1]).toBe('installmentNotAwaited');

			// The confirmation submitted twice at once, then once more: one report.
			const transaction = '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060';
			expect(
				await Promise.all([
					confirm(soon, installmentOf(soon), transaction),
					confirm(soon, installmentOf(soon), transaction),
				]),
			).toEqual([200, 200]);
			expect(await confirm(soon, installmentOf(soon), transaction)).toBe(200);
			expect(reports()).toHaveLength(1);
			expect(reports()[0].body).toEqual({
				installment_id: installmentOf(soon),
				payment_id: transaction,
				amount: reminder.amount,
			});
			expect(
				outcomes()
					.slice(2)
					.map((outcome) => outcome.event)
					.sort(),
			).toEqual(['installmentNotAwaited', 'installmentNotAwaited', 'installmentReported'].sort());
			expect((await served(soon, borrower.api_key)).installments[0]).toMatchObject({
				status: 'paid',
				payment_id: transaction,
			});
			expect(await rows()).toEqual([[soon, installmentOf(soon), 'reported']]);

			// The paid installment is no longer due: its row goes; the other loan's installment, now due
			// tomorrow, is reminded.
			const next = await polls.next(() =>
				sandbox.admin.setInstallment(later, installmentOf(later), {
					due_date: new Date(Date.now() + DAY).toISOString(),
				}),
			);
			// (The poll's messages also hold the outcomes of the confirmations above.)
			expect(events(next).filter(([event]) => event === 'installmentReminder')).toEqual([
				['installmentReminder', later],
			]);
			expect(await rows()).toEqual([[later, installmentOf(later), 'reminded']]);
			expect(reports()).toHaveLength(1);
		} finally {
			await deactivate(server, flow.workflowId);
		}
	}, 900_000);
});

describe('Before a loan ends (templates/expiry-reminders.json)', () => {
	const PATH = '/expiry';
	const DAY = 24 * 60 * 60_000;

	test('a reminder for each loan ending within 7 days, once; no Extend reaches Lendasat until a person approves, and exactly one after, however often it is approved', async () => {
		const startedDaysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
		// The third loan ends in 60 days: never reminded here.
		const [borrower] = await onboardBorrowers(sandbox.url, sandbox.keys.master, 1, [
			// Ends in 3 days, extendable.
			{ status: 'PrincipalGiven', duration_days: 10, created_at: startedDaysAgo(7) },
			// Ends in 2 days; its offer allows no extension.
			{
				status: 'PrincipalGiven',
				duration_days: 10,
				created_at: startedDaysAgo(8),
				can_extend: false,
			},
			{ status: 'PrincipalGiven', duration_days: 60 },
		]);
		const [ending, fixed] = borrower.contracts;
		const formLogin = login('expiry');
		const flow = await setUpFlow(server, TEMPLATE_FILES.expiry, {
			sandboxUrl: sandbox.url,
			borrowerKey: borrower.api_key,
			alertUrl: `${receiver.url}${PATH}`,
			flowColumns: ['contract_id', 'state'],
			formLogin,
			scheduleSeconds: FORM_FLOW_POLL_SECONDS,
			name: 'Expiry',
		});
		const rows = () => rowsOf(flow.tables.flow, 'contract_id', 'state');
		const extensions = () => sandboxCalls(sandbox, 'POST', /^\/api\/contracts\/.*\/extend$/);
		const outcomes = () =>
			messagesTo(receiver, PATH)
				.map((message) => message.body)
				.filter((body) => body.event !== 'loanEndingSoon');
		const polls = await startPolls(
			server,
			receiver,
			flow,
			PATH,
			timeoutFor(FORM_FLOW_POLL_SECONDS),
		);
		try {
			const first = await polls.next();
			expect(events(first).sort()).toEqual(
				[
					['loanEndingSoon', ending],
					['loanEndingSoon', fixed],
				].sort(),
			);
			const reminderOf = (id: string) =>
				first.messages.find((message) => message.body.contract_id === id)?.body;
			const reminder = reminderOf(ending);
			const record = await served(ending, borrower.api_key);
			expect(reminder).toMatchObject({
				expiry: record.expiry,
				balance_outstanding: record.balance_outstanding,
				pay_to: record.loan_repayment_address,
				approve_url: `${server.url}/form/lendasat-extend-loan?Contract=${ending}&Days=30`,
			});
			expect(reminderOf(fixed).approve_url).toBeNull();
			expect(reminderOf(fixed).text).toMatch(/This loan cannot be extended\.$/);
			expect(await rows()).toEqual(sorted([ending, 'reminded'], [fixed, 'reminded']));

			// Polls remind once and never extend.
			expect((await polls.next()).messages).toEqual([]);
			expect(extensions()).toHaveLength(0);

			// Opening the link (a person, or a chat's link preview) extends nothing; neither does No.
			const page = await openForm(reminder.approve_url, formLogin);
			expect(page.status).toBe(200);
			expect(page.html).toContain(ending);
			const approve = (answer: string) =>
				submitForm(reminder.approve_url, formLogin, [ending, '30', answer]);
			expect(await approve('No')).toBe(200);
			expect(extensions()).toHaveLength(0);
			expect(outcomes().map((outcome) => outcome.event)).toEqual(['extensionDeclined']);

			// Approved twice at once, then again: one extension of 30 days.
			expect(await Promise.all([approve('Yes, extend it'), approve('Yes, extend it')])).toEqual([
				200, 200,
			]);
			expect(await approve('Yes, extend it')).toBe(200);
			expect(extensions()).toHaveLength(1);
			expect(extensions()[0].path).toBe(`/api/contracts/${ending}/extend`);
			expect(extensions()[0].body).toEqual({ new_duration: 30 });
			const old = await served(ending, borrower.api_key);
			expect(old.status).toBe('Extended');
			const approvals = outcomes().slice(1);
			expect(approvals.map((outcome) => outcome.event).sort()).toEqual(
				['extensionNotAwaited', 'extensionNotAwaited', 'loanExtended'].sort(),
			);
			expect(approvals.find((outcome) => outcome.event === 'loanExtended').text).toContain(
				`replaced it with contract ${old.extended_by_contract}`,
			);
			expect(await rows()).toContainEqual([ending, 'extended']);

			// The extended loan is no longer open: its row goes; its successor ends in 33 days, no reminder.
			// (The poll's messages also hold the outcomes of the approvals above.)
			const after = await polls.next();
			expect(events(after).filter(([event]) => event === 'loanEndingSoon')).toEqual([]);
			expect(await rows()).toEqual([[fixed, 'reminded']]);
			expect(extensions()).toHaveLength(1);
		} finally {
			await deactivate(server, flow.workflowId);
		}
	}, 900_000);
});
