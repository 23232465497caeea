// What the n8n editor drew for a template, read from the page by templateShots.ts, and what is wrong
// with it. The JSON check (test/unit/templates.test.ts) assumes n8n's sizes; this one measures the
// boxes and text the editor really drew.

/** A rectangle on the screen, in CSS pixels. */
export interface Rect {
	x: number;
	y: number;
	width: number;
	height: number;
}

/** A node or a sticky note as the editor drew it. */
export interface DrawnNode {
	name: string;
	type: string;
	/** The box the canvas placed (a sticky note's whole rectangle). */
	box: Rect;
	/** Every line of text drawn with it, as far as it shows: a node's name, subtitle and output labels; a note's text. */
	text: Rect[];
	/** Some line of its text reaches past its box: a sticky note cuts such text off. */
	textPastBox: boolean;
	/** The editor marked it "not installed" (a "?" node), or its icon did not load. */
	unknown: boolean;
}

/** A connection as the editor drew it: points along its line, every few pixels. */
export interface DrawnEdge {
	from: string;
	to: string;
	points: { x: number; y: number }[];
}

/** The editor's list of node types (`/types/nodes.json`): each name with its version or versions. */
export interface NodeTypeVersions {
	name: string;
	version: number | number[];
}

export const STICKY_NOTE = 'n8n-nodes-base.stickyNote';

/** Less than half a pixel in common is rounding, not an overlap. */
const EPSILON = 0.5;

export const overlaps = (a: Rect, b: Rect): boolean =>
	a.x + EPSILON < b.x + b.width &&
	b.x + EPSILON < a.x + a.width &&
	a.y + EPSILON < b.y + b.height &&
	b.y + EPSILON < a.y + a.height;

/**
 * What a reader of the canvas would see wrong: a node the editor does not know, a node's box or
 * text on a sticky note, two notes on each other, a note whose text runs past its edge (the editor
 * cuts it off there), names that run into each other, a connection drawn across a note.
 */
export function drawingProblems(drawn: DrawnNode[], edges: DrawnEdge[]): string[] {
	const notes = drawn.filter((item) => item.type === STICKY_NOTE);
	const nodes = drawn.filter((item) => item.type !== STICKY_NOTE);
	const problems: string[] = [];
	for (const node of nodes) {
		if (node.unknown)
			problems.push(`"${node.name}" (${node.type}) is drawn as a node n8n does not know`);
		for (const note of notes) {
			if (overlaps(node.box, note.box)) problems.push(`"${node.name}" sits on note "${note.name}"`);
			else if (node.text.some((line) => overlaps(line, note.box)))
				problems.push(`the text under "${node.name}" runs over note "${note.name}"`);
		}
	}
	notes.forEach((note, index) => {
		for (const other of notes.slice(index + 1))
			if (overlaps(note.box, other.box))
				problems.push(`notes "${note.name}" and "${other.name}" overlap`);
		if (note.textPastBox) problems.push(`note "${note.name}" cuts off its text`);
	});
	return [...problems, ...crowdedNodes(drawn), ...edgesOverNotes(edges, drawn)];
}

/** The nodes of a template whose type, at that version, the editor's list of node types lacks. */
export function unknownNodeTypes(
	nodes: { name: string; type: string; typeVersion: number }[],
	known: NodeTypeVersions[],
): string[] {
	const versions = new Map<string, number[]>();
	for (const type of known)
		versions.set(type.name, [
			...(versions.get(type.name) ?? []),
			...(Array.isArray(type.version) ? type.version : [type.version]),
		]);
	return nodes
		.filter((node) => !versions.get(node.type)?.includes(node.typeVersion))
		.map((node) => `"${node.name}": n8n has no ${node.type} version ${node.typeVersion}`);
}

/** Nodes drawn into each other: one's box or text on another's text, where neither name reads. */
export function crowdedNodes(drawn: DrawnNode[]): string[] {
	const nodes = drawn.filter((item) => item.type !== STICKY_NOTE);
	const onText = (rect: Rect, node: DrawnNode): boolean =>
		node.text.some((line) => overlaps(rect, line));
	return nodes.flatMap((node, index) =>
		nodes
			.slice(index + 1)
			.filter(
				(other) =>
					onText(node.box, other) ||
					onText(other.box, node) ||
					node.text.some((line) => onText(line, other)),
			)
			.map(
				(other) =>
					`"${node.name}" and "${other.name}": a name runs into the other node or its name`,
			),
	);
}

/** Connections drawn across a note: the line runs over its text. */
export function edgesOverNotes(edges: DrawnEdge[], drawn: DrawnNode[]): string[] {
	const notes = drawn.filter((item) => item.type === STICKY_NOTE);
	return edges.flatMap((edge) =>
		notes
			.filter((note) => edge.points.some((point) => overlaps(rectAt(point), note.box)))
			.map((note) => `the connection "${edge.from}" → "${edge.to}" crosses note "${note.name}"`),
	);
}

/** A point as a rectangle of one pixel. */
const rectAt = (point: { x: number; y: number }): Rect => ({ ...point, width: 1, height: 1 });
