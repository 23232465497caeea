/**
 * The demo workflows in a real n8n (installed by dev/n8n/ensure-n8n.ts) against the sandbox,
 * both on 127.0.0.1: imported and run with the n8n CLI, then the trigger on a running n8n server.
 * Run with `npm run test:e2e`.
 */
import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { createN8nHome, type Json, type N8nHome, type N8nServer } from '../../dev/n8n/n8n-env';
import {
	DEMO_CREDENTIALS,
	DEMO_WORKFLOWS,
	demoCredentials,
	demoWorkflows,
} from '../../dev/demo/demo';
import {
	apiRequests,
	nodeOutput,
	runError,
	startReceiver,
	waitFor,
	type Receiver,
} from './helpers';

/** A credential that claims to hold a borrower key but holds the partner master key. */
const MISLABELLED = { id: 'lendasatMislabel', name: 'Lendasat (master key saved as borrower key)' };
const WRONG_KEY_TYPE_WORKFLOW = 'lsE2eWrongKeyTyp';
const REJECTED_KEY_WORKFLOW = 'lsE2eRejectedKey';
const REFUSED_AMOUNT_WORKFLOW = 'lsE2eRefusedAmnt';

/** Contract → Create for less than the offer lends: the API answers 400 INVALID_AMOUNT. */
function refusedAmountWorkflow(): Json {
	return {
		id: REFUSED_AMOUNT_WORKFLOW,
		name: 'e2e: a contract request the offer refuses',
		nodes: [
			{
				id: 'e2e00000-0000-4000-8000-000000000001',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'e2e00000-0000-4000-8000-000000000002',
				name: 'Request too little',
				type: 'n8n-nodes-lendasat.lendasatBorrower',
				typeVersion: 1.1,
				position: [220, 0],
				parameters: {
					resource: 'contract',
					operation: 'create',
					loanId: { __rl: true, mode: 'id', value: SEED_IDS.offers.usdcPolygon },
					loanAmount: 50,
					durationDays: 30,
				},
				credentials: { lendasatApi: DEMO_CREDENTIALS.borrower },
			},
		],
		connections: { Start: { main: [[{ node: 'Request too little', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

const BORROWER_LIST_WORKFLOW = 'lsE2eBorrowerLst';
const REVOKED_KEY = 'lndst_sk_000000000000_RevokedKeyOfCarolRevokedKeyOfCarol1234';

/**
 * A partner's borrowers gathered by n8n's Aggregate node into one item, Contract → Get Events acting
 * for each (Borrower From → Input Item List): the rows come from a Set node, one per borrower, the
 * third with a key Lendasat rejects.
 */
function borrowerListWorkflow(keys: { borrower: string; otherBorrower: string }): Json {
	const rows = [
		{ borrower_id: 'alice', api_key: keys.borrower },
		{ borrower_id: 'bob', api_key: keys.otherBorrower },
		{ borrower_id: 'carol', api_key: REVOKED_KEY },
	];
	const node = (
		index: number,
		name: string,
		type: string,
		typeVersion: number,
		parameters: Json,
	) => ({
		id: `e2e00000-0000-4000-8000-00000000001${index}`,
		name,
		type,
		typeVersion,
		position: [index * 220, 0],
		parameters,
	});
	return {
		id: BORROWER_LIST_WORKFLOW,
		name: "e2e: a partner's borrowers in one list",
		nodes: [
			node(0, 'Start', 'n8n-nodes-base.manualTrigger', 1, {}),
			node(1, 'Borrower rows', 'n8n-nodes-base.set', 3.4, {
				mode: 'raw',
				jsonOutput: JSON.stringify({ rows }),
			}),
			node(2, 'One item per row', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'rows' }),
			node(3, 'Gather the borrowers', 'n8n-nodes-base.aggregate', 1, {
				aggregate: 'aggregateAllItemData',
				destinationFieldName: 'borrowers',
			}),
			{
				...node(4, 'Events', 'n8n-nodes-lendasat.lendasatBorrower', 1.1, {
					resource: 'contract',
					operation: 'getEvents',
					borrowerFrom: 'inputList',
				}),
				credentials: { lendasatApi: DEMO_CREDENTIALS.master },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Borrower rows', type: 'main', index: 0 }]] },
			'Borrower rows': { main: [[{ node: 'One item per row', type: 'main', index: 0 }]] },
			'One item per row': { main: [[{ node: 'Gather the borrowers', type: 'main', index: 0 }]] },
			'Gather the borrowers': { main: [[{ node: 'Events', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

let sandbox: Sandbox;
let receiver: Receiver;
let home: N8nHome;
let workflows: Json[];

const workflow = (id: string): Json =>
	structuredClone(workflows.find((candidate) => candidate.id === id));

/** Every API key the sandbox knows, to prove none leaks into n8n's output. */
function sandboxKeys(): string[] {
	return [sandbox.keys.master, sandbox.keys.borrower, sandbox.keys.otherBorrower];
}

function expectNoKeyIn(text: string): void {
	for (const key of sandboxKeys()) expect(text.includes(key)).toBe(false);
}

beforeAll(async () => {
	sandbox = await startSandbox({ idempotency: true });
	receiver = await startReceiver();
	home = createN8nHome();
	// The alert goes to our receiver instead of the demo's n8n inbox.
	workflows = demoWorkflows({ sandboxUrl: sandbox.url, n8nUrl: receiver.url });
	const wrongKeyType = workflow(DEMO_WORKFLOWS.takeLoan);
	wrongKeyType.id = WRONG_KEY_TYPE_WORKFLOW;
	wrongKeyType.name = 'e2e: contract with the master key';
	wrongKeyType.nodes.find(
		(node: Json) => node.name === 'Request the loan',
	).credentials.lendasatApi = DEMO_CREDENTIALS.master;
	const rejectedKey = workflow(DEMO_WORKFLOWS.openReport);
	rejectedKey.id = REJECTED_KEY_WORKFLOW;
	rejectedKey.name = 'e2e: master key saved as a borrower key';
	rejectedKey.nodes.find((node: Json) => node.name === 'Open contracts').credentials.lendasatApi =
		MISLABELLED;

	await home.importCredentials([
		...demoCredentials(sandbox.url, sandbox.keys),
		{
			...MISLABELLED,
			type: 'lendasatApi',
			data: {
				environment: 'custom',
				baseUrl: sandbox.url,
				keyType: 'borrower',
				apiKey: sandbox.keys.master,
			},
		},
	]);
	await home.importWorkflows([
		...workflows,
		wrongKeyType,
		rejectedKey,
		refusedAmountWorkflow(),
		borrowerListWorkflow(sandbox.keys),
	]);
});

afterAll(async () => {
	await sandbox?.close();
	await receiver?.close();
	home?.remove();
});

describe('demo workflows run with `n8n execute`', () => {
	test('partner onboarding: creates an account with the master key, then acts as the new borrower with our node only', async () => {
		const from = sandbox.requests.length;
		const run = await home.execute(DEMO_WORKFLOWS.onboarding);
		expect(run.code).toBe(0);
		expect(run.data.status).toBe('success');
		// No HTTP Request node any more: every step is the Lendasat Borrower node with the master-key credential.
		const onboarding = workflow(DEMO_WORKFLOWS.onboarding);
		expect(
			onboarding.nodes
				.map((node: Json) => node.type)
				.filter((type: string) => !/manualTrigger|\.set$/.test(type)),
		).toEqual([
			'n8n-nodes-lendasat.lendasatBorrower',
			'n8n-nodes-lendasat.lendasatBorrower',
			'n8n-nodes-lendasat.lendasatBorrower',
		]);

		const [account] = nodeOutput(run.data, 'Create borrower account');
		expect(account).toMatchObject({
			name: 'Grace Hopper',
			email: 'grace@example.com',
			timezone: 'America/New_York',
		});
		expect(typeof account.api_key).toBe('string');
		const [me] = nodeOutput(run.data, 'Act as the new borrower');
		expect(me.user).toMatchObject({ id: account.id, email: 'grace@example.com' });
		const [settings] = nodeOutput(run.data, 'Turn off offer alerts');
		expect(settings).toMatchObject({
			daily_offer_digest_email: false,
			new_loan_offer_telegram: false,
			on_login_email: true,
		});
		for (const step of ['Act as the new borrower', 'Turn off offer alerts']) {
			expect(JSON.stringify(nodeOutput(run.data, step))).not.toContain(account.api_key);
		}

		const [create, ...acting] = apiRequests(sandbox.requests, from);
		expect(create).toMatchObject({ method: 'POST', path: '/api/create-api-account' });
		expect(create.headers['x-api-key']).toBe(sandbox.keys.master);
		expect(create.body).toEqual({
			name: 'Grace Hopper',
			email: 'grace@example.com',
			timezone: 'America/New_York',
		});
		expect(acting.map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /api/users/me',
			'GET /api/notification-settings',
			'PUT /api/notification-settings',
		]);
		for (const request of acting) expect(request.headers['x-api-key']).toBe(account.api_key);
		expectNoKeyIn(run.stdout + run.stderr);
	});

	test('repay and reclaim: a loan repaid in bitcoin, its collateral claimed, the contract closed', async () => {
		const from = sandbox.requests.length;
		const run = await home.execute(DEMO_WORKFLOWS.repayReclaim);
		expect(run.code).toBe(0);
		expect(run.data.status).toBe('success');
		const [loan] = nodeOutput(run.data, 'Take a loan');
		const [invoice] = nodeOutput(run.data, 'Create Bitcoin invoice');
		expect(invoice).toMatchObject({
			contract_id: loan.id,
			status: 'pending',
			installment: { status: 'pending' },
		});
		expect(invoice.amount_sats).toBeGreaterThan(0);
		expect(nodeOutput(run.data, 'Report the payment')[0]).toMatchObject({
			invoice_id: invoice.id,
			reported: true,
		});
		const [psbt] = nodeOutput(run.data, 'Get claim PSBT');
		expect(psbt.psbt).toMatch(/^70736274ff/);
		expect(nodeOutput(run.data, 'Broadcast the claim')[0]).toMatchObject({
			status: 'ClosingByClaim',
			broadcast: true,
		});
		expect(nodeOutput(run.data, 'Contract closed')[0]).toMatchObject({
			id: loan.id,
			status: 'Closed',
		});

		// Every step against the API is our node, with the borrower key; the stand-ins are the sandbox's admin routes.
		const steps = apiRequests(sandbox.requests, from).map(
			(request) => `${request.method} ${request.path}`,
		);
		expect(steps).toEqual([
			`GET /api/offers/${SEED_IDS.offers.usdcPolygon}`, // which kind of Collateral Address it takes
			'POST /api/contracts',
			`POST /api/contracts/${loan.id}/generate-btc-invoice`,
			`PUT /api/contracts/${loan.id}/btc-invoice-paid`,
			`GET /api/contracts/${loan.id}/claim`,
			`POST /api/contracts/${loan.id}/broadcast-claim`,
			`GET /api/contracts/${loan.id}`,
		]);
		expectNoKeyIn(run.stdout + run.stderr);
	});

	test('arkade repay and claim: an Arkade loan taken with an Ark address, repaid, its collateral claimed off-chain', async () => {
		const from = sandbox.requests.length;
		const run = await home.execute(DEMO_WORKFLOWS.arkadeClaim);
		expect(run.code).toBe(0);
		expect(run.data.status).toBe('success');
		const [loan] = nodeOutput(run.data, 'Take the Arkade loan');
		expect(sandbox.state.contracts.get(loan.id)?.contract).toMatchObject({
			collateral_asset: 'ArkadeBtc',
			borrower_btc_address: expect.stringMatching(/^tark1/),
		});
		const [psbts] = nodeOutput(run.data, 'Get Ark claim PSBTs');
		expect(psbts).toMatchObject({ id: loan.id, ark_psbt: expect.stringMatching(/^70736274ff/) });
		expect(psbts.checkpoint_psbts).toHaveLength(2);
		const [signed] = nodeOutput(run.data, 'STAND-IN: your Ark wallet signs');
		expect(nodeOutput(run.data, 'Broadcast the Ark claim')[0]).toEqual({
			id: loan.id,
			txid: expect.stringMatching(/^[0-9a-f]{64}$/),
			status: 'ClosingByClaim',
			broadcast: true,
		});
		expect(nodeOutput(run.data, 'Contract status')[0]).toMatchObject({
			id: loan.id,
			status: 'Closed',
		});

		// Every step against the API is our node; the checkpoint PSBTs travelled as a list, as signed.
		const requests = apiRequests(sandbox.requests, from);
		expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			`GET /api/offers/${SEED_IDS.offers.arkade}`,
			'POST /api/contracts',
			`POST /api/contracts/${loan.id}/generate-btc-invoice`,
			`PUT /api/contracts/${loan.id}/btc-invoice-paid`,
			`GET /api/contracts/${loan.id}/claim-ark`,
			`POST /api/contracts/${loan.id}/broadcast-claim-ark`,
			`GET /api/contracts/${loan.id}`,
		]);
		expect(requests[5].body).toEqual({
			ark_psbt: signed.ark_psbt,
			checkpoint_psbts: signed.checkpoint_psbts,
		});
		for (const request of requests)
			expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
		expectNoKeyIn(run.stdout + run.stderr);
	});

	test('take a loan: picks the cheapest matching offer and creates the contract with the order id as idempotency key', async () => {
		const from = sandbox.requests.length;
		const contractsBefore = sandbox.state.contracts.size;
		const run = await home.execute(DEMO_WORKFLOWS.takeLoan);
		expect(run.code).toBe(0);

		const offers = nodeOutput(run.data, 'Find matching offers');
		expect(offers.length).toBeGreaterThan(0);
		for (const offer of offers) {
			expect(offer.loan_amount_min).toBeLessThanOrEqual(1000);
			expect(offer.loan_amount_max).toBeGreaterThanOrEqual(1000);
		}
		const cheapest = Math.min(...offers.map((offer) => offer.interest_rate));
		const [best] = nodeOutput(run.data, 'Best offer');
		expect(best.interest_rate).toBe(cheapest);

		const [contract] = nodeOutput(run.data, 'Request the loan');
		expect(contract.loan_id).toBe(best.id);
		expect(sandbox.state.contracts.size).toBe(contractsBefore + 1);

		const [listOffers] = apiRequests(sandbox.requests, from, '/api/offers');
		expect(listOffers.method).toBe('GET');
		expect(listOffers.headers['x-api-key']).toBe(sandbox.keys.borrower);
		// With the order's own key the node first looks whether an earlier run created the contract,
		// and afterwards whether another execution created one with the same key meanwhile.
		const contractRequests = apiRequests(sandbox.requests, from, '/api/contracts');
		expect(contractRequests.map((request) => request.method)).toEqual(['GET', 'POST', 'GET']);
		const create = contractRequests[1];
		expect(create.headers['x-api-key']).toBe(sandbox.keys.borrower);
		expect(create.headers['idempotency-key']).toBe('order-1042');
		expect(create.body).toEqual({
			loan_id: best.id,
			id: best.id,
			loan_amount: 1000,
			duration_days: 90,
			collateral_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
			borrower_btc_address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
			repayment_address: '0x52908400098527886E0F7030069857D2E4169EE7',
			borrower_loan_address: '0x52908400098527886E0F7030069857D2E4169EE7',
			client_contract_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
		});

		// The same order again: the idempotency key returns the same contract, no second loan.
		const again = await home.execute(DEMO_WORKFLOWS.takeLoan);
		expect(again.code).toBe(0);
		expect(nodeOutput(again.data, 'Request the loan')[0].id).toBe(contract.id);
		expect(sandbox.state.contracts.size).toBe(contractsBefore + 1);
	});

	test('report of open contracts: lists open contracts and sums them up', async () => {
		const from = sandbox.requests.length;
		const run = await home.execute(DEMO_WORKFLOWS.openReport);
		expect(run.code).toBe(0);
		const contracts = nodeOutput(run.data, 'Open contracts');
		const ids = contracts.map((contract) => contract.id);
		expect(ids).toEqual(
			expect.arrayContaining([SEED_IDS.contracts.requested, SEED_IDS.contracts.principalGiven]),
		);
		expect(ids).not.toContain(SEED_IDS.contracts.closed);
		expect(ids).not.toContain(SEED_IDS.contracts.otherBorrowers);
		const [report] = nodeOutput(run.data, 'Report');
		expect(report.report).toContain(`Open Lendasat contracts: ${contracts.length},`);

		const [list] = apiRequests(sandbox.requests, from, '/api/contracts');
		expect(list.method).toBe('GET');
		expect(list.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	test("a partner's rows gathered by Aggregate into one item: events for each borrower, an item with the error for the one whose key is rejected", async () => {
		const from = sandbox.requests.length;
		const run = await home.execute(BORROWER_LIST_WORKFLOW);
		expect(run.code).toBe(0);
		const output = nodeOutput(run.data, 'Events');
		const failed = output.filter((item) => item.error !== undefined);
		expect(failed).toEqual([
			expect.objectContaining({
				borrower: 'carol',
				list_index: 2,
				error: expect.stringMatching(
					/^Lendasat rejected the borrower's API key from the input item \(HTTP 401/,
				),
			}),
		]);
		const events = output.filter((item) => item.error === undefined);
		expect(new Set(events.map((item) => item.borrower))).toEqual(new Set(['alice', 'bob']));
		expect(events.every((item) => typeof item.event_key === 'string')).toBe(true);
		const keysSent = apiRequests(sandbox.requests, from, '/api/contracts').map(
			(request) => request.headers['x-api-key'],
		);
		expect(new Set(keysSent)).toEqual(
			new Set([sandbox.keys.borrower, sandbox.keys.otherBorrower, REVOKED_KEY]),
		);
		// The rows upstream hold the keys, as the partner's table gives them; what the node made does not.
		const made = JSON.stringify(output);
		expectNoKeyIn(made);
		expect(made).not.toContain(REVOKED_KEY);
	});

	test('a contract with the master key fails before anything is sent, with our message and no key', async () => {
		const from = sandbox.requests.length;
		const run = await home.execute(WRONG_KEY_TYPE_WORKFLOW);
		expect(run.code).not.toBe(0);
		const error = runError(run.data);
		expect(error.message).toMatch(
			/needs a Borrower Key, but the credential holds a Partner Master Key/,
		);
		expect(apiRequests(sandbox.requests, from, '/api/contracts')).toHaveLength(0);
		expectNoKeyIn(run.stdout + run.stderr);
	});

	test('a master key saved as a borrower key is rejected by the API; the mapped error names no key', async () => {
		const from = sandbox.requests.length;
		const run = await home.execute(REJECTED_KEY_WORKFLOW);
		expect(run.code).not.toBe(0);
		const error = runError(run.data);
		expect(`${error.message} ${error.description ?? ''}`).toMatch(/Check the credential/);
		const [list] = apiRequests(sandbox.requests, from, '/api/contracts');
		expect(list.headers['x-api-key']).toBe(sandbox.keys.master);
		expectNoKeyIn(run.stdout + run.stderr);
	});
});

describe("the package installed as n8n installs it: its errors are n8n's own", () => {
	test("a contract request the offer refuses fails with HTTP 400 and the package's message", async () => {
		const run = await home.execute(REFUSED_AMOUNT_WORKFLOW);
		expect(run.code).not.toBe(0);
		const error = runError(run.data);
		expect(error.message).toBe(
			'The loan amount is outside what the offer allows (HTTP 400, INVALID_AMOUNT)',
		);
		expect(error.httpCode).toBe('400');
		expectNoKeyIn(run.stdout + run.stderr);
	});
});

describe('on a running n8n server', () => {
	let server: N8nServer;

	beforeAll(async () => {
		server = await home.start();
		await server.setupOwner();
	});

	afterAll(async () => {
		await server?.stop();
	});

	test('the failed runs are recorded with our message and without any key', async () => {
		const expected: Record<string, RegExp> = {
			[WRONG_KEY_TYPE_WORKFLOW]:
				/needs a Borrower Key, but the credential holds a Partner Master Key/,
			[REJECTED_KEY_WORKFLOW]: /Check the credential/,
			[REFUSED_AMOUNT_WORKFLOW]:
				/^The loan amount is outside what the offer allows \(HTTP 400, INVALID_AMOUNT\)/,
		};
		for (const [id, message] of Object.entries(expected)) {
			const [summary] = await server.executions(id);
			expect(summary.status).toBe('error');
			const execution = await server.execution(summary.id);
			const error = runError(execution.data);
			expect(`${error.message} ${error.description ?? ''}`).toMatch(message);
			// n8n recognised the package's NodeApiError as its own class: it kept the status ("none" otherwise).
			if (id === REFUSED_AMOUNT_WORKFLOW) expect(error.httpCode).toBe('400');
			expectNoKeyIn(JSON.stringify(execution));
		}
	});

	test('margin-call alert: activated, a contract goes into margin call, the alert is sent', async () => {
		const from = sandbox.requests.length;
		await server.activate(DEMO_WORKFLOWS.marginCall);
		// The trigger's first poll (at the start of the next minute) learns the current state; a change
		// after it is news at the following poll.
		await waitFor(
			() => apiRequests(sandbox.requests, from, '/api/contracts').length > 0,
			75_000,
			'the first poll',
		);
		const contractPolls = apiRequests(sandbox.requests, from, '/api/contracts');
		expect(contractPolls[0].method).toBe('GET');
		expect(contractPolls[0].headers['x-api-key']).toBe(sandbox.keys.borrower);
		sandbox.admin.setLiquidationStatus(SEED_IDS.contracts.principalGiven, 'FirstMarginCall');
		const [summary] = await waitFor(
			async () => {
				const executions = await server.executions(DEMO_WORKFLOWS.marginCall);
				return executions.length > 0 && executions[0].status !== 'running' ? executions : undefined;
			},
			75_000,
			'the margin-call workflow to run',
		);
		expect(summary.status).toBe('success');
		const execution = await server.execution(summary.id);
		const [event] = nodeOutput(execution.data, 'Margin call');
		expect(event.id).toBe(SEED_IDS.contracts.principalGiven);
		const alerts = receiver.received.filter(
			(request) => request.path === '/webhook/lendasat-alerts',
		);
		expect(alerts).toHaveLength(1);
		expect(alerts[0].method).toBe('POST');
		expect(alerts[0].body.contract_id).toBe(SEED_IDS.contracts.principalGiven);
		expect(alerts[0].body.text).toMatch(/^Margin call on Lendasat contract/);
	}, 200_000);
});
