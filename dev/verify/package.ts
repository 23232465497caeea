// What n8n's verification looks at, checked offline on the package as npm would publish it:
//   1. `n8n-node cloud-support` reports the package eligible (strict mode, the unmodified config);
//   2. the packed tarball holds exactly the built package: package.json, README, LICENSE and dist/
//      with only JavaScript, declarations, codex files, icons and output schemas (no tests, maps
//      or dev tools);
//   3. @n8n/scan-community-package's own lint passes on the sources and on the tarball. Its CLI
//      wants a published version with provenance, so its two lint legs are run directly.
//
//   npm run verify        (after npm run build; `npm test` runs both)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SCANNER = '@n8n/scan-community-package/scanner/scanner.mjs';

interface ScanResult {
	passed: boolean;
	message?: string;
	details?: string;
}

type Analyze = (dir: string, patterns: string[]) => Promise<ScanResult>;

const SHIPPED = [
	/^package\.json$/,
	/^index\.js$/,
	/^README\.md$/,
	/^LICENSE\.md$/,
	/^dist\/.+\.(js|d\.ts|node\.json|svg|png)$/,
	// The output schemas (dev/schemas): dist/nodes/<node>/__schema__/v<version>/<resource>/<operation>.json.
	/^dist\/nodes\/[^/]+\/__schema__\/v\d+\.\d+\.\d+\/[A-Za-z]+\/[A-Za-z]+\.json$/,
];

function filesUnder(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: 'utf8' })
		.filter((file) => statSync(join(dir, file)).isFile())
		.map((file) => relative(dir, join(dir, file)));
}

/** CI may force colours on; the status line is matched without them. */
const withoutColours = (text: string): string =>
	text.replace(new RegExp(String.raw`\u001b\[[0-9;?]*[A-Za-z]`, 'g'), '');

function checkCloudSupport(): string[] {
	const env = { ...process.env, NO_COLOR: '1' };
	const out = withoutColours(
		execFileSync('npx', ['--no-install', 'n8n-node', 'cloud-support'], {
			cwd: ROOT,
			encoding: 'utf8',
			env,
		}),
	);
	return /Status: eligible for n8n Cloud verification/.test(out)
		? []
		: [`n8n-node cloud-support does not report the package eligible:\n${out}`];
}

function unpackTarball(into: string): string {
	const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', into], {
		cwd: ROOT,
		encoding: 'utf8',
	})
		.trim()
		.split('\n')
		.pop()!;
	const unpacked = join(into, 'package');
	execFileSync('tar', ['-xzf', join(into, name), '-C', into]);
	return unpacked;
}

function checkTarballContents(unpacked: string): string[] {
	const files = filesUnder(unpacked);
	const unexpected = files.filter((file) => !SHIPPED.some((pattern) => pattern.test(file)));
	const problems = unexpected.length
		? [`the tarball holds files that should not ship: ${unexpected.join(', ')}`]
		: [];
	for (const needed of [
		'dist/nodes/LendasatBorrower/LendasatBorrower.node.js',
		'dist/credentials/LendasatApi.credentials.js',
		'dist/nodes/LendasatBorrower/__schema__/v1.1.0/contract/getEvents.json',
	]) {
		if (!files.includes(needed))
			problems.push(`the tarball lacks ${needed} (run npm run build first)`);
	}
	return problems;
}

async function scannerLint(unpacked: string): Promise<string[]> {
	const { analyzePackage, SOURCE_FILE_PATTERNS } = (await import(SCANNER)) as {
		analyzePackage: Analyze;
		SOURCE_FILE_PATTERNS: string[];
	};
	const legs: Array<[string, ScanResult]> = [
		['sources', await analyzePackage(ROOT, SOURCE_FILE_PATTERNS)],
		['tarball', await analyzePackage(unpacked, ['**/*.js', 'package.json'])],
	];
	return legs
		.filter(([, result]) => !result.passed)
		.map(
			([leg, result]) =>
				`the scanner's lint fails on the ${leg}: ${result.message ?? ''}\n${result.details ?? ''}`,
		);
}

async function main(): Promise<void> {
	const work = mkdtempSync(join(tmpdir(), 'lendasat-verify-'));
	try {
		const unpacked = unpackTarball(work);
		const problems = [
			...checkCloudSupport(),
			...checkTarballContents(unpacked),
			...(await scannerLint(unpacked)),
		];
		if (problems.length) {
			process.stderr.write(`Package verification failed:\n- ${problems.join('\n- ')}\n`);
			process.exit(1);
		}
		const count = filesUnder(unpacked).length;
		process.stdout.write(
			`✔ eligible for n8n Cloud verification; tarball of ${count} files holds only the built package; scanner lint passes on sources and tarball\n`,
		);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

void main();
