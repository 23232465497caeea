/**
 * A write behind a person's approval for an MCP server, built as docs/ai-agents.md tells a user to
 * (section "Add a write behind human review"), for test/e2e/mcpServer.e2e.ts. n8n's Human review
 * nodes connect only to an AI Agent, so the approval runs in a workflow of its own:
 *
 * - "Cancel after approval": When Executed by Another Workflow (contractId) → Telegram Send and Wait
 *   for Response (Approve / Decline) → If approved → Lendasat Borrower, Contract → Cancel.
 * - "Ask for approval": When Executed by Another Workflow (contractId) → Execute Workflow "Cancel
 *   after approval" with Wait For Sub-Workflow Completion off → the answer for the client.
 * - In the MCP workflow, a Call n8n Workflow Tool "Cancel a contract request" runs "Ask for approval".
 *
 * The MCP call returns at once: an MCP client cannot wait for a person, and a tool whose workflow
 * waits itself leaves the client without the outcome (n8n 2.41.1 answers "Sub-workflow is paused",
 * 1.123.81 the sub-workflow's input, and both record the MCP execution as failed).
 */
import type { Json } from '../../dev/n8n/n8n-env';

/** What the client is told when it asks for the write. */
export const SENT_FOR_APPROVAL =
	"Sent for approval. Nothing has been cancelled yet: a person approves or declines it in Telegram. Get a contract shows the contract's status.";

const trigger = (id: string): Json => ({
	id,
	name: 'When Executed by Another Workflow',
	type: 'n8n-nodes-base.executeWorkflowTrigger',
	typeVersion: 1.1,
	position: [0, 0],
	parameters: {
		inputSource: 'workflowInputs',
		workflowInputs: { values: [{ name: 'contractId', type: 'string' }] },
	},
});

/** The Workflow Inputs of a node that calls a workflow taking `contractId`, set to `value`. */
const contractIdInput = (value: string): Json => ({
	mappingMode: 'defineBelow',
	value: { contractId: value },
	matchingColumns: [],
	schema: [
		{
			id: 'contractId',
			displayName: 'contractId',
			required: false,
			defaultMatch: false,
			display: true,
			canBeUsedToMatch: true,
			type: 'string',
		},
	],
	attemptToConvertTypes: false,
	convertFieldsToString: false,
});

const main = (node: string): Json => [{ node, type: 'main', index: 0 }];

/** The workflow that asks in Telegram and cancels only on Approve. */
export function cancelAfterApproval(credentials: { lendasat: Json; telegram: Json }): Json {
	return {
		name: 'e2e: Lendasat cancel after approval',
		nodes: [
			trigger('7e7e0000-0000-4000-8000-000000000001'),
			{
				id: '7e7e0000-0000-4000-8000-000000000002',
				name: 'Ask in Telegram',
				type: 'n8n-nodes-base.telegram',
				typeVersion: 1.2,
				position: [220, 0],
				webhookId: '7e7e0000-0000-4000-8000-0000000000f2',
				parameters: {
					operation: 'sendAndWait',
					chatId: '424242',
					message: '=Cancel Lendasat contract request {{ $json.contractId }}?',
					approvalOptions: { values: { approvalType: 'double' } },
					options: {},
				},
				credentials: { telegramApi: credentials.telegram },
			},
			{
				id: '7e7e0000-0000-4000-8000-000000000003',
				name: 'Approved?',
				type: 'n8n-nodes-base.if',
				typeVersion: 2.2,
				position: [440, 0],
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
						conditions: [
							{
								id: '7e7e0000-0000-4000-8000-0000000000c1',
								leftValue: '={{ $json.data.approved }}',
								rightValue: '',
								operator: { type: 'boolean', operation: 'true', singleValue: true },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
			},
			{
				id: '7e7e0000-0000-4000-8000-000000000004',
				name: 'Cancel a contract request',
				type: 'n8n-nodes-lendasat.lendasatBorrower',
				typeVersion: 1.1,
				position: [660, 0],
				parameters: {
					resource: 'contract',
					operation: 'cancel',
					contractId: {
						__rl: true,
						mode: 'id',
						value: "={{ $('When Executed by Another Workflow').item.json.contractId }}",
					},
				},
				credentials: { lendasatApi: credentials.lendasat },
			},
		],
		connections: {
			'When Executed by Another Workflow': { main: [main('Ask in Telegram')] },
			'Ask in Telegram': { main: [main('Approved?')] },
			'Approved?': { main: [main('Cancel a contract request'), []] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The workflow the MCP tool runs: it starts the approval and answers without waiting for it. */
export function askForApproval(cancelWorkflowId: string): Json {
	return {
		name: 'e2e: Lendasat ask for approval',
		nodes: [
			trigger('7e7e0000-0000-4000-8000-000000000011'),
			{
				id: '7e7e0000-0000-4000-8000-000000000012',
				name: 'Start the approval',
				type: 'n8n-nodes-base.executeWorkflow',
				typeVersion: 1.2,
				position: [220, 0],
				parameters: {
					workflowId: { __rl: true, mode: 'id', value: cancelWorkflowId },
					workflowInputs: contractIdInput('={{ $json.contractId }}'),
					options: { waitForSubWorkflow: false },
				},
			},
			{
				id: '7e7e0000-0000-4000-8000-000000000013',
				name: 'Answer',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [440, 0],
				parameters: {
					mode: 'raw',
					jsonOutput: JSON.stringify({ status: SENT_FOR_APPROVAL }),
					options: {},
				},
			},
		],
		connections: {
			'When Executed by Another Workflow': { main: [main('Start the approval')] },
			'Start the approval': { main: [main('Answer')] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The MCP workflow with the write added: a Call n8n Workflow Tool into its trigger. */
export function withReviewedCancel(mcpWorkflow: Json, askWorkflowId: string): Json {
	const trigger = mcpWorkflow.nodes.find(
		(node: Json) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger',
	);
	const tool = {
		id: '7e7e0000-0000-4000-8000-000000000021',
		name: 'Cancel a contract request',
		type: '@n8n/n8n-nodes-langchain.toolWorkflow',
		typeVersion: 2.2,
		position: [900, 300],
		parameters: {
			description:
				'Ask a person to approve cancelling a contract request. Returns at once: nothing is cancelled until they approve; Get a contract then shows status Cancelled.',
			workflowId: { __rl: true, mode: 'id', value: askWorkflowId },
			workflowInputs: contractIdInput(
				"={{ $fromAI('contractId', 'UUID of the contract request to cancel', 'string') }}",
			),
		},
	};
	return {
		...mcpWorkflow,
		nodes: [...mcpWorkflow.nodes, tool],
		connections: {
			...mcpWorkflow.connections,
			[tool.name]: { ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] },
		},
	};
}
