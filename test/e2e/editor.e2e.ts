/**
 * Smoke test of the node in the real n8n editor (headless Debian chromium + playwright-core):
 * dev/demo/screenshots.ts signs in, opens the node creator, adds "Create a contract" from the
 * actions panel and finds it on the canvas under that short name, opens the "Request the loan" node,
 * checks that our icon, fields and offer picker render and that it shows no (tool-only) Description,
 * runs the demo, and fails on console errors that mention this package. Without chromium or
 * playwright-core it fails under CI and is skipped elsewhere, saying what is missing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editorBrowserMissing } from '../../dev/demo/chromium';
import { describeNeeding } from './helpers';

const ROOT = join(__dirname, '..', '..');

describeNeeding('the editor smoke test', editorBrowserMissing(), () => {
	test('the node renders in the n8n editor, is named after its short action, and logs no console errors', () => {
		const out = mkdtempSync(join(tmpdir(), 'lendasat-shots-'));
		try {
			const result = spawnSync(
				process.execPath,
				[
					join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
					'dev/demo/screenshots.ts',
					'--out',
					out,
				],
				{
					cwd: ROOT,
					encoding: 'utf8',
					timeout: 170_000,
				},
			);
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
});
