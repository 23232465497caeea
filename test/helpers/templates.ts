/**
 * The workflow templates of templates/ as the tests read them, with what the package says about
 * each Lendasat tool in them: the description the model gets and whether the operation writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Json } from '../../dev/n8n/n8n-env';
import {
	operationMetaOf,
	type OperationMeta,
} from '../../nodes/LendasatBorrower/transport/apiRoute';
import { operations } from './aiTool';

export const TEMPLATE_DIR = join(__dirname, '..', '..', 'templates');
export const AGENT_TEMPLATE_FILE = join(TEMPLATE_DIR, 'ai-agent-human-review.json');
export const MCP_TEMPLATE_FILE = join(TEMPLATE_DIR, 'mcp-server-read-only.json');

export const LENDASAT_TOOL_TYPE = 'n8n-nodes-lendasat.lendasatBorrowerTool';

export function readTemplate(file: string): Json {
	return JSON.parse(readFileSync(file, 'utf8'));
}

/** The name a model or an MCP client sees for a node: each run of other characters than [A-Za-z0-9_-] a `_`. */
export function toolName(nodeName: string): string {
	return nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_');
}

export interface TemplateTool {
	/** The node's name on the canvas. */
	name: string;
	resource: string;
	operation: string;
	/** The node its ai_tool output goes into. */
	into: string;
	meta: OperationMeta | undefined;
	/** Whether the operation changes or moves something: every write declares its repeat rule. */
	writes: boolean;
}

/** A template's Lendasat tool nodes. */
export function lendasatToolsOf(template: Json): TemplateTool[] {
	return (template.nodes as Json[])
		.filter((node) => node.type === LENDASAT_TOOL_TYPE)
		.map((node) => {
			const { resource, operation } = node.parameters;
			const declared = operations.find(
				(entry) => entry.resource === resource && entry.operation === operation,
			);
			const meta = operationMetaOf(declared?.option.routing);
			return {
				name: node.name,
				resource,
				operation,
				into: template.connections[node.name]?.ai_tool?.[0]?.[0]?.node,
				meta,
				writes: meta?.repeat !== undefined,
			};
		});
}

/**
 * A template's sandbox twin: the template as a user sets it up, each credential placeholder
 * (`YOUR_…_CREDENTIAL`) replaced by the credential given for it, saved as a new workflow named
 * `name`. A placeholder left without a credential is an error.
 */
export function templateTwin(
	template: Json,
	credentials: Record<string, Json>,
	name: string,
): Json {
	const twin = JSON.parse(JSON.stringify(template));
	for (const node of twin.nodes as Json[]) {
		for (const [type, credential] of Object.entries((node.credentials ?? {}) as Json)) {
			const chosen = credentials[(credential as Json).id];
			if (!chosen) throw new Error(`no credential given for ${node.name}'s ${type}`);
			node.credentials[type] = chosen;
		}
	}
	delete twin.id;
	twin.name = name;
	return twin;
}
