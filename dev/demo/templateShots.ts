// An editor screenshot of every workflow in templates/, each imported the way a user does it: a new
// workflow, the workflow menu → Import → From file, the file chosen in the file dialog. Then the
// canvas is zoomed to fit, what the editor drew is read from the page (templateDrawing.ts checks it)
// and the editor is saved as <out>/<template>.png, or with no <out> not saved (the check alone).
// Called by screenshots.ts --templates.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ROOT } from '../n8n/ensure-n8n';
import type { Json } from '../n8n/n8n-env';
import { sleep } from '../n8n/steps';
import {
	drawingProblems,
	unknownNodeTypes,
	type DrawnEdge,
	type DrawnNode,
	type NodeTypeVersions,
	STICKY_NOTE,
} from './templateDrawing';

// The functions handed to page.evaluate run in the browser. The project compiles without the DOM
// library (nothing else here has a DOM), so the browser's globals they use are declared, untyped.
declare const document: Json;
declare const NodeFilter: Json;
declare const getComputedStyle: Json;
declare const DOMPoint: Json;

export const TEMPLATE_DIR = join(ROOT, 'templates');
export const TEMPLATE_IMAGE_DIR = join(ROOT, 'docs', 'images', 'templates');

/** Every template, whatever its name: the folder is read, never listed here. */
export const templateFiles = (dir: string = TEMPLATE_DIR): string[] =>
	readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => join(dir, file));

export const imageNameOf = (templateFile: string): string =>
	`${basename(templateFile, '.json')}.png`;

/** n8n's zoom to fit fills about this share of the canvas; the rest is its margin. */
const FIT_SHARE = 0.87;
/** The zoom at which a note's text still reads in a screenshot at twice the pixels. */
const READABLE_ZOOM = 0.45;
/** The editor around the canvas: the sidebar's width; the header's and the Logs bar's height. */
const EDITOR_FRAME = { width: 80, height: 140 };
const [MIN_WIDTH, MAX_WIDTH, MIN_HEIGHT, MAX_HEIGHT] = [1600, 2400, 1000, 1800];

const within = (low: number, high: number, value: number): number =>
	Math.min(high, Math.max(low, Math.ceil(value)));

/**
 * A window large enough that zoom to fit shows the template at a readable zoom (a tall one gets a
 * taller window), from its extent in the file: notes at their size, nodes as 100 × 100 boxes with
 * about 60 px of name below.
 */
export function viewportFor(nodes: Json[]): { width: number; height: number } {
	const boxes = nodes.map((node) => {
		const note = node.type === STICKY_NOTE;
		const [x, y] = node.position as [number, number];
		return {
			left: x,
			top: y,
			right: x + (note ? node.parameters.width : 100),
			bottom: y + (note ? node.parameters.height : 160),
		};
	});
	const width =
		Math.max(...boxes.map((box) => box.right)) - Math.min(...boxes.map((box) => box.left));
	const height =
		Math.max(...boxes.map((box) => box.bottom)) - Math.min(...boxes.map((box) => box.top));
	const canvas = (extent: number): number => (extent * READABLE_ZOOM) / FIT_SHARE;
	return {
		width: within(MIN_WIDTH, MAX_WIDTH, EDITOR_FRAME.width + canvas(width)),
		height: within(MIN_HEIGHT, MAX_HEIGHT, EDITOR_FRAME.height + canvas(height)),
	};
}

export interface TemplateShot {
	file: string;
	/** The screenshot, when one was saved. */
	image?: string;
	/** What the editor drew, in screen pixels. */
	drawn: DrawnNode[];
	/** What looks wrong (templateDrawing.ts); any fails the run. */
	problems: string[];
}

export interface ShotOptions {
	/** Where the screenshots go; without it none is saved, and the drawing is only checked. */
	outDir?: string;
	files?: string[];
}

/**
 * Imports every template in its own new tab of `context` (signed in to `n8nUrl`) and checks what the
 * editor drew. With `outDir`, saves each screenshot there and removes the images of templates that
 * are gone. Returns what the check found per template.
 */
export async function shootTemplates(
	context: Json,
	n8nUrl: string,
	{ outDir, files = templateFiles() }: ShotOptions = {},
): Promise<TemplateShot[]> {
	if (outDir) {
		const images = new Set(files.map(imageNameOf));
		for (const stale of readdirSync(outDir).filter((f) => f.endsWith('.png') && !images.has(f)))
			rmSync(join(outDir, stale));
	}
	const shots: TemplateShot[] = [];
	let nodeTypes: NodeTypeVersions[] | undefined;
	for (const file of files) {
		const template = JSON.parse(readFileSync(file, 'utf8'));
		const page = await context.newPage();
		try {
			await page.setViewportSize(viewportFor(template.nodes));
			await page.goto(`${n8nUrl}/workflow/new`);
			await page.getByTestId('canvas-wrapper').waitFor();
			nodeTypes ??= await page.evaluate(() =>
				fetch('/types/nodes.json').then((answer) => answer.json()),
			);
			await importFromFile(page, file);
			await settleCanvas(page, template.nodes.length);
			const drawn = await readDrawing(page);
			const problems = [
				...unknownNodeTypes(template.nodes, nodeTypes as NodeTypeVersions[]),
				...drawingProblems(drawn, await readEdges(page)),
			];
			const image = outDir && join(outDir, imageNameOf(file));
			if (image) await page.screenshot({ path: image });
			shots.push({ file, image, drawn, problems });
		} finally {
			await page.close();
		}
	}
	return shots;
}

/** Import → From file in the workflow menu, and the file given to the dialog it opens. */
async function importFromFile(page: Json, file: string): Promise<void> {
	await page.getByTestId('workflow-menu').click();
	await page.getByTestId('workflow-menu-item-import').hover();
	const chooser = page.waitForEvent('filechooser');
	await page.getByTestId('workflow-menu-item-import-from-file').click();
	await (await chooser).setFiles(file);
}

/**
 * Waits until every node of the template is on the canvas with its icon loaded, clears the
 * selection (n8n selects what it imports), zooms to fit and waits for the zoom to end.
 */
async function settleCanvas(page: Json, nodeCount: number): Promise<void> {
	await page.waitForFunction(
		(count: number) => document.querySelectorAll('.vue-flow__node').length === count,
		nodeCount,
	);
	await page.waitForFunction(() =>
		[...document.querySelectorAll('.vue-flow__node img')].every((image) => image.complete),
	);
	await page.evaluate(() => document.fonts.ready);
	const empty = await emptyCanvasPoint(page);
	await page.mouse.click(empty.x, empty.y);
	if ((await page.locator('.vue-flow__node.selected').count()) > 0)
		throw new Error('the imported nodes stay selected after a click on the empty canvas');
	await page.getByTestId('zoom-to-fit').click();
	await page.mouse.move(empty.x, empty.y); // away from the button and its tooltip
	let last = '';
	for (let still = 0; still < 3; ) {
		await sleep(200);
		const transform = await page
			.locator('.vue-flow__transformationpane')
			.evaluate((pane: Json) => pane.style.transform);
		still = transform === last ? still + 1 : 0;
		last = transform;
	}
}

/** A point of the canvas, near a corner, where the click lands on the empty pane. */
async function emptyCanvasPoint(page: Json): Promise<{ x: number; y: number }> {
	const point = await page.getByTestId('canvas-wrapper').evaluate((wrapper: Json) => {
		const area = wrapper.getBoundingClientRect();
		const inset = 40;
		const corners = [
			{ x: area.left + inset, y: area.top + inset },
			{ x: area.right - inset, y: area.top + inset },
			{ x: area.right - inset, y: area.bottom - inset },
			{ x: area.left + inset, y: area.bottom - inset },
		];
		return corners.find((corner) =>
			document.elementFromPoint(corner.x, corner.y)?.classList.contains('vue-flow__pane'),
		);
	});
	if (!point) throw new Error('no empty corner on the canvas to click');
	return point;
}

/**
 * Every node and sticky note as the canvas drew it: its box, and each line of text shown with it,
 * as much of it as is visible (text the page hides, such as a trigger's button shown on hover, left
 * out; a long subtitle cut to the node's width by an ellipsis, as drawn), and whether a line
 * reaches past the box (a sticky note cuts it off there).
 */
function readDrawing(page: Json): Promise<DrawnNode[]> {
	// Runs in the page. No named helper functions in here: tsx wraps them in a `__name` call
	// that the page does not have.
	return page.locator('.vue-flow__node').evaluateAll((elements: Json[]) =>
		elements.map((element) => {
			const node = element.querySelector('[data-node-type]');
			const box = element.getBoundingClientRect();
			const text: { x: number; y: number; width: number; height: number }[] = [];
			let textPastBox = false;
			const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
			for (let line = walker.nextNode(); line; line = walker.nextNode()) {
				const parent = line.parentElement;
				if (!line.textContent?.trim() || !parent) continue;
				if (!parent.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
				if (parent.closest('[data-test-id="canvas-node-toolbar"], .sticky-textarea')) continue;
				const range = document.createRange();
				range.selectNodeContents(line);
				for (const rect of range.getClientRects()) {
					let [left, top, right, bottom] = [rect.left, rect.top, rect.right, rect.bottom];
					if (right > box.right + 0.5 || bottom > box.bottom + 0.5) textPastBox = true;
					// Clipped by every box on the way up that hides its overflow.
					for (let clip = parent; clip && element.contains(clip); clip = clip.parentElement) {
						const style = getComputedStyle(clip);
						if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
						const edge = clip.getBoundingClientRect();
						[left, top] = [Math.max(left, edge.left), Math.max(top, edge.top)];
						[right, bottom] = [Math.min(right, edge.right), Math.min(bottom, edge.bottom)];
					}
					if (right > left && bottom > top)
						text.push({ x: left, y: top, width: right - left, height: bottom - top });
				}
			}
			return {
				name: node?.getAttribute('data-node-name') ?? '',
				type: node?.getAttribute('data-node-type') ?? '',
				box: { x: box.x, y: box.y, width: box.width, height: box.height },
				text,
				textPastBox,
				unknown:
					element.querySelector('[data-test-id="node-not-installed"]') !== null ||
					[...element.querySelectorAll('img')].some((image) => image.naturalWidth === 0),
			};
		}),
	);
}

/** Every connection as drawn: points along its line, about every 4 pixels of the screen. */
function readEdges(page: Json): Promise<DrawnEdge[]> {
	// Runs in the page, as readDrawing.
	return page.locator('[data-test-id="edge"]').evaluateAll((edges: Json[]) =>
		edges.map((edge) => {
			const path = edge.querySelector('.vue-flow__edge-path');
			const matrix = path.getScreenCTM();
			const length = path.getTotalLength();
			const steps = Math.max(2, Math.ceil((length * matrix.a) / 4));
			const points: { x: number; y: number }[] = [];
			for (let step = 0; step <= steps; step++) {
				const along = path.getPointAtLength((length * step) / steps);
				const point = new DOMPoint(along.x, along.y).matrixTransform(matrix);
				points.push({ x: point.x, y: point.y });
			}
			return {
				from: edge.getAttribute('data-source-node-name') ?? '',
				to: edge.getAttribute('data-target-node-name') ?? '',
				points,
			};
		}),
	);
}
