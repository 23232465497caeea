import type { INodeExecutionData } from 'n8n-workflow';

import { startSandbox, SEED_IDS, type Sandbox } from '../../dev/sandbox/server';
import {
	loadPackage,
	runWorkflow,
	singleNodeWorkflow,
	type TestCredential,
} from '../../dev/harness/n8n';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * An expression that throws for one item (here `$('Missing Node')`, reached only when the item has
 * no contract) under "On Error: Continue (using error output)". n8n-core's RoutingNode resolves every
 * parameter of the item before any code of the node runs, and its catch outputs `{ json: {}, error }`
 * without pairedItem; WorkflowExecute then fills pairedItem only when the node had a single input
 * item (or, on one output, as many output items as input items). These tests document what n8n
 * 2.41 does: if one fails, n8n changed it (see n8n-io/n8n#30050, and the unmerged #24501 that set
 * pairedItem in RoutingNode), and docs/troubleshooting.md's row must change too.
 */

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
	await loadPackage();
});
afterAll(async () => sandbox.close());
beforeEach(() => sandbox.reset());

const NODE = 'Lendasat Borrower';
const CONTRACTS = SEED_IDS.contracts;

const borrower = (): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
});

/** Contract → Get of each item's `contract`, or of a node that does not exist when it has none. */
function getEachContract(onError: 'continueErrorOutput' | 'continueRegularOutput') {
	return singleNodeWorkflow(
		{
			resource: 'contract',
			operation: 'get',
			contractId: {
				__rl: true,
				mode: 'id',
				value: "={{ $json.contract ?? $('Missing Node').item.json.id }}",
			},
		},
		{ onError },
	);
}

const pairing = (items: INodeExecutionData[]) => items.map((item) => item.pairedItem);

describe('an expression that throws, under the error output', () => {
	it('with several input items, the error item has no pairedItem: n8n-core gives the node no say', async () => {
		const { output, error } = await runWorkflow(getEachContract('continueErrorOutput'), {
			credential: borrower(),
			items: [{ contract: CONTRACTS.approved }, {}, { contract: CONTRACTS.principalGiven }],
		});

		expect(error).toBeUndefined();
		expect(output(NODE, 0).map((item) => item.json.id)).toEqual([
			CONTRACTS.approved,
			CONTRACTS.principalGiven,
		]);
		expect(pairing(output(NODE, 0))).toEqual([{ item: 0 }, { item: 2 }]);
		const [failed, ...others] = output(NODE, 1);
		expect(others).toEqual([]);
		expect(failed.error?.message).toBe("Referenced node doesn't exist");
		expect(failed.json).toEqual({ error: "Referenced node doesn't exist" });
		expect(failed.pairedItem).toBeUndefined();
		// Nothing was sent for it.
		expect(sandbox.requests).toHaveLength(2);
	});

	it('an input the node refuses itself keeps its pairedItem, several items or not', async () => {
		const workflow = getEachContract('continueErrorOutput');
		Object.assign(workflow.nodes[0].parameters, {
			contractId: { __rl: true, mode: 'id', value: "={{ $json.contract ?? '' }}" },
		});
		const { output } = await runWorkflow(workflow, {
			credential: borrower(),
			items: [{ contract: CONTRACTS.approved }, {}, { contract: CONTRACTS.principalGiven }],
		});
		expect(pairing(output(NODE, 0))).toEqual([{ item: 0 }, { item: 2 }]);
		expect(output(NODE, 1)).toEqual([
			expect.objectContaining({
				json: { error: 'Invalid Contract [item 1]' },
				pairedItem: { item: 1 },
			}),
		]);
	});

	it('with one input item, n8n pairs the error item with it', async () => {
		const { output } = await runWorkflow(getEachContract('continueErrorOutput'), {
			credential: borrower(),
			items: [{}],
		});
		expect(output(NODE, 0)).toEqual([]);
		expect(pairing(output(NODE, 1))).toEqual([{ item: 0 }]);
		expect(sandbox.requests).toEqual([]);
	});

	it('with Continue (regular output) and one item out per item in, n8n pairs every item by position', async () => {
		const { output } = await runWorkflow(getEachContract('continueRegularOutput'), {
			credential: borrower(),
			items: [{ contract: CONTRACTS.approved }, {}, { contract: CONTRACTS.principalGiven }],
		});
		const items = output(NODE, 0);
		expect(pairing(items)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[1].error?.message).toBe("Referenced node doesn't exist");
	});
});
