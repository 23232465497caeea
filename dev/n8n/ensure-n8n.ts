// Installs the real n8n pinned in dev/n8n/package-lock.json into node_modules/.cache/lendasat-n8n —
// only when dev/n8n/package.json or its lockfile changed since the last successful install (a stamp
// file records their hash). The installation lives under the project's node_modules so that neither
// the package's lint nor `n8n-node build` (which copies every image outside node_modules) sees it. Then compiles sqlite3 against Node 24's headers and checks
// `n8n --version`.
//
//   npx tsx dev/n8n/ensure-n8n.ts           install if needed
//   npx tsx dev/n8n/ensure-n8n.ts --force   install again
//
// Why it is done this way (see also dev/README.md): the registry mirror lacks some newest transitive
// packages (hence the overrides in dev/n8n/package.json, which the node package itself may not have);
// with install scripts on, a Kafka client's script downloads a binary and fails; sqlite3 has no
// reachable prebuild, so it is compiled from source.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	readFileSync,
	statfsSync,
	writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { runLogged, seconds, step } from './steps';

export const ROOT = join(__dirname, '..', '..');
/** Where n8n's package.json and lockfile are kept. */
const MANIFEST_DIR = __dirname;
/** Where n8n is installed. */
export const N8N_DIR = join(ROOT, 'node_modules', '.cache', 'lendasat-n8n');
const MODULES = join(N8N_DIR, 'node_modules');
const STAMP = join(MODULES, '.lendasat-install-stamp');
const LOG = join(N8N_DIR, 'install.log');

/** The n8n CLI entry point (run it with node24().bin). */
export const n8nCli = (): string => join(MODULES, 'n8n', 'bin', 'n8n');

const major = (version: string): number => Number(version.replace(/^v/, '').split('.')[0]);

export interface Node24 {
	/** The node binary. */
	bin: string;
	/** Its installation folder. */
	dir: string;
	version: string;
}

let cachedNode24: Node24 | undefined;

const platformPackage = `node-${process.platform}-${process.arch}`;

/**
 * A Node ≥ 24: the one running this script if new enough (`npm run …` puts the project's
 * devDependency `node` first on PATH), else that devDependency's own binary.
 */
export function node24(): Node24 {
	if (cachedNode24) return cachedNode24;
	const candidates = [
		dirname(dirname(process.execPath)),
		join(ROOT, 'node_modules', 'node'),
		join(ROOT, 'node_modules', 'node', 'node_modules', platformPackage),
	];
	for (const dir of candidates) {
		const bin = join(dir, 'bin', 'node');
		if (!existsSync(bin)) continue;
		const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
		if (major(version) >= 24) return (cachedNode24 = { bin, dir, version });
	}
	throw new Error(
		'n8n needs Node 24: run `npm install` in the project root (it installs the `node` devDependency) ' +
			'and start this through `npm run …`.',
	);
}

/**
 * Node 24's C headers, for compiling sqlite3: they come with the platform package that the `node`
 * devDependency's install script fetches (a later `npm install` may prune it; `npm rebuild node`
 * brings it back).
 */
function node24Headers(): string {
	const candidates = [
		dirname(dirname(process.execPath)),
		join(ROOT, 'node_modules', 'node', 'node_modules', platformPackage),
		join(ROOT, 'node_modules', platformPackage),
	];
	const found = candidates.find((dir) =>
		existsSync(join(dir, 'include', 'node', 'node_version.h')),
	);
	if (!found)
		throw new Error(
			'Node 24 headers are missing (needed to compile sqlite3): run `npm rebuild node`.',
		);
	return found;
}

/** Environment for npm and n8n child processes: Node 24 first on PATH. */
export function node24Env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const { bin } = node24();
	return { ...process.env, PATH: `${dirname(bin)}:${process.env.PATH ?? ''}`, ...extra };
}

function installHash(): string {
	const hash = createHash('sha256');
	for (const file of ['package.json', 'package-lock.json'])
		hash.update(readFileSync(join(MANIFEST_DIR, file)));
	hash.update(String(major(node24().version)));
	return hash.digest('hex');
}

export const wantedVersion = (): string =>
	JSON.parse(readFileSync(join(MANIFEST_DIR, 'package.json'), 'utf8')).dependencies.n8n as string;

export const isInstalled = (): boolean =>
	existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === installHash();

function freeBytes(): number {
	const { bavail, bsize } = statfsSync(N8N_DIR);
	return bavail * bsize;
}

export async function ensureN8n({ force = false } = {}): Promise<void> {
	const version = wantedVersion();
	if (!force && isInstalled()) {
		process.stdout.write(
			`✔ n8n ${version} is installed in node_modules/.cache/lendasat-n8n (cached; reinstalled only when its lockfile changes)\n`,
		);
		return;
	}
	const env = node24Env();
	mkdirSync(N8N_DIR, { recursive: true });
	for (const file of ['package.json', 'package-lock.json'])
		copyFileSync(join(MANIFEST_DIR, file), join(N8N_DIR, file));
	writeFileSync(LOG, `install of n8n ${version}, ${new Date().toISOString()}\n`);
	process.stdout.write(
		`  Installing n8n ${version} into node_modules/.cache/lendasat-n8n (first run, or its lockfile changed).\n` +
			'  This takes about 3 minutes and 2.2 GB; later runs reuse it. Details: node_modules/.cache/lendasat-n8n/install.log\n',
	);
	// Shrinking free disk space is a cheap, honest sign that npm is unpacking.
	const freeAtStart = freeBytes();
	const unpacked = (): string =>
		`~${Math.max(0, (freeAtStart - freeBytes()) / 1e9).toFixed(1)} GB unpacked`;
	await step(`npm install n8n@${version} (node_modules/.cache/lendasat-n8n)`, () =>
		runLogged(
			'npm',
			['install', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund'],
			{
				cwd: N8N_DIR,
				env,
				logFile: LOG,
				label: 'npm install',
				progress: unpacked,
			},
		),
	);
	await step('compile sqlite3 for Node 24 (about a minute)', () =>
		runLogged('npm', ['rebuild', 'sqlite3', '--foreground-scripts'], {
			cwd: N8N_DIR,
			env: { ...env, JOBS: 'max', npm_config_nodedir: node24Headers() },
			logFile: LOG,
			label: 'sqlite3 build',
		}),
	);
	await step('check n8n --version and sqlite3', () => {
		const got = execFileSync(node24().bin, [n8nCli(), '--version'], {
			env,
			encoding: 'utf8',
		}).trim();
		if (got !== version) throw new Error(`expected n8n ${version}, got ${got}`);
		// Loading sqlite3 proves the native build matches this Node.
		execFileSync(node24().bin, ['-e', 'require("sqlite3")'], { cwd: N8N_DIR, env });
	});
	writeFileSync(STAMP, `${installHash()}\n`);
}

if (require.main === module) {
	const started = Date.now();
	ensureN8n({ force: process.argv.includes('--force') })
		.then(() => process.stdout.write(`n8n ready (${seconds(started)} s)\n`))
		.catch((error: Error) => {
			process.stderr.write(`${error.message}\n`);
			process.exit(1);
		});
}
