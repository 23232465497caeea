/**
 * The AI templates as files: importable as they are, with placeholders where the user sets something,
 * sticky notes that no node covers, and the wiring that keeps writes behind a person. What they do in
 * a real n8n is tested by test/e2e/agentReview.e2e.ts and test/e2e/mcpServer.e2e.ts.
 */
import type { Json } from '../../dev/n8n/n8n-env';
import {
	AGENT_TEMPLATE_FILE,
	lendasatToolsOf,
	MCP_TEMPLATE_FILE,
	readTemplate,
} from '../helpers/templates';

const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
/** n8n draws a node as a 100 × 100 box at its position. */
const NODE_SIZE = 100;

interface Box {
	name: string;
	x: number;
	y: number;
	width: number;
	height: number;
}

const boxOf = (node: Json): Box => ({
	name: node.name,
	x: node.position[0],
	y: node.position[1],
	width: node.type === STICKY_NOTE ? node.parameters.width : NODE_SIZE,
	height: node.type === STICKY_NOTE ? node.parameters.height : NODE_SIZE,
});

const overlap = (a: Box, b: Box): boolean =>
	a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.each([
	['ai-agent-human-review.json', AGENT_TEMPLATE_FILE],
	['mcp-server-read-only.json', MCP_TEMPLATE_FILE],
])('templates/%s', (_name, file) => {
	const template = readTemplate(file);
	const nodes = template.nodes as Json[];
	const notes = nodes.filter((node) => node.type === STICKY_NOTE).map(boxOf);
	const others = nodes.filter((node) => node.type !== STICKY_NOTE).map(boxOf);

	test('no node sits over a sticky note, and no two notes overlap', () => {
		const covered = notes.flatMap((note) =>
			others.filter((node) => overlap(note, node)).map((node) => `${node.name} on ${note.name}`),
		);
		expect(covered).toEqual([]);
		const stacked = notes.flatMap((note, index) =>
			notes.slice(index + 1).filter((other) => overlap(note, other)),
		);
		expect(stacked).toEqual([]);
	});

	test('every credential is a placeholder, and no address points at a test server', () => {
		const credentials = nodes.flatMap((node) =>
			Object.values((node.credentials ?? {}) as Record<string, { id: string }>).map(
				(credential) => credential.id,
			),
		);
		expect(credentials.length).toBeGreaterThan(0);
		for (const id of credentials) expect(id).toMatch(/^YOUR_[A-Z_]+_CREDENTIAL$/);
		for (const tool of lendasatToolsOf(template)) expect(tool.meta).toBeDefined();
		expect(JSON.stringify(template)).not.toMatch(/127\.0\.0\.1|localhost/);
	});

	test('every node is connected', () => {
		const linked = new Set<string>([
			...Object.keys(template.connections),
			...Object.values(template.connections as Json).flatMap((outputs: Json) =>
				Object.values(outputs).flatMap((branches: Json) =>
					branches.flatMap((branch: Json[]) => branch.map((target) => target.node)),
				),
			),
		]);
		expect(others.map((node) => node.name).filter((name) => !linked.has(name))).toEqual([]);
	});
});

test('the AI Agent template: every Lendasat write goes through Human review, every read straight to the agent', () => {
	const tools = lendasatToolsOf(readTemplate(AGENT_TEMPLATE_FILE));
	expect(tools.map((tool) => [tool.name, tool.into])).toEqual(
		tools.map((tool) => [tool.name, tool.writes ? 'Human review' : 'AI Agent']),
	);
	// The examples of what must never reach Lendasat without a person.
	expect(
		tools
			.filter((tool) => tool.writes)
			.map((tool) => tool.operation)
			.sort(),
	).toEqual(['broadcastClaim', 'cancel', 'create', 'extend', 'sendFiatDetails']);
	expect(tools.filter((tool) => !tool.writes).length).toBeGreaterThan(0);
});

test('the MCP template: read-only tools only (n8n cannot put a human review in front of an MCP tool)', () => {
	const tools = lendasatToolsOf(readTemplate(MCP_TEMPLATE_FILE));
	expect(tools.filter((tool) => tool.writes)).toEqual([]);
	expect(new Set(tools.map((tool) => tool.into))).toEqual(new Set(['MCP Server Trigger']));
	expect(tools.map((tool) => `${tool.resource}.${tool.operation}`).sort()).toEqual([
		'contract.get',
		'contract.getAll',
		'contract.getEvents',
		'contract.getHealth',
		'offer.getAll',
		'price.getHistory',
	]);
});
