import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodePropertyOptions } from 'n8n-workflow';

import { operationMetaOf } from '../../nodes/LendasatBorrower/transport/apiRoute';
import { nodeDescription } from '../helpers/aiTool';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The README's section between a heading and the next heading of the same or a higher level. */
function section(heading: string): string {
	const start = README.indexOf(heading);
	if (start < 0) throw new Error(`the README has no section ${heading}`);
	const level = heading.match(/^#+/)?.[0] ?? '##';
	const rest = README.slice(start + heading.length);
	const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
	return end < 0 ? rest : rest.slice(0, end);
}

const labels = nodeDescription.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) => property.options as INodePropertyOptions[])
	.map((option) => operationMetaOf(option.routing)?.label ?? '');

describe('the README keeps up with the operations', () => {
	const coverage = section('### Every endpoint a key can use, and the few left out');
	const operations = section('## Operations');

	it.each(labels)('%s: names the endpoint it sends', (label) => {
		expect(coverage).toContain(label);
	});

	it.each(labels)('%s: has a row in the Operations table', (label) => {
		const [resource, operation] = label.split(' → ');
		expect(operations).toMatch(
			new RegExp(`\\*\\*${resource} → ${operation.replace(/[()]/g, '\\$&')}\\*\\*`),
		);
	});
});

describe("the README states every write's repeat rule as its code does", () => {
	const rows = section('## Retries, rate limits and timeouts')
		.split('\n')
		.filter((line) => line.startsWith('| **Sent'));
	const sentOnce = rows.filter((row) => row.startsWith('| **Sent once')).join('\n');
	const sentAgain = rows.filter((row) => row.startsWith('| **Sent again')).join('\n');
	const writes = nodeDescription.properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) => property.options as INodePropertyOptions[])
		.map((option) => operationMetaOf(option.routing))
		.filter((meta) => meta?.repeat !== undefined);

	it.each(writes.map((meta) => [meta?.label, meta?.repeat]))('%s: %s', (label, repeat) => {
		const [stated, other] = repeat === 'once' ? [sentOnce, sentAgain] : [sentAgain, sentOnce];
		expect(stated).toContain(String(label));
		expect(other).not.toContain(`${label},`);
	});
});
