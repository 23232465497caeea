/**
 * Smoke test of the node in the real n8n editor (headless Debian chromium + playwright-core):
 * dev/demo/screenshots.ts signs in, opens the node creator, adds "Create a contract" from the
 * actions panel and finds it on the canvas under that short name, opens the "Request the loan" node,
 * checks that our icon, fields and offer picker render and that it shows no (tool-only) Description,
 * runs the demo, and fails on console errors that mention this package. Then every template of
 * templates/ is imported from its file and what the editor draws is checked (screenshots.ts
 * --templates --check, no image saved): a template the editor draws wrong fails here. Without
 * chromium or playwright-core it fails under CI and is skipped elsewhere, saying what is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { editorBrowserMissing } from '../../dev/demo/chromium';
import { templateFiles } from '../../dev/demo/templateShots';
import { describeNeeding } from './helpers';

const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

describeNeeding('the editor smoke test', editorBrowserMissing(), () => {
	test('the node renders in the n8n editor, is named after its short action, and logs no console errors', () => {
		const out = mkdtempSync(join(tmpdir(), 'lendasat-shots-'));
		try {
			const result = spawnSync(process.execPath, [TSX, 'dev/demo/screenshots.ts', '--out', out], {
				cwd: ROOT,
				encoding: 'utf8',
				timeout: 170_000,
			});
			expect(`${result.stdout}\n${result.stderr}`).toContain('Screenshots in');
			// Added from the actions panel, the node is named after its short action.
			expect(result.stdout).toContain(
				'a node added from the actions panel is named "Create a contract"',
			);
			expect(result.status).toBe(0);
			expect(readdirSync(out).sort()).toEqual([
				'1-node-actions.png',
				'2-operation-panel.png',
				'3-finished-run.png',
				'4-run-output.png',
			]);
		} finally {
			rmSync(out, { recursive: true, force: true });
		}
	});

	test('every template, imported from its file, is drawn with no node, name or connection on a note and no name on another', () => {
		const result = spawnSync(
			process.execPath,
			[TSX, 'dev/demo/screenshots.ts', '--templates', '--check'],
			{ cwd: ROOT, encoding: 'utf8', timeout: 400_000 },
		);
		const output = `${result.stdout}\n${result.stderr}`;
		// On a failure this prints what the editor drew wrong, template by template.
		expect(output).toContain('Every template drawn right');
		for (const file of templateFiles())
			expect(result.stdout).toContain(`templates/${basename(file)}: no node or name on a note`);
		expect(result.status).toBe(0);
	}, 420_000);
});
