/**
 * The check `npm run screenshots -- --templates` makes of each template as the n8n editor drew it
 * (dev/demo/templateDrawing.ts), on drawings whose faults are known. The drawings here are in
 * screen pixels, as the editor's page gives them.
 */
import {
	crowdedNodes,
	drawingProblems,
	edgesOverNotes,
	STICKY_NOTE,
	unknownNodeTypes,
	type DrawnNode,
	type Rect,
} from '../../dev/demo/templateDrawing';

const rect = (x: number, y: number, width: number, height: number): Rect => ({
	x,
	y,
	width,
	height,
});

/** A 48 × 48 node with its name drawn below it, wider than the node. */
const node = (name: string, x: number, y: number, extra: Partial<DrawnNode> = {}): DrawnNode => ({
	name,
	type: 'n8n-nodes-base.set',
	box: rect(x, y, 48, 48),
	text: [rect(x - 20, y + 52, 88, 10)],
	textPastBox: true,
	unknown: false,
	...extra,
});

const note = (name: string, box: Rect, textPastBox = false): DrawnNode => ({
	name,
	type: STICKY_NOTE,
	box,
	text: [rect(box.x + 6, box.y + 6, box.width - 12, 12)],
	textPastBox,
	unknown: false,
});

describe('what the editor drew: a failure', () => {
	const setUrl = note('Set: URL', rect(100, 100, 200, 100));

	it('is a node whose box reaches into a note, however little', () => {
		expect(drawingProblems([setUrl, node('Send alert', 290, 190)])).toEqual([
			'"Send alert" sits on note "Set: URL"',
		]);
	});

	it("is a node's name over a note, the node itself beside it", () => {
		expect(drawingProblems([setUrl, node('Send alert', 140, 40)])).toEqual([
			'the text under "Send alert" runs over note "Set: URL"',
		]);
	});

	it('is not a node or a name that only touches a note, or a rounding of half a pixel', () => {
		expect(
			drawingProblems([
				setUrl,
				node('Above', 120, 100 - 62),
				node('Left', 100 - 48, 120, { text: [] }),
				node('Half a pixel in', 299.6, 150, { text: [] }),
			]),
		).toEqual([]);
	});

	it('is two notes on each other, and a note whose text runs past its edge', () => {
		expect(
			drawingProblems([
				setUrl,
				note('Set: table', rect(250, 180, 200, 100)),
				note('Long', rect(600, 100, 100, 40), true),
			]),
		).toEqual(['notes "Set: URL" and "Set: table" overlap', 'note "Long" cuts off its text']);
	});

	it('is a node the editor does not know', () => {
		expect(
			drawingProblems([node('Old node', 0, 0, { type: 'n8n-nodes-gone.old', unknown: true })]),
		).toEqual(['"Old node" (n8n-nodes-gone.old) is drawn as a node n8n does not know']);
	});
});

describe("a template's node types against the editor's list", () => {
	const known = [
		{ name: 'n8n-nodes-base.set', version: [3, 3.4] },
		{ name: 'n8n-nodes-base.stickyNote', version: 1 },
	];

	it('names a type the editor lacks, and a version of a known type it lacks', () => {
		expect(
			unknownNodeTypes(
				[
					{ name: 'Compose', type: 'n8n-nodes-base.set', typeVersion: 3.4 },
					{ name: 'Note', type: 'n8n-nodes-base.stickyNote', typeVersion: 1 },
					{ name: 'Newer', type: 'n8n-nodes-base.set', typeVersion: 4 },
					{ name: 'Gone', type: 'n8n-nodes-gone.old', typeVersion: 1 },
				],
				known,
			),
		).toEqual([
			'"Newer": n8n has no n8n-nodes-base.set version 4',
			'"Gone": n8n has no n8n-nodes-gone.old version 1',
		]);
	});
});

describe('nodes drawn into each other (a notice, not a failure)', () => {
	it('are two names that run into each other, not two nodes side by side', () => {
		const drawn = [node('Get many loan offers', 0, 0), node('Get many contracts', 60, 0)];
		expect(crowdedNodes(drawn)).toEqual([
			'"Get many loan offers" and "Get many contracts": a name runs into the other node or its name',
		]);
		expect(drawingProblems(drawn)).toEqual([]);
		expect(crowdedNodes([node('One', 0, 0), node('Two', 100, 0)])).toEqual([]);
	});
});

describe('connections drawn across a note (a notice, not a failure)', () => {
	const setUrl = note('Set: URL', rect(100, 100, 200, 100));
	const line = (from: string, to: string, y: number) => ({
		from,
		to,
		points: [0, 100, 200, 300, 400].map((x) => ({ x, y })),
	});

	it('are lines through a note, not lines that pass above or below it', () => {
		expect(
			edgesOverNotes(
				[line('Your settings', 'Reminder rows', 150), line('Your settings', 'Open loans', 60)],
				[setUrl, node('Your settings', 0, 0)],
			),
		).toEqual(['the connection "Your settings" → "Reminder rows" crosses note "Set: URL"']);
	});
});
