/**
 * Writes the output schemas (outputSchemas.ts) into nodes/LendasatBorrower/__schema__, formatted as
 * Prettier formats the repository, and removes those of no operation. It runs the built package:
 *
 *   npm run schemas          (npm run build, then this)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import prettier from 'prettier';

import { startSandbox } from '../sandbox/server';
import type { JsonSchema } from './jsonSchema';
import { ROOT, SCHEMA_FOLDER, generateSchemas, shippedSchemas } from './outputSchemas';

/** A schema as the file holds it: formatted by the project's Prettier settings. */
async function fileText(schema: JsonSchema): Promise<string> {
	const options = await prettier.resolveConfig(path.join(SCHEMA_FOLDER, 'schema.json'));
	return await prettier.format(JSON.stringify(schema), { ...options, parser: 'json' });
}

/** Places only ever null, and arrays always empty, in the cases: a case where they hold a value would say more. */
function thinPlaces(schema: JsonSchema, place = '(item)'): string[] {
	const here =
		schema.type === 'null' || (schema.type.includes('array') && !schema.items) ? [place] : [];
	return [
		...here,
		...Object.entries(schema.properties ?? {}).flatMap(([key, property]) =>
			thinPlaces(property, place === '(item)' ? key : `${place}.${key}`),
		),
		...(schema.items ? thinPlaces(schema.items, `${place}[]`) : []),
	];
}

async function main(): Promise<void> {
	// n8n's logger would print each failed item; a failure here is reported once, below.
	process.env.N8N_LOG_LEVEL = 'silent';
	const sandbox = await startSandbox();
	try {
		const generated = await generateSchemas(sandbox);
		const shipped = shippedSchemas();
		let written = 0;
		for (const [file, schema] of generated) {
			const target = path.join(SCHEMA_FOLDER, file);
			const text = await fileText(schema);
			let current: string | undefined;
			try {
				current = readFileSync(target, 'utf8');
			} catch {
				current = undefined;
			}
			if (current === text) continue;
			mkdirSync(path.dirname(target), { recursive: true });
			writeFileSync(target, text);
			written++;
		}
		const stale = [...shipped.keys()].filter((file) => !generated.has(file));
		for (const file of stale) rmSync(path.join(SCHEMA_FOLDER, file));
		const thin = [...generated].flatMap(([file, schema]) =>
			thinPlaces(schema).map((place) => `${file}: ${place}`),
		);
		process.stdout.write(
			`${generated.size} schemas in ${path.relative(ROOT, SCHEMA_FOLDER)}: ${written} written, ${generated.size - written} unchanged, ${stale.length} removed\n` +
				(thin.length
					? `Only ever null, or always an empty array, in the cases (a case where they hold a value would say more):\n  ${thin.join('\n  ')}\n`
					: ''),
		);
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) {
	main().catch((error: unknown) => {
		process.stderr.write(`${(error as Error).message}\n`);
		process.exit(1);
	});
}
