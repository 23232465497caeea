// Installs the real n8n pinned in dev/n8n/package-lock.json into node_modules/.cache/lendasat-n8n —
// only when dev/n8n/package.json or its lockfile changed since the last successful install (a stamp
// file records their hash). The installation lives under the project's node_modules so that neither
// the package's lint nor `n8n-node build` (which copies every image outside node_modules) sees it. Then compiles sqlite3 against Node 24's headers and checks
// `n8n --version`. The newest n8n 1.x is kept the same way: pinned in dev/n8n/v1/, installed into
// node_modules/.cache/lendasat-n8n-v1 (see N8N_INSTALLS).
//
//   npx tsx dev/n8n/ensure-n8n.ts                install n8n 2.x if needed
//   npx tsx dev/n8n/ensure-n8n.ts --n8n 1.x      the same for n8n 1.x (--n8n all: both)
//   npx tsx dev/n8n/ensure-n8n.ts --force        install again
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
import { basename, dirname, join } from 'node:path';
import { runLogged, seconds, step } from './steps';

export const ROOT = join(__dirname, '..', '..');

export type N8nLine = '2.x' | '1.x';

/** One installation of n8n: where its package.json and lockfile are kept, where it is installed. */
export interface N8nInstall {
	line: N8nLine;
	manifestDir: string;
	dir: string;
}

/**
 * The n8n installations the project keeps: 2.x (the default, for `npm start`, the screenshots and
 * the benchmark) and the newest 1.x (the e2e suite runs its install-and-demo tests on both).
 */
export const N8N_INSTALLS: Record<N8nLine, N8nInstall> = {
	'2.x': {
		line: '2.x',
		manifestDir: __dirname,
		dir: join(ROOT, 'node_modules', '.cache', 'lendasat-n8n'),
	},
	'1.x': {
		line: '1.x',
		manifestDir: join(__dirname, 'v1'),
		dir: join(ROOT, 'node_modules', '.cache', 'lendasat-n8n-v1'),
	},
};

/** Where n8n 2.x is installed. */
export const N8N_DIR = N8N_INSTALLS['2.x'].dir;

/** `LENDASAT_N8N`, when set, names the installation that n8n processes use (default 2.x). */
export const N8N_LINE_VARIABLE = 'LENDASAT_N8N';

function lineNamed(name: string | undefined): N8nLine {
	if (name === undefined || name === '') return '2.x';
	if (name === '2.x' || name === '1.x') return name;
	throw new Error(`${N8N_LINE_VARIABLE}=${name}: expected 2.x or 1.x`);
}

/** The installation n8n processes (n8n-env.ts) use: `LENDASAT_N8N=1.x` selects n8n 1.x. */
export const selectedN8n = (): N8nInstall =>
	N8N_INSTALLS[lineNamed(process.env[N8N_LINE_VARIABLE])];

const modulesOf = (install: N8nInstall): string => join(install.dir, 'node_modules');
const stampOf = (install: N8nInstall): string =>
	join(modulesOf(install), '.lendasat-install-stamp');
const relative = (install: N8nInstall): string => `node_modules/.cache/${basename(install.dir)}`;

/** The n8n CLI entry point (run it with node24().bin). */
export const n8nCli = (install: N8nInstall = selectedN8n()): string =>
	join(modulesOf(install), 'n8n', 'bin', 'n8n');

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

function installHash(install: N8nInstall): string {
	const hash = createHash('sha256');
	for (const file of ['package.json', 'package-lock.json'])
		hash.update(readFileSync(join(install.manifestDir, file)));
	hash.update(String(major(node24().version)));
	return hash.digest('hex');
}

export const wantedVersion = (install: N8nInstall = selectedN8n()): string =>
	JSON.parse(readFileSync(join(install.manifestDir, 'package.json'), 'utf8')).dependencies
		.n8n as string;

export const isInstalled = (install: N8nInstall = selectedN8n()): boolean =>
	existsSync(stampOf(install)) &&
	readFileSync(stampOf(install), 'utf8').trim() === installHash(install);

function freeBytes(dir: string): number {
	const { bavail, bsize } = statfsSync(dir);
	return bavail * bsize;
}

export async function ensureN8n({
	force = false,
	install = selectedN8n(),
}: { force?: boolean; install?: N8nInstall } = {}): Promise<void> {
	const version = wantedVersion(install);
	const where = relative(install);
	if (!force && isInstalled(install)) {
		process.stdout.write(
			`✔ n8n ${version} is installed in ${where} (cached; reinstalled only when its lockfile changes)\n`,
		);
		return;
	}
	const env = node24Env();
	const logFile = join(install.dir, 'install.log');
	mkdirSync(install.dir, { recursive: true });
	for (const file of ['package.json', 'package-lock.json'])
		copyFileSync(join(install.manifestDir, file), join(install.dir, file));
	writeFileSync(logFile, `install of n8n ${version}, ${new Date().toISOString()}\n`);
	process.stdout.write(
		`  Installing n8n ${version} into ${where} (first run, or its lockfile changed).\n` +
			`  This takes about 3 minutes and 2 GB; later runs reuse it. Details: ${where}/install.log\n`,
	);
	// Shrinking free disk space is a cheap, honest sign that npm is unpacking.
	const freeAtStart = freeBytes(install.dir);
	const unpacked = (): string =>
		`~${Math.max(0, (freeAtStart - freeBytes(install.dir)) / 1e9).toFixed(1)} GB unpacked`;
	await step(`npm install n8n@${version} (${where})`, () =>
		runLogged(
			'npm',
			['install', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund'],
			{
				cwd: install.dir,
				env,
				logFile,
				label: 'npm install',
				progress: unpacked,
			},
		),
	);
	await step('compile sqlite3 for Node 24 (about a minute)', () =>
		runLogged('npm', ['rebuild', 'sqlite3', '--foreground-scripts'], {
			cwd: install.dir,
			env: { ...env, JOBS: 'max', npm_config_nodedir: node24Headers() },
			logFile,
			label: 'sqlite3 build',
		}),
	);
	await step('check n8n --version and sqlite3', () => {
		const got = execFileSync(node24().bin, [n8nCli(install), '--version'], {
			env,
			encoding: 'utf8',
		}).trim();
		if (got !== version) throw new Error(`expected n8n ${version}, got ${got}`);
		// Loading sqlite3 proves the native build matches this Node.
		execFileSync(node24().bin, ['-e', 'require("sqlite3")'], { cwd: install.dir, env });
	});
	writeFileSync(stampOf(install), `${installHash(install)}\n`);
}

/** `--n8n 1.x|2.x|all` (default: LENDASAT_N8N, else 2.x). */
function installsAsked(argv: string[]): N8nInstall[] {
	const at = argv.indexOf('--n8n');
	const asked = at >= 0 ? argv[at + 1] : undefined;
	if (asked === 'all') return [N8N_INSTALLS['2.x'], N8N_INSTALLS['1.x']];
	return [asked === undefined ? selectedN8n() : N8N_INSTALLS[lineNamed(asked)]];
}

if (require.main === module) {
	const started = Date.now();
	const force = process.argv.includes('--force');
	installsAsked(process.argv)
		.reduce<Promise<void>>(
			(previous, install) => previous.then(() => ensureN8n({ force, install })),
			Promise.resolve(),
		)
		.then(() => process.stdout.write(`n8n ready (${seconds(started)} s)\n`))
		.catch((error: Error) => {
			process.stderr.write(`${error.message}\n`);
			process.exit(1);
		});
}
