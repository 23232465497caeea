// Screenshots of the package in a real n8n editor, taken with headless Chromium (Debian's `chromium`
// package driven by `playwright-core`; no browser download):
//
//   npx tsx dev/demo/screenshots.ts [--out .github/screenshots]
//
// Starts its own sandbox and n8n (free ports, throwaway folder), signs in, and saves
//   1-node-actions.png     the node creator listing the Lendasat Borrower actions; then it adds
//                          "Create a contract" from there and checks the node's name on the canvas
//   2-operation-panel.png  the "Request the loan" node open: resource, operation, fields, pickers
//   3-finished-run.png     the "take a loan" demo after "Execute workflow" finished
//   4-run-output.png       the contract that run created, in the "Request the loan" node
//
//   npx tsx dev/demo/screenshots.ts --templates [--out docs/images/templates]
//
// Instead: every workflow of templates/ imported as a user does (Import → From file), zoomed to
// fit and saved as <template>.png (templateShots.ts). It fails when the editor does not know one
// of a template's nodes, or draws a node or its name on a sticky note, two notes on each other, a
// note's text past its edge, names that run into each other, or a connection across a note.
//
//   npx tsx dev/demo/screenshots.ts --templates --check
//
// The same check, no image saved (the editor test, test/e2e/editor.e2e.ts, runs it).
//
// Either fails when the page logs a console error that mentions this package.
import { mkdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { startSandbox } from '../sandbox/server';
import { ROOT, ensureN8n } from '../n8n/ensure-n8n';
import { DEMO_WORKFLOWS, importDemo } from './demo';
import { seconds, step } from '../n8n/steps';
import { DEMO_OWNER, createN8nHome, type Json } from '../n8n/n8n-env';
import { chromiumPath } from './chromium';
import { TEMPLATE_IMAGE_DIR, shootTemplates } from './templateShots';

/** Console errors that concern this package (n8n itself logs unrelated ones, e.g. 401 before sign-in). */
export const isOurError = (text: string): boolean => /lendasat/i.test(text);

/** The action picked in the actions panel, and the name n8n must give the node it adds. */
const ADDED_ACTION = 'Create a contract';
const ACTION_NODE_TYPE = 'n8n-nodes-lendasat.lendasatBorrower';

/** The value after `name` on the command line. */
const option = (name: string): string | undefined => {
	const index = process.argv.indexOf(name);
	return index > 0 ? process.argv[index + 1] : undefined;
};

async function main(): Promise<void> {
	const started = Date.now();
	const templates = process.argv.includes('--templates');
	const checkOnly = process.argv.includes('--check');
	if (checkOnly && (!templates || option('--out')))
		throw new Error('--check goes with --templates, and saves no image (no --out)');
	const outDir =
		option('--out') ?? (templates ? TEMPLATE_IMAGE_DIR : join(ROOT, '.github', 'screenshots'));
	if (!checkOnly) mkdirSync(outDir, { recursive: true });
	// A devDependency of the project; loaded here so that other scripts do not need it.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { chromium, selectors } = require('playwright-core') as Json;
	selectors.setTestIdAttribute('data-test-id'); // n8n's attribute

	await ensureN8n();
	// The templates need no sandbox: they are shown, not run.
	const sandbox = templates ? undefined : await startSandbox({ idempotency: true });
	const home = createN8nHome();
	const n8n = await step(templates ? 'Start n8n' : 'Start n8n with the demo', async () => {
		const server = await home.start();
		if (sandbox)
			await importDemo(home, { sandboxUrl: sandbox.url, n8nUrl: server.url, keys: sandbox.keys });
		await server.setupOwner();
		return server;
	});
	const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
	const consoleErrors: string[] = [];
	try {
		// Templates: twice the pixels, so that the notes can be read in the docs (templateShots.ts sizes
		// the window to each template).
		const context = await browser.newContext(
			templates
				? { viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 2 }
				: { viewport: { width: 1440, height: 900 } },
		);
		context.on('page', (page: Json) => {
			page.on(
				'console',
				(message: Json) => message.type() === 'error' && consoleErrors.push(message.text()),
			);
			page.on('pageerror', (error: Error) => consoleErrors.push(error.message));
			// Leaving a canvas with unsaved changes: n8n asks (beforeunload); leave.
			page.on('dialog', (dialog: Json) => dialog.accept());
		});
		const page = await context.newPage();
		await step('Sign in', async () => {
			await page.goto(`${n8n.url}/signin`);
			await page.fill('input[name=emailOrLdapLoginId]', DEMO_OWNER.email);
			await page.fill('input[name=password]', DEMO_OWNER.password);
			await page.keyboard.press('Enter');
			await page.waitForURL(/\/home\//);
		});
		if (templates) await templateScreenshots(context, n8n.url, checkOnly ? undefined : outDir);
		else await nodeScreenshots(page, n8n.url, outDir);
	} finally {
		await browser.close();
		await n8n.stop();
		await sandbox?.close();
		home.remove();
	}
	const ours = consoleErrors.filter(isOurError);
	if (ours.length > 0) throw new Error(`console errors from the package:\n${ours.join('\n')}`);
	process.stdout.write(
		checkOnly
			? `Every template drawn right (${seconds(started)} s)\n`
			: `Screenshots in ${outDir} (${seconds(started)} s)\n`,
	);
}

/**
 * Every template, each checked as the editor drew it and saved in `outDir` (none saved without
 * it); fails after the last one if any is wrong.
 */
async function templateScreenshots(
	context: Json,
	n8nUrl: string,
	outDir: string | undefined,
): Promise<void> {
	const shots = await step(
		outDir
			? 'Screenshots: every template, imported from its file'
			: 'Check: every template as the editor draws it, imported from its file',
		() => shootTemplates(context, n8nUrl, { outDir }),
	);
	for (const shot of shots) {
		const found = shot.problems.length
			? shot.problems.join('; ')
			: 'no node or name on a note or on another, no connection across a note, ' +
				"every note's text within it";
		process.stdout.write(`  ${relative(ROOT, shot.image ?? shot.file)}: ${found}\n`);
	}
	const wrong = shots.filter((shot) => shot.problems.length > 0);
	if (wrong.length > 0)
		throw new Error(
			`the editor draws ${wrong.length} template(s) wrong:\n${wrong
				.map((shot) => `${basename(shot.file)}: ${shot.problems.join('; ')}`)
				.join('\n')}`,
		);
}

/** The four screenshots of the node itself, on the demo's "take a loan". */
async function nodeScreenshots(page: Json, n8nUrl: string, outDir: string): Promise<void> {
	await step('Screenshot: the Lendasat actions in the node creator', async () => {
		await page.goto(`${n8nUrl}/workflow/${DEMO_WORKFLOWS.takeLoan}`);
		await page.getByTestId('canvas-node').first().waitFor();
		await page.getByTestId('node-creator-plus-button').click();
		await page.keyboard.type('Lendasat');
		await page.getByText('Lendasat Borrower', { exact: true }).first().click();
		const createContract = page.getByText(ADDED_ACTION, { exact: true }).first();
		await createContract.waitFor();
		await page.waitForTimeout(1000); // the panel slides in
		await page.screenshot({ path: join(outDir, '1-node-actions.png') });
		// n8n names a node added from the actions panel after its action: a short one, as n8n's own.
		await createContract.click();
		await page.getByTestId('ndv').waitFor();
		await page.keyboard.press('Escape');
		await page
			.locator(
				`[data-test-id="canvas-node"][data-node-type="${ACTION_NODE_TYPE}"][data-node-name="${ADDED_ACTION}"]`,
			)
			.waitFor({ timeout: 10_000 });
		process.stdout.write(`  a node added from the actions panel is named "${ADDED_ACTION}"\n`);
	});

	await step('Screenshot: the operation panel of "Request the loan"', async () => {
		await page.goto(`${n8nUrl}/workflow/${DEMO_WORKFLOWS.takeLoan}`);
		await page.locator('[data-test-id="canvas-node"]', { hasText: 'Request the loan' }).dblclick();
		await page.getByTestId('ndv').waitFor();
		// Smoke check: our icon, fields and the offer picker render.
		await page.locator('[data-test-id="ndv"] img[src*="lendasat"]').first().waitFor();
		for (const label of [
			'Resource',
			'Operation',
			'Loan Offer',
			'Loan Amount',
			'Duration (Days)',
			'Idempotency Key',
		]) {
			await page.getByTestId('ndv').getByText(label, { exact: true }).first().waitFor();
		}
		await page.locator('[data-test-id="ndv"] [data-test-id*="resource-locator"]').first().waitFor();
		// The per-operation Description (what an AI Agent is told) belongs to the tool only.
		const descriptions = await page
			.getByTestId('ndv')
			.getByText('Description', { exact: true })
			.count();
		if (descriptions > 0) throw new Error('the action node shows a Description field');
		await page.waitForTimeout(500);
		await page.screenshot({ path: join(outDir, '2-operation-panel.png') });
		await page.keyboard.press('Escape');
	});

	await step('Screenshot: a finished run of "take a loan"', async () => {
		await page.getByTestId('execute-workflow-button').click();
		await page
			.getByText(/Workflow executed successfully/i)
			.first()
			.waitFor({ timeout: 60_000 });
		await page.waitForTimeout(1000);
		await page.screenshot({ path: join(outDir, '3-finished-run.png') });
		await page.locator('[data-test-id="canvas-node"]', { hasText: 'Request the loan' }).dblclick();
		await page.getByTestId('ndv').getByText('loan_id').first().waitFor();
		await page.waitForTimeout(500);
		await page.screenshot({ path: join(outDir, '4-run-output.png') });
	});
}

main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
