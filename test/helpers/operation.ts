import type { Sandbox } from '../../dev/sandbox/server';
import {
	runWorkflow,
	singleNodeWorkflow,
	type RunResult,
	type TestCredential,
} from '../../dev/harness/n8n';
import { everythingVisible } from './secrets';

/** The name singleNodeWorkflow gives the node. */
export const NODE = 'Lendasat Borrower';

/** The sandbox's borrower key in a Custom credential (or the key given). */
export function borrowerOf(sandbox: Sandbox, apiKey = sandbox.keys.borrower): TestCredential {
	return { environment: 'custom', baseUrl: sandbox.url, keyType: 'borrower', apiKey };
}

export interface OperationRun extends RunResult {
	/** The output items' JSON. */
	items: Array<Record<string, unknown>>;
	/** "METHOD /path" of every request the sandbox received during the run. */
	sent: string[];
	/** The error's description ('' without an error). */
	description: string;
}

/**
 * Runs one operation of the node in a one-node workflow through n8n-core against the sandbox and
 * gives back what an operation's test checks: its items, its error and description, and what the
 * sandbox received. It fails the test when the key shows anywhere in the run or the error.
 *
 *   const run = operationRunner(() => sandbox, 'dispute');
 *   const { items, sent } = await run('getAll', { contractId: byId(id) });
 */
export function operationRunner(sandboxOf: () => Sandbox, resource: string) {
	return async (
		operation: string,
		parameters: Record<string, unknown> = {},
		options: { credential?: TestCredential; items?: object[]; typeVersion?: number } = {},
	): Promise<OperationRun> => {
		const sandbox = sandboxOf();
		const credential = options.credential ?? borrowerOf(sandbox);
		const before = sandbox.requests.length;
		const result = await runWorkflow(
			singleNodeWorkflow(
				{ resource, operation, ...parameters },
				options.typeVersion === undefined ? {} : { typeVersion: options.typeVersion },
			),
			{ credential, items: options.items },
		);
		expect(everythingVisible(result.run, result.error)).not.toContain(credential.apiKey);
		return {
			...result,
			items: result.output(NODE).map((item) => item.json as Record<string, unknown>),
			sent: sandbox.requests.slice(before).map(({ method, path }) => `${method} ${path}`),
			description: String(
				(result.error as { description?: unknown } | undefined)?.description ?? '',
			),
		};
	};
}
