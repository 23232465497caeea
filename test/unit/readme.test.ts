import type { INodePropertyOptions } from 'n8n-workflow';

import { operationMetaOf } from '../../nodes/LendasatBorrower/transport/apiRoute';
import { LendasatBorrowerTrigger } from '../../nodes/LendasatBorrower/LendasatBorrowerTrigger.node';
import { nodeDescription } from '../helpers/aiTool';
import { operationRows, readDoc, section } from '../helpers/markdown';

const README = readDoc('README.md');

const labels = nodeDescription.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) => property.options as INodePropertyOptions[])
	.map((option) => operationMetaOf(option.routing)?.label ?? '');

describe('the README is read in one sitting', () => {
	it('has at most 400 lines; the reference is in docs/', () => {
		expect(README.split('\n').length).toBeLessThanOrEqual(400);
	});
});

describe('one version everywhere', () => {
	const { version } = JSON.parse(readDoc('package.json')) as { version: string };

	it('names only the tarball npm pack makes of this version', () => {
		expect(new Set(README.match(/n8n-nodes-lendasat-\d+\.\d+\.\d+\.tgz/g))).toEqual(
			new Set([`n8n-nodes-lendasat-${version}.tgz`]),
		);
	});

	it("has the version's entry in CHANGELOG.md", () => {
		expect(readDoc('CHANGELOG.md')).toMatch(
			new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm'),
		);
	});
});

describe('the nodes panel describes the node in one or two lines', () => {
	it.each([
		['Lendasat Borrower', nodeDescription.description],
		['Lendasat Borrower Trigger', new LendasatBorrowerTrigger().description.description],
	])('%s: at most 100 characters', (_node, description) => {
		expect(description.length).toBeLessThanOrEqual(100);
	});
});

describe("the README's Operations table keeps up with the operations", () => {
	const rows = operationRows(section(README, '## Operations'));

	it.each(labels)('%s: has a row', (label) => {
		expect(rows).toContain(label);
	});

	it('has no row for an operation the node does not have, and none twice', () => {
		expect([...rows].sort()).toEqual([...labels].sort());
	});
});
