/**
 * n8n's own HTTP Request node (n8n-nodes-base 2.41.1, from the real n8n installed by dev/n8n), loaded
 * into the same n8n-core engine that runs our node, so that both contenders pay the same engine costs.
 */
import Module, { createRequire } from 'node:module';
import path from 'node:path';

import type { INodeType, IVersionedNodeType } from 'n8n-workflow';
import { N8N_DIR } from '../../n8n/ensure-n8n';

export const HTTP_REQUEST_NODE_TYPE = 'n8n-nodes-base.httpRequest';
/** The version n8n 2.41 puts on a new HTTP Request node. */
export const HTTP_REQUEST_NODE_VERSION = 4.2;

const n8nInstall = N8N_DIR;
const n8nModules = path.join(n8nInstall, 'node_modules') + path.sep;

type ResolveFilename = (
	request: string,
	parent: { filename?: string } | undefined,
	...rest: unknown[]
) => string;

/**
 * n8n-nodes-base would otherwise load its own copy of n8n-workflow (the same version, 2.41.0) from
 * the installed n8n (dev/n8n); sending it to the root copy keeps one set of classes (errors, expression engine) in the
 * process, as in a real n8n where there is only one.
 */
function shareN8nWorkflow(): void {
	const moduleInternals = Module as unknown as { _resolveFilename: ResolveFilename };
	const original = moduleInternals._resolveFilename;
	const rootN8nWorkflow = require.resolve('n8n-workflow');
	moduleInternals._resolveFilename = function (request, parent, ...rest) {
		if (request === 'n8n-workflow' && parent?.filename?.startsWith(n8nModules))
			return rootN8nWorkflow;
		return original.call(this, request, parent, ...rest);
	};
}

let loaded: IVersionedNodeType | undefined;

export function loadHttpRequestNode(): Record<string, INodeType | IVersionedNodeType> {
	if (!loaded) {
		shareN8nWorkflow();
		const requireFromN8n = createRequire(path.join(n8nInstall, 'package.json'));
		let exports: { HttpRequest: new () => IVersionedNodeType };
		try {
			exports = requireFromN8n('n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js');
		} catch (error) {
			throw new Error(
				`n8n's HTTP Request node could not be loaded from ${n8nInstall} (install it with: npm run n8n:install): ${(error as Error).message}`,
			);
		}
		loaded = new exports.HttpRequest();
	}
	return { [HTTP_REQUEST_NODE_TYPE]: loaded };
}
