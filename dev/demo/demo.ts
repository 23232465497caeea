// The demo set-up shared by `npm start`, the screenshots and the end-to-end tests: one credential per
// key type pointing at the sandbox, and the workflows in dev/demo/workflows.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CredentialImport, Json, N8nHome } from '../n8n/n8n-env';

export const WORKFLOW_DIR = join(__dirname, 'workflows');

/** The ids and names the demo workflows use for their credentials. */
export const DEMO_CREDENTIALS = {
	master: { id: 'lendasatPartner1', name: 'Lendasat partner (master key)' },
	borrower: { id: 'lendasatBorrow01', name: 'Lendasat borrower key' },
} as const;

/** The demo workflows' ids (see dev/demo/workflows/*.json). */
export const DEMO_WORKFLOWS = {
	onboarding: 'lsDemoOnboarding',
	takeLoan: 'lsDemoTakeLoan01',
	marginCall: 'lsDemoMarginCall',
	openReport: 'lsDemoOpenReport',
	alertInbox: 'lsDemoAlertInbox',
	repayReclaim: 'lsDemoRepayReclaim',
	arkadeClaim: 'lsDemoArkadeClaim',
} as const;

/** The addresses written in the workflow files, replaced by the real ones on import. */
export const SANDBOX_URL_IN_FILES = 'http://127.0.0.1:7337';
export const N8N_URL_IN_FILES = 'http://127.0.0.1:5678';

export function demoCredentials(
	sandboxUrl: string,
	keys: { master: string; borrower: string },
): CredentialImport[] {
	const credential = (keyType: 'master' | 'borrower'): CredentialImport => ({
		...DEMO_CREDENTIALS[keyType],
		type: 'lendasatApi',
		data: { environment: 'custom', baseUrl: sandboxUrl, keyType, apiKey: keys[keyType] },
	});
	return [credential('master'), credential('borrower')];
}

/** The workflow files, parsed, with the sandbox and n8n addresses put in. */
export function demoWorkflows(urls: { sandboxUrl: string; n8nUrl: string }): Json[] {
	return readdirSync(WORKFLOW_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) =>
			JSON.parse(
				readFileSync(join(WORKFLOW_DIR, file), 'utf8')
					.replaceAll(SANDBOX_URL_IN_FILES, urls.sandboxUrl)
					.replaceAll(N8N_URL_IN_FILES, urls.n8nUrl),
			),
		);
}

/** Imports the demo credentials and workflows into an n8n user folder. */
export async function importDemo(
	home: N8nHome,
	options: { sandboxUrl: string; n8nUrl: string; keys: { master: string; borrower: string } },
): Promise<void> {
	await home.importCredentials(demoCredentials(options.sandboxUrl, options.keys));
	await home.importWorkflows(demoWorkflows(options));
}
