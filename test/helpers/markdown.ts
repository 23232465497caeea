import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** The project's Markdown documentation, as paths from the repository's root. */
export function documentationFiles(): string[] {
	const pages = readdirSync(join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`);
	return ['README.md', 'dev/README.md', ...pages];
}

export function readDoc(path: string): string {
	return readFileSync(join(ROOT, path), 'utf8');
}

/** The lines outside fenced code blocks; a fence's lines become empty, so line numbers stay. */
function outsideCode(markdown: string): string[] {
	let fenced = false;
	return markdown.split('\n').map((line) => {
		if (line.startsWith('```')) {
			fenced = !fenced;
			return '';
		}
		return fenced ? '' : line;
	});
}

/** A heading's text as GitHub renders it: no code ticks, emphasis or link targets. */
function renderedText(heading: string): string {
	return heading
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/`/g, '')
		.replace(/\*/g, '');
}

/**
 * GitHub's anchor for a heading (github-slugger): lower case, every character that is not a letter,
 * a digit, a mark, '-', '_' or a space removed (punctuation and symbols such as → alike), then each
 * space a '-'.
 */
export function slugOf(heading: string): string {
	return renderedText(heading)
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

/** Every anchor a page's headings make; GitHub numbers a repeated one -1, -2, … */
export function anchorsOf(markdown: string): string[] {
	const seen = new Map<string, number>();
	const anchors: string[] = [];
	for (const line of outsideCode(markdown)) {
		const heading = line.match(/^#{1,6} (.+)$/)?.[1];
		if (heading === undefined) continue;
		const slug = slugOf(heading.trim());
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.push(count === 0 ? slug : `${slug}-${count}`);
	}
	return anchors;
}

/** The targets of a page's inline links and images, outside code. */
export function linksOf(markdown: string): string[] {
	return outsideCode(markdown)
		.map((line) => line.replace(/`[^`]*`/g, ''))
		.flatMap((line) =>
			[...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]),
		);
}

/**
 * Why a link of the page at `from` (a path from the repository's root) does not resolve, or
 * undefined when it does. Links with a scheme (https:, mailto:) are not followed.
 */
export function brokenLink(from: string, link: string): string | undefined {
	if (/^[a-z][a-z0-9+.-]*:/i.test(link)) return undefined;
	const [path, anchor] = link.split('#', 2);
	const target = path === '' ? from : relative(ROOT, join(ROOT, dirname(from), path));
	if (target.startsWith('..') || !existsSync(join(ROOT, target))) return `${target} does not exist`;
	if (anchor === undefined) return undefined;
	if (!target.endsWith('.md')) return `${target} is not a Markdown page, so it has no #${anchor}`;
	return anchorsOf(readDoc(target)).includes(anchor)
		? undefined
		: `${target} has no heading whose anchor is #${anchor}`;
}

/** A page's section from a heading to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
	const start = markdown.indexOf(`${heading}\n`);
	if (start < 0) throw new Error(`no section ${heading}`);
	const level = heading.match(/^#+/)?.[0].length ?? 2;
	const rest = markdown.slice(start + heading.length);
	const end = rest.search(new RegExp(`\\n#{1,${level}} `));
	return end < 0 ? rest : rest.slice(0, end);
}

/** The operations a table names in its first column, as `| **Contract → Create**…` rows. */
export function operationRows(markdown: string): string[] {
	return markdown
		.split('\n')
		.map((line) => line.match(/^\| \*\*([^*|]+ → [^*|]+)\*\*/)?.[1])
		.filter((label): label is string => label !== undefined);
}
