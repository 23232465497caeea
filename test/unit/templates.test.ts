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
 * or name drawn on or against a sticky note), and nothing of a test or the sandbox is left in it (no
 * 127.0.0.1 or localhost address, every credential a placeholder to replace), and every node is
 * wired in. The end-to-end tests run each template's twin, and the editor test checks what n8n's
 * editor really draws (npm run screenshots -- --templates --check); this checks the files
 * themselves, whichever templates there are, and of the AI templates, that the writes are wired
 * behind a person.
 */

const TEMPLATES_DIR = join(__dirname, '..', '..', 'templates');
const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
/**
 * What n8n 2.41.1 draws for a node, from its position (measured in its editor): a 96 × 96 box (an
 * AI tool's 80 × 80) and under it the node's name and subtitle, centred and often wider than the
 * box, down to 164 px below the position.
 */
const NODE_DRAWN = { left: -48, right: 156, bottom: 164 };
/** A node that takes AI inputs (AI Agent, MCP Server Trigger, Human review) is wide, its name inside. */
const WIDE_NODE_DRAWN = { width: 240, height: 128 };
/** Room kept between a note and what is drawn for a node: n8n moves both to its 16 px grid. */
const CLEARANCE = 16;

interface TemplateNode {
	name: string;
	type: string;
	position: [number, number];
	parameters: { width?: number; height?: number };
	credentials?: Record<string, { id: string; name: string }>;
}

type Connections = Record<string, Record<string, Array<Array<{ node: string }>>>>;

interface Workflow {
	nodes: TemplateNode[];
	connections: Connections;
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
		return { file, text, workflow: JSON.parse(text) as Workflow };
	});

/** The nodes other nodes connect into by an AI connection (ai_tool, ai_languageModel…). */
function nodesWithAiInputs(connections: Connections): Set<string> {
	return new Set(
		Object.values(connections).flatMap((byType) =>
			Object.entries(byType)
				.filter(([type]) => type !== 'main')
				.flatMap(([, outputs]) => outputs.flat().map((target) => target.node)),
		),
	);
}

/** Where n8n draws a sticky note: at its position, its width and height. */
function noteBox(note: TemplateNode): Box {
	const [x, y] = note.position;
	return { x, y, width: note.parameters.width ?? 0, height: note.parameters.height ?? 0 };
}

/** The area n8n draws for a node: its box and the name and subtitle under it. */
function drawnArea(node: TemplateNode, wide: boolean): Box {
	const [x, y] = node.position;
	return wide
		? { x, y, ...WIDE_NODE_DRAWN }
		: {
				x: x + NODE_DRAWN.left,
				y,
				width: NODE_DRAWN.right - NODE_DRAWN.left,
				height: NODE_DRAWN.bottom,
			};
}

/** How far apart two boxes are (the larger of the gaps across and down); negative when they overlap. */
function distance(a: Box, b: Box): number {
	return Math.max(
		Math.max(b.x - (a.x + a.width), a.x - (b.x + b.width)),
		Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height)),
	);
}

/** Each note with a node drawn on it or closer than the clearance, and how close (px). */
function nodesAtNotes(workflow: Workflow): [string, string, number][] {
	const wide = nodesWithAiInputs(workflow.connections);
	const notes = workflow.nodes.filter((node) => node.type === STICKY_NOTE);
	const others = workflow.nodes.filter((node) => node.type !== STICKY_NOTE);
	return notes.flatMap((note) =>
		others
			.map((node): [string, string, number] => [
				note.name,
				node.name,
				distance(noteBox(note), drawnArea(node, wide.has(node.name))),
			])
			.filter(([, , apart]) => apart < CLEARANCE),
	);
}

/** Each two notes on or against each other (touching edges included), and how far apart. */
function notesTogether(workflow: Workflow): [string, string, number][] {
	const notes = workflow.nodes.filter((node) => node.type === STICKY_NOTE);
	return notes.flatMap((one, index) =>
		notes
			.slice(index + 1)
			.map((other): [string, string, number] => [
				one.name,
				other.name,
				distance(noteBox(one), noteBox(other)),
			])
			.filter(([, , apart]) => apart <= 0),
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
	const setUrl = note('Set: URL', [0, 400], 400, 200);

	it('finds a node or its name on a note or within 16 px of it, and how close', () => {
		expect(
			nodesAtNotes({
				nodes: [
					setUrl,
					node('Box over the top edge', [300, 320]),
					node('Name over the top edge', [100, 240]),
					node('Name 10 px above', [100, 226]),
					node('Name 10 px to the left', [-166, 450]),
					node('Name 10 px to the right', [458, 450]),
					node('Name 16 px above', [100, 220]),
					node('Name 16 px to the right', [464, 450]),
					node('Box 16 px below', [100, 616]),
				],
				connections: {},
			}),
		).toEqual([
			['Set: URL', 'Box over the top edge', -84],
			['Set: URL', 'Name over the top edge', -4],
			['Set: URL', 'Name 10 px above', 10],
			['Set: URL', 'Name 10 px to the left', 10],
			['Set: URL', 'Name 10 px to the right', 10],
		]);
	});

	it('draws a node with AI inputs wide, its name inside', () => {
		const agent = { ...node('AI Agent', [160, 0]), type: '@n8n/n8n-nodes-langchain.agent' };
		const model = { ...node('Model', [-200, 0]), type: '@n8n/n8n-nodes-langchain.lmChatOpenAi' };
		const connections = { Model: { ai_languageModel: [[{ node: 'AI Agent' }]] } };
		expect(
			nodesAtNotes({ nodes: [note('Right', [408, 0], 200, 100), agent, model], connections }),
		).toEqual([['Right', 'AI Agent', 8]]);
		expect(
			nodesAtNotes({ nodes: [note('Below', [160, 144], 200, 100), agent, model], connections }),
		).toEqual([]);
	});

	it('finds two notes on or against each other, not two notes apart', () => {
		expect(
			notesTogether({
				nodes: [
					setUrl,
					note('Overlapping', [300, 300], 200, 120),
					note('Touching', [400, 500], 100, 100),
					note('Apart', [0, 601], 100, 100),
				],
				connections: {},
			}),
		).toEqual([
			['Set: URL', 'Overlapping', -20],
			['Set: URL', 'Touching', 0],
		]);
	});
});

describe.each(templates)('templates/$file', ({ text, workflow }) => {
	it(`has every node, with its name, ${CLEARANCE} px or more from every sticky note, and no two notes touching`, () => {
		expect(workflow.nodes.some((candidate) => candidate.type === STICKY_NOTE)).toBe(true);
		expect(nodesAtNotes(workflow)).toEqual([]);
		expect(notesTogether(workflow)).toEqual([]);
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
		const linked = new Set<string>();
		for (const [source, byType] of Object.entries(workflow.connections)) {
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
