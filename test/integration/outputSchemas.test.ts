import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { resolveOutputSchemaPath } from 'n8n-core';

import { startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { OUTPUT_CASES } from '../../dev/schemas/cases';
import {
	generateSchemas,
	nodeOperations,
	schemaFile,
	shippedSchemas,
} from '../../dev/schemas/outputSchemas';
import { describeSchema, type JsonSchema } from '../../dev/schemas/jsonSchema';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * The output schemas n8n's editor shows downstream nodes before the node has run (its schema
 * preview): one per node version, resource and operation, in nodes/LendasatBorrower/__schema__.
 * They must be what each operation outputs now: the test runs every case of dev/schemas/cases.ts
 * through n8n-core against the sandbox, as `npm run schemas` does, and compares.
 */

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());

const ROOT = path.join(__dirname, '..', '..');
const BUILT_NODE_FOLDER = path.join(ROOT, 'dist', 'nodes', 'LendasatBorrower');

/** The places in `schema` that `other` does not have, as `path: type` lines. */
function placesNotIn(schema: JsonSchema | undefined, other: JsonSchema | undefined): string[] {
	const theirs = new Set(other ? describeSchema(other) : []);
	return (schema ? describeSchema(schema) : []).filter((line) => !theirs.has(line));
}

describe('output schemas: what downstream nodes see before the first run', () => {
	it('ships one for every operation of every node version, and none for anything else', async () => {
		const { versions, operations } = await nodeOperations();
		expect(versions).toEqual([1, 1.1]);
		expect(operations.length).toBeGreaterThan(50);
		const expected = versions.flatMap((version) =>
			operations.map((operation) => schemaFile(version, operation)),
		);
		expect([...shippedSchemas().keys()].sort()).toEqual(expected.sort());
		// And every case of dev/schemas/cases.ts runs an operation the node has.
		const named = operations.map(({ resource, operation }) => `${resource}.${operation}`);
		const cased = Object.entries(OUTPUT_CASES).flatMap(([resource, cases]) =>
			Object.keys(cases).map((operation) => `${resource}.${operation}`),
		);
		expect(cased.filter((name) => !named.includes(name))).toEqual([]);
	});

	it('each is what its operation outputs now, in both dialects and node versions (else: npm run schemas)', async () => {
		const generated = await generateSchemas(sandbox);
		const shipped = shippedSchemas();
		const stale = [...generated]
			.filter(([file, schema]) => !isDeepStrictEqual(shipped.get(file), schema))
			.map(([file, schema]) => ({
				file,
				outputNow: placesNotIn(schema, shipped.get(file)),
				shippedOnly: placesNotIn(shipped.get(file), schema),
			}));
		expect(stale).toEqual([]);
		expect(generated.size).toBe(shipped.size);
	}, 120_000);

	it('differs between node versions only where the output does: Simplify of a contract', () => {
		const shipped = shippedSchemas();
		const differing = [...shipped.keys()]
			.filter((file) => file.startsWith('v1.0.0/'))
			.filter(
				(file) =>
					!isDeepStrictEqual(shipped.get(file), shipped.get(file.replace('v1.0.0/', 'v1.1.0/'))),
			);
		expect(differing.sort()).toEqual([
			'v1.0.0/contract/extend.json',
			'v1.0.0/contract/get.json',
			'v1.0.0/contract/getAll.json',
			'v1.0.0/contract/getEvents.json',
			'v1.0.0/contract/getNewEvents.json',
		]);
		// Version 1.1's Simplify adds the funding, the next installment and the repayment address.
		expect(shipped.get('v1.0.0/contract/get.json')?.properties).not.toHaveProperty(
			'next_installment',
		);
		expect(shipped.get('v1.1.0/contract/get.json')?.properties).toHaveProperty('next_installment');
	});

	it('each is one n8n’s editor takes: an object schema with properties', () => {
		for (const [file, schema] of shippedSchemas()) {
			expect({ file, type: schema.type }).toEqual({ file, type: 'object' });
			expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(0);
		}
	});

	it('is where n8n looks: the editor’s URL, resolved by n8n-core against the build, gives the shipped file', () => {
		// GET /schemas/n8n-nodes-lendasat.lendasatBorrower/1.1.0/contract/getEvents.json, as the
		// editor asked for it; n8n resolves it next to the node's file (its sourcePath).
		const found = resolveOutputSchemaPath({
			nodeDir: BUILT_NODE_FOLDER,
			version: '1.1.0',
			resource: 'contract',
			operation: 'getEvents',
		});
		expect(found).toBe(path.join(BUILT_NODE_FOLDER, '__schema__/v1.1.0/contract/getEvents.json'));
		for (const [file, schema] of shippedSchemas()) {
			const built = path.join(BUILT_NODE_FOLDER, '__schema__', file);
			expect({ file, built: existsSync(built) }).toEqual({ file, built: true });
			expect(JSON.parse(readFileSync(built, 'utf8'))).toEqual(schema);
		}
	});
});
