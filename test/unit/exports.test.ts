import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/*
 * What the package exports is what it uses: nothing in nodes/ or credentials/ is there only for the
 * tests or the development tools (they keep such code in test/helpers or dev/), since all of it
 * ships in dist/. An export counts as used when the package itself refers to it again, in its own
 * file or another; the classes n8n loads through package.json are used by n8n.
 */

const ROOT = join(__dirname, '..', '..');
const LOADED_BY_N8N = ['LendasatBorrower', 'LendasatBorrowerTrigger', 'LendasatApi'];

function sources(folder: string): string[] {
	return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
		.filter((file) => file.endsWith('.ts'))
		.map((file) => join(ROOT, folder, file));
}

const files = [...sources('nodes'), ...sources('credentials')].map((file) => ({
	file: relative(ROOT, file),
	text: readFileSync(file, 'utf8'),
}));

const exported = files.flatMap(({ file, text }) =>
	[
		...text.matchAll(
			/^export (?:declare )?(?:async )?(?:const|function|class|let|enum) ([A-Za-z_$][\w$]*)/gm,
		),
	].map((match) => ({ file, name: match[1] })),
);

const references = (name: string): number =>
	files.reduce(
		(count, { text }) =>
			count + (text.match(new RegExp(`\\b${name.replace('$', '\\$')}\\b`, 'g'))?.length ?? 0),
		0,
	);

describe('the package ships no code only its tests or tools use', () => {
	it('uses every export of nodes/ and credentials/ itself', () => {
		expect(exported.length).toBeGreaterThan(100);
		const unused = exported
			.filter(({ name }) => !LOADED_BY_N8N.includes(name) && references(name) < 2)
			.map(({ file, name }) => `${file}: ${name}`);
		expect(unused).toEqual([]);
	});
});
