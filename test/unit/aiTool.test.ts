import { NodeHelpers, type INodePropertyOptions } from 'n8n-workflow';

import { loadPackage } from '../../dev/harness/n8n';
import { operationMetaOf } from '../../nodes/LendasatBorrower/transport/apiRoute';
import {
	nodeDescription as description,
	resolvedParameters as resolved,
	toolDescriptionOfNode as asTool,
	whatTheModelReads as read,
} from '../helpers/aiTool';

/** Every operation of the node: resource, value and its option. */
const operations = description.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) =>
		(property.options as INodePropertyOptions[]).map((option) => ({
			resource: String(property.displayOptions?.show?.resource?.[0]),
			operation: String(option.value),
			option,
		})),
	);

const whatTheModelReads = (resource: string, operation: string) => read({ resource, operation });

describe('actions read like n8n’s own', () => {
	it.each(operations.map(({ resource, operation, option }) => [resource, operation, option]))(
		'%s → %s has a short action (verb and object, at most 40 characters)',
		(_resource, _operation, option) => {
			const action = String((option as INodePropertyOptions).action);
			expect(action.length).toBeLessThanOrEqual(40);
			expect(action).toMatch(/^[A-Z][a-z]+ /);
			expect(action).not.toMatch(/[:;]/);
		},
	);

	it('a node added from the actions panel is named after its short action', () => {
		expect(
			NodeHelpers.makeNodeName({ resource: 'contract', operation: 'create' }, description),
		).toBe('Create a contract');
		expect(NodeHelpers.makeNodeName({ resource: 'offer', operation: 'getAll' }, description)).toBe(
			'Get many loan offers',
		);
	});
});

describe('every write states its repeat rule', () => {
	it.each(operations.map(({ resource, operation, option }) => [resource, operation, option]))(
		'%s → %s',
		(_resource, _operation, option) => {
			const routing = (option as INodePropertyOptions).routing;
			const meta = operationMetaOf(routing);
			expect(meta).toBeDefined();
			const method = routing?.request?.method ?? 'GET';
			if (method === 'GET') expect(meta?.repeat).toBeUndefined();
			else expect(['once', 'afterLookup']).toContain(meta?.repeat);
		},
	);
});

describe('the node as an AI Agent tool', () => {
	it.each([
		['contract', 'create', /borrows money.*lock Bitcoin collateral/],
		['contract', 'extend', /borrows for longer at extra interest/],
		['contract', 'cancel', /irreversible/],
		['apiKey', 'delete', /revokes it at once \(irreversible\)/],
		['apiKey', 'create', /returns a new secret borrower key once/],
		['contract', 'get', /status, amounts, where to send collateral and the next installment/],
		['offer', 'getAll', /what lenders offer/],
	])(
		'tells the model what %s → %s does, what it changes and what comes back',
		(resource, operation, expected) => {
			expect(whatTheModelReads(resource, operation)).toMatch(expected);
		},
	);

	it('gives every operation a description of its own, longer than its action', () => {
		for (const { resource, operation, option } of operations) {
			const read = whatTheModelReads(resource, operation);
			expect(read.length).toBeGreaterThan(String(option.action).length);
			expect(read).toBe(operationMetaOf(option.routing)?.toolDescription);
		}
	});

	it('keeps a description the user wrote', () => {
		expect(
			read({
				resource: 'contract',
				operation: 'get',
				toolDescription: 'Read one of our loans; never more than one per question',
			}),
		).toBe('Read one of our loans; never more than one per question');
	});

	it('shows the Description only on the tool, never on the action node', () => {
		expect(resolved(description, { resource: 'contract', operation: 'get' })).not.toHaveProperty(
			'toolDescription',
		);
		expect(resolved(asTool, { resource: 'contract', operation: 'get' })).toHaveProperty(
			'toolDescription',
		);
	});
});

describe('the nodes panel finds the node by what it is for', () => {
	it.each(['lendasatBorrower', 'lendasatBorrowerTrigger'])(
		'%s: bitcoin, loan, lending, stablecoin, collateral and repay are search aliases, as n8n loads them',
		async (name) => {
			const loader = await loadPackage();
			const { codex } = loader.nodeTypes[name].type.description as { codex?: { alias?: string[] } };
			const aliases = (codex?.alias ?? []).map((alias) => alias.toLowerCase());
			for (const word of ['bitcoin', 'loan', 'lending', 'stablecoin', 'collateral', 'repay']) {
				expect(aliases).toContain(word);
			}
		},
	);
});
