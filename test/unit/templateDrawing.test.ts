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
		expect(drawingProblems([setUrl, node('Send alert', 290, 190)], [])).toEqual([
			'"Send alert" sits on note "Set: URL"',
		]);
	});

	it("is a node's name over a note, the node itself beside it", () => {
		expect(drawingProblems([setUrl, node('Send alert', 140, 40)], [])).toEqual([
			'the text under "Send alert" runs over note "Set: URL"',
		]);
	});

	it('is not a node or a name that only touches a note, or a rounding of half a pixel', () => {
		expect(
			drawingProblems(
				[
					setUrl,
					node('Above', 120, 100 - 62),
					node('Left', 100 - 48, 120, { text: [] }),
					node('Half a pixel in', 299.6, 150, { text: [] }),
				],
				[],
			),
		).toEqual([]);
	});

	it('is two notes on each other, and a note whose text runs past its edge', () => {
		expect(
			drawingProblems(
				[
					setUrl,
					note('Set: table', rect(250, 180, 200, 100)),
					note('Long', rect(600, 100, 100, 40), true),
				],
				[],
			),
		).toEqual(['notes "Set: URL" and "Set: table" overlap', 'note "Long" cuts off its text']);
	});

	it('is a node the editor does not know', () => {
		expect(
			drawingProblems([node('Old node', 0, 0, { type: 'n8n-nodes-gone.old', unknown: true })], []),
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

describe('what the editor drew: a failure too, names that run into each other', () => {
	it('is two names that run into each other, not two nodes side by side', () => {
		const drawn = [node('Get many loan offers', 0, 0), node('Get many contracts', 60, 0)];
		const crowded =
			'"Get many loan offers" and "Get many contracts": a name runs into the other node or its name';
		expect(crowdedNodes(drawn)).toEqual([crowded]);
		expect(drawingProblems(drawn, [])).toEqual([crowded]);
		expect(drawingProblems([node('One', 0, 0), node('Two', 100, 0)], [])).toEqual([]);
	});

	it("is a node's box on another node's name, its name on nothing", () => {
		const drawn = [node('Above', 0, 0), node('Below', 0, 56, { text: [] })];
		expect(drawingProblems(drawn, [])).toEqual([
			'"Above" and "Below": a name runs into the other node or its name',
		]);
	});

	it('is not two names that only touch, or share less than half a pixel', () => {
		expect(drawingProblems([node('Left', 0, 0), node('Right', 88, 0)], [])).toEqual([]);
		expect(drawingProblems([node('Left', 0, 0), node('Right', 87.6, 0)], [])).toEqual([]);
	});
});

describe('what the editor drew: a failure too, a connection across a note', () => {
	const setUrl = note('Set: URL', rect(100, 100, 200, 100));
	const line = (from: string, to: string, y: number, xs = [0, 100, 200, 300, 400]) => ({
		from,
		to,
		points: xs.map((x) => ({ x, y })),
	});
	const settings = node('Your settings', 0, 0);

	it('is a line through a note, not a line that passes above or below it', () => {
		const across = line('Your settings', 'Reminder rows', 150);
		const message = 'the connection "Your settings" → "Reminder rows" crosses note "Set: URL"';
		expect(
			edgesOverNotes([across, line('Your settings', 'Open loans', 60)], [setUrl, settings]),
		).toEqual([message]);
		expect(drawingProblems([setUrl, settings], [across])).toEqual([message]);
	});

	it("is not a line along a note's edge, one that ends at its edge, or one through the gap between two notes", () => {
		const below = note('Set: table', rect(100, 240, 200, 100));
		expect(
			drawingProblems(
				[setUrl, below, settings],
				[
					line('Your settings', 'Open loans', 200),
					line('Your settings', 'Guard rows', 220),
					line('Your settings', 'Alerts', 150, [0, 40, 80, 99]),
				],
			),
		).toEqual([]);
	});
});
