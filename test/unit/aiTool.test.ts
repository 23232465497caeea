import { NodeHelpers, type INode } from 'n8n-workflow';

import { LendasatBorrower } from '../../nodes/LendasatBorrower/LendasatBorrower.node';

/** What an AI Agent's model reads about the node used as a tool: n8n builds it from the operation's action. */
function toolDescription(resource: string, operation: string): string {
	const node = {
		name: 'Lendasat',
		parameters: { resource, operation },
		type: 'lendasatBorrower',
		typeVersion: 1.1,
	} as unknown as INode;
	return NodeHelpers.getToolDescriptionForNode(node, new LendasatBorrower());
}

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
			const description = toolDescription(resource, operation);
			expect(description).toMatch(expected);
			expect(description).toMatch(/ in Lendasat Borrower$/);
		},
	);
});
