// The browser that drives the real n8n editor (dev/demo/screenshots.ts and the editor smoke test):
// Debian's `chromium` package driven by `playwright-core` (a devDependency), no browser download.
// `.ci/run` installs the package with apt-get.
import { existsSync } from 'node:fs';

/** Debian's chromium; CHROMIUM_PATH points elsewhere. */
export const chromiumPath = (): string => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the editor cannot be driven here (what is missing and how to install it), or undefined when it can. */
export function editorBrowserMissing(): string | undefined {
	const missing: string[] = [];
	try {
		require.resolve('playwright-core');
	} catch {
		missing.push('playwright-core (a devDependency: npm ci)');
	}
	if (!existsSync(chromiumPath()))
		missing.push(
			`Chromium at ${chromiumPath()} (apt-get install chromium, or set CHROMIUM_PATH to a Chromium)`,
		);
	return missing.length ? missing.join(', ') : undefined;
}
