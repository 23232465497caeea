import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	AGENT_TEMPLATE_FILE,
	lendasatToolsOf,
	MCP_TEMPLATE_FILE,
	readTemplate,
} from '../helpers/templates';

/*
 * Every workflow in templates/ is in production form: what n8n's canvas shows is readable (no node
 * drawn over a sticky note), and nothing of a test or the sandbox is left in it (no 127.0.0.1 or
 * localhost address, every credential a placeholder to replace), and every node is wired in. The
 * end-to-end tests run each template's twin; this checks the files themselves, whichever templates
 * there are, and of the AI templates, that the writes are wired behind a person.
 */

const TEMPLATES_DIR = join(__dirname, '..', '..', 'templates');
const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
/** n8n draws every node but a sticky note in a 100 × 100 box whose top left corner is its position. */
const NODE_SIZE = 100;

interface TemplateNode {
	name: string;
	type: string;
	position: [number, number];
	parameters: { width?: number; height?: number };
	credentials?: Record<string, { id: string; name: string }>;
}

interface Box {
	x: number;
	y: number;
	width: number;
	height: number;
}

const templates = readdirSync(TEMPLATES_DIR)
	.filter((file) => file.endsWith('.json'))
	.map((file) => {
		const text = readFileSync(join(TEMPLATES_DIR, file), 'utf8');
		return {
			file,
			text,
			workflow: JSON.parse(text) as { nodes: TemplateNode[]; connections: object },
		};
	});

/** Where n8n draws a node: a sticky note at its width and height, any other node 100 × 100. */
function boxOf(node: TemplateNode): Box {
	const [x, y] = node.position;
	return node.type === STICKY_NOTE
		? { x, y, width: node.parameters.width ?? 0, height: node.parameters.height ?? 0 }
		: { x, y, width: NODE_SIZE, height: NODE_SIZE };
}

/** Whether two boxes share any area (touching edges do not). */
function overlap(a: Box, b: Box): boolean {
	return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Each [note, node] pair where n8n would draw the node over the note. */
function nodesOverNotes(nodes: TemplateNode[]): string[][] {
	const notes = nodes.filter((node) => node.type === STICKY_NOTE);
	const others = nodes.filter((node) => node.type !== STICKY_NOTE);
	return notes.flatMap((note) =>
		others
			.filter((node) => overlap(boxOf(note), boxOf(node)))
			.map((node) => [note.name, node.name]),
	);
}

const note = (name: string, position: [number, number], width: number, height: number) => ({
	name,
	type: STICKY_NOTE,
	position,
	parameters: { width, height },
});
const node = (name: string, position: [number, number]) => ({
	name,
	type: 'n8n-nodes-base.set',
	position,
	parameters: {},
});

describe('the drawing check', () => {
	it('finds a node whose box reaches into a note, and none beside it', () => {
		expect(
			nodesOverNotes([
				note('Set: URL', [0, 200], 300, 200),
				node('Over its top edge', [100, 120]),
				node('Over its right edge', [250, 300]),
				node('Above, touching', [0, 100]),
				node('Right of it, touching', [300, 250]),
			]),
		).toEqual([
			['Set: URL', 'Over its top edge'],
			['Set: URL', 'Over its right edge'],
		]);
	});
});

describe.each(templates)('templates/$file', ({ text, workflow }) => {
	it('has no node drawn over a sticky note, and no two notes on each other', () => {
		expect(workflow.nodes.some((candidate) => candidate.type === STICKY_NOTE)).toBe(true);
		expect(nodesOverNotes(workflow.nodes)).toEqual([]);
		const notes = workflow.nodes.filter((candidate) => candidate.type === STICKY_NOTE);
		const stacked = notes.flatMap((one, index) =>
			notes
				.slice(index + 1)
				.filter((other) => overlap(boxOf(one), boxOf(other)))
				.map((other) => [one.name, other.name]),
		);
		expect(stacked).toEqual([]);
	});

	it('holds no address of a local test server', () => {
		expect(text).not.toMatch(/127\.0\.0\.1|localhost/i);
	});

	it('names every credential by a placeholder for the user to replace', () => {
		const ids = workflow.nodes.flatMap((candidate) =>
			Object.values(candidate.credentials ?? {}).map((credential) => credential.id),
		);
		expect(ids.length).toBeGreaterThan(0);
		for (const id of ids) expect(id).toMatch(/^YOUR_[A-Z_]+$/);
	});

	it('connects only nodes it has, and every node but its notes', () => {
		const names = new Set(workflow.nodes.map((candidate) => candidate.name));
		const connections = workflow.connections as Record<
			string,
			Record<string, Array<Array<{ node: string }>>>
		>;
		const linked = new Set<string>();
		for (const [source, byType] of Object.entries(connections)) {
			expect(names.has(source)).toBe(true);
			linked.add(source);
			// main, and an AI agent's ai_tool, ai_languageModel, ai_memory…
			for (const target of Object.values(byType).flat(2)) {
				expect(names.has(target.node)).toBe(true);
				linked.add(target.node);
			}
		}
		const loose = workflow.nodes
			.filter((candidate) => candidate.type !== STICKY_NOTE && !linked.has(candidate.name))
			.map((candidate) => candidate.name);
		expect(loose).toEqual([]);
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
	for (const tool of tools) expect(tool.meta).toBeDefined();
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
