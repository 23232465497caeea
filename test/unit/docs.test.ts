import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { INodePropertyOptions } from 'n8n-workflow';

import { operationMetaOf } from '../../nodes/LendasatBorrower/transport/apiRoute';
import { nodeDescription } from '../helpers/aiTool';
import {
	anchorsOf,
	brokenLink,
	documentationFiles,
	linksOf,
	operationRows,
	readDoc,
	ROOT,
	section,
	slugOf,
} from '../helpers/markdown';
import takeALoan from '../workflows/take-a-loan.json';

const metas = nodeDescription.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) => property.options as INodePropertyOptions[])
	.map((option) => operationMetaOf(option.routing));
const labels = metas.map((meta) => meta?.label ?? '');

describe("anchors are GitHub's", () => {
	it.each([
		['Contract → Create on both servers', 'contract--create-on-both-servers'],
		['Exactly once: what is and is not guaranteed', 'exactly-once-what-is-and-is-not-guaranteed'],
		['The sandbox (try it without funds)', 'the-sandbox-try-it-without-funds'],
		['What `npm start` shows you', 'what-npm-start-shows-you'],
		['Suggested `$fromAI()` expressions', 'suggested-fromai-expressions'],
		[
			"From n8n's Community Nodes screen (once the package is on npm)",
			'from-n8ns-community-nodes-screen-once-the-package-is-on-npm',
		],
		['Retries, rate limits and timeouts', 'retries-rate-limits-and-timeouts'],
		[
			'Every endpoint a key can use, and the few left out',
			'every-endpoint-a-key-can-use-and-the-few-left-out',
		],
		['snake_case and dash-case kept', 'snake_case-and-dash-case-kept'],
		['A [linked](https://example.com) *word*', 'a-linked-word'],
	])('%s → #%s', (heading, slug) => {
		expect(slugOf(heading)).toBe(slug);
	});

	it('numbers a repeated heading as GitHub does, and ignores headings inside code', () => {
		expect(anchorsOf('# Notes\n\n## Notes\n\n```bash\n# not a heading\n```\n## Notes\n')).toEqual([
			'notes',
			'notes-1',
			'notes-2',
		]);
	});
});

describe('every link of the documentation resolves', () => {
	const links = documentationFiles().flatMap((file) =>
		linksOf(readDoc(file)).map((link) => [file, link] as const),
	);

	it('finds the links it checks', () => {
		expect(links.length).toBeGreaterThan(100);
		expect(linksOf('[a](b.md) `[c](d.md)`\n```\n[e](f.md)\n```\n![g](h.png "title")')).toEqual([
			'b.md',
			'h.png',
		]);
	});

	it('names what is missing: a file, or a heading', () => {
		expect(brokenLink('docs/README.md', 'nowhere.md')).toBe('docs/nowhere.md does not exist');
		expect(brokenLink('docs/README.md', '../README.md#nowhere')).toBe(
			'README.md has no heading whose anchor is #nowhere',
		);
		expect(brokenLink('README.md', '#install')).toBeUndefined();
	});

	it.each(links)('%s: %s', (file, link) => {
		expect(brokenLink(file, link)).toBeUndefined();
	});

	it('links every page of docs/ from its index', () => {
		const index = linksOf(readDoc('docs/README.md'));
		for (const page of documentationFiles().filter((file) => file.startsWith('docs/'))) {
			if (page === 'docs/README.md') continue;
			expect(index).toContain(page.slice('docs/'.length));
		}
	});
});

describe('docs/operations.md keeps up with the operations', () => {
	const operations = readDoc('docs/operations.md');
	const rows = operationRows(operations);
	const coverage = section(operations, '## Every endpoint a key can use, and the few left out');

	it.each(labels)('%s: has a row in the operations table', (label) => {
		expect(rows).toContain(label);
	});

	it('has no row for an operation the node does not have, and none twice', () => {
		expect([...rows].sort()).toEqual([...labels].sort());
	});

	it.each(labels)('%s: names the endpoint it sends', (label) => {
		expect(coverage).toContain(label);
	});
});

describe("docs/retries.md states every write's repeat rule as its code does", () => {
	const rows = readDoc('docs/retries.md')
		.split('\n')
		.filter((line) => line.startsWith('| **Sent'));
	const sentOnce = rows.filter((row) => row.startsWith('| **Sent once')).join('\n');
	const sentAgain = rows.filter((row) => row.startsWith('| **Sent again')).join('\n');
	const writes = metas.filter((meta) => meta?.repeat !== undefined);

	it.each(writes.map((meta) => [meta?.label, meta?.repeat]))('%s: %s', (label, repeat) => {
		const [stated, other] = repeat === 'once' ? [sentOnce, sentAgain] : [sentAgain, sentOnce];
		expect(stated).toContain(String(label));
		expect(other).not.toContain(`${label},`);
	});
});

describe('docs/contract-create.md shows the workflow the integration tests run', () => {
	it('is test/workflows/take-a-loan.json', () => {
		const json = readDoc('docs/contract-create.md').match(/```json\n(\{\n[\s\S]*?)\n```/)?.[1];
		expect(JSON.parse(String(json))).toEqual(takeALoan);
	});
});

describe('every template is shown as the editor draws it', () => {
	const images = readdirSync(join(ROOT, 'templates'))
		.filter((file) => file.endsWith('.json'))
		.map((file) => `images/templates/${file.replace(/\.json$/, '.png')}`);
	const pages = documentationFiles().filter((file) => file.startsWith('docs/'));

	it.each(images)(
		'docs/%s exists and a page of docs/ shows it (npm run screenshots -- --templates)',
		(image) => {
			expect(existsSync(join(ROOT, 'docs', image))).toBe(true);
			expect(pages.filter((page) => linksOf(readDoc(page)).includes(image))).not.toEqual([]);
		},
	);
});
