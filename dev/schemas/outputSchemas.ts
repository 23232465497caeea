/**
 * The output schemas n8n shows downstream nodes before the first run: one JSON Schema per node
 * version, resource and operation, in nodes/LendasatBorrower/__schema__/v<version>/<resource>/<operation>.json
 * (`n8n-node build` copies every `__schema__/**\/*.json` into dist/ beside the node). n8n's editor asks
 * for GET /schemas/<node type>/<version as 1.1.0>/<resource>/<operation>.json, which n8n serves from
 * that folder next to the node's file (n8n-core's resolveOutputSchemaPath).
 *
 * Each schema is derived from what the operation really outputs: every case of cases.ts is run
 * through n8n-core (dev/harness) against the sandbox, in each dialect it names, for each node
 * version, and the schema is the union of the items (jsonSchema.ts).
 *
 * `npm run schemas` (generate.ts) writes them; test/integration/outputSchemas.test.ts checks them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { loadPackage, runWorkflow, singleNodeWorkflow } from '../harness/n8n';
import type { Sandbox } from '../sandbox/server';
import {
	OUTPUT_CASES,
	credentialOf,
	type CaseContext,
	type Dialect,
	type OutputCase,
} from './cases';
import { emptyShape, observe, schemaOf, type JsonSchema } from './jsonSchema';

export const ROOT = path.resolve(__dirname, '..', '..');
/** Where the schemas live in the sources; the build copies them to the same place under dist/. */
export const SCHEMA_FOLDER = path.join(ROOT, 'nodes', 'LendasatBorrower', '__schema__');
const DIALECTS: Dialect[] = ['spec', 'live'];

export interface Operation {
	resource: string;
	operation: string;
}

/** The node's versions and every resource/operation pair it offers, from the built package. */
export async function nodeOperations(): Promise<{ versions: number[]; operations: Operation[] }> {
	const loader = await loadPackage();
	const description = loader.nodeTypes.lendasatBorrower.type.description as INodeTypeDescription;
	const versions = [description.version].flat();
	const operations = description.properties
		.filter((property: INodeProperties) => property.name === 'operation')
		.flatMap((property) =>
			(property.displayOptions?.show?.resource ?? []).flatMap((resource) =>
				(property.options ?? []).map((option) => ({
					resource: String(resource),
					operation: String((option as { value: unknown }).value),
				})),
			),
		);
	return { versions, operations };
}

/** n8n's folder name for a node version: the version padded to three parts (1 → v1.0.0, 1.1 → v1.1.0). */
export function versionFolder(version: number): string {
	return `v${String(version).split('.').concat(['0', '0']).slice(0, 3).join('.')}`;
}

/** The schema's path under __schema__, as n8n looks it up. */
export function schemaFile(version: number, { resource, operation }: Operation): string {
	return `${versionFolder(version)}/${resource}/${operation}.json`;
}

export function casesOf({ resource, operation }: Operation): OutputCase[] {
	const cases = OUTPUT_CASES[resource]?.[operation] ?? [];
	if (cases.length === 0) {
		throw new Error(
			`${resource} → ${operation} has no case in dev/schemas/cases.ts: add one (the parameters of a successful run against the sandbox), then run npm run schemas`,
		);
	}
	return cases;
}

function describeError(error: unknown): string {
	const { message, description } = error as { message?: unknown; description?: unknown };
	return [message, description].filter(Boolean).map(String).join(': ');
}

/** Runs one operation through n8n-core as a one-node workflow; its output items, or a thrown error. */
async function runOperation(
	sandbox: Sandbox,
	version: number,
	{ resource, operation }: Operation,
	parameters: IDataObject,
	options: { items?: IDataObject[]; key?: 'borrower' | 'master' } = {},
): Promise<IDataObject[]> {
	const { output, error } = await runWorkflow(
		singleNodeWorkflow({ resource, operation, ...parameters }, { typeVersion: version }),
		{ credential: credentialOf(sandbox, options.key), items: options.items },
	);
	if (error) throw new Error(`${resource} → ${operation} failed: ${describeError(error)}`);
	return output('Lendasat Borrower').map((item) => item.json);
}

/** What one case outputs in one dialect and node version, from a freshly seeded sandbox. */
async function caseOutput(
	sandbox: Sandbox,
	version: number,
	operation: Operation,
	outputCase: OutputCase,
	dialect: Dialect,
): Promise<IDataObject[]> {
	sandbox.reset();
	sandbox.configure({ dialect });
	const where = `${operation.resource} → ${operation.operation}, case "${outputCase.name}", ${dialect} dialect, node version ${version}`;
	const context: CaseContext = {
		sandbox,
		run: (resource, name, parameters) =>
			runOperation(sandbox, version, { resource, operation: name }, parameters),
	};
	try {
		const { parameters, items, key } = await outputCase.prepare(context);
		const output = await runOperation(sandbox, version, operation, parameters, { items, key });
		if (output.length === 0) throw new Error('the run gave no item');
		return output;
	} catch (error) {
		throw new Error(`${where}: ${(error as Error).message}`);
	}
}

/** The schema of an operation in one node version: the union of what all its cases output. */
export async function operationSchema(
	sandbox: Sandbox,
	version: number,
	operation: Operation,
): Promise<JsonSchema> {
	const shape = emptyShape();
	for (const outputCase of casesOf(operation)) {
		for (const dialect of outputCase.dialects ?? DIALECTS) {
			for (const item of await caseOutput(sandbox, version, operation, outputCase, dialect)) {
				observe(shape, item);
			}
		}
	}
	return schemaOf(shape);
}

/** Every schema the node should ship, by its path under __schema__. */
export async function generateSchemas(sandbox: Sandbox): Promise<Map<string, JsonSchema>> {
	const { versions, operations } = await nodeOperations();
	const schemas = new Map<string, JsonSchema>();
	for (const version of versions) {
		for (const operation of operations) {
			schemas.set(
				schemaFile(version, operation),
				await operationSchema(sandbox, version, operation),
			);
		}
	}
	return schemas;
}

/** The schema files in the sources, by their path under __schema__. */
export function shippedSchemas(folder = SCHEMA_FOLDER): Map<string, JsonSchema> {
	let files: string[];
	try {
		files = readdirSync(folder, { recursive: true, encoding: 'utf8' });
	} catch {
		return new Map();
	}
	return new Map(
		files
			.filter((file) => file.endsWith('.json'))
			.sort()
			.map((file) => [
				file.split(path.sep).join('/'),
				JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as JsonSchema,
			]),
	);
}
