// Small helpers for scripts that must show what they are doing and how long it took.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export const seconds = (since: number): string => ((Date.now() - since) / 1000).toFixed(1);

export const sleep = (ms: number): Promise<void> =>
	new Promise((resolve) => setTimeout(resolve, ms));

/** Prints "▶ title …", runs fn, then "✔ title (12.3 s)" — or "✖ title failed after …" and rethrows. */
export async function step<T>(title: string, fn: () => Promise<T> | T): Promise<T> {
	const started = Date.now();
	process.stdout.write(`▶ ${title} …\n`);
	try {
		const result = await fn();
		process.stdout.write(`✔ ${title} (${seconds(started)} s)\n`);
		return result;
	} catch (error) {
		process.stdout.write(`✖ ${title} failed after ${seconds(started)} s\n`);
		throw error;
	}
}

/** Calls report(elapsedSeconds) every `every` ms until the returned function is called. */
export function heartbeat(report: (elapsedSeconds: number) => void, every = 10_000): () => void {
	const started = Date.now();
	const timer = setInterval(() => report(Math.round((Date.now() - started) / 1000)), every);
	timer.unref();
	return () => clearInterval(timer);
}

export interface RunLoggedOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	logFile: string;
	/** Shown in the heartbeat line: "… <label>: still working (40 s, <progress()>)". */
	label: string;
	progress?: () => string;
}

/**
 * Runs a command with its output going to logFile (not the terminal) and a heartbeat line every 10 s.
 * Rejects with the last lines of the log when the command fails.
 */
export function runLogged(
	command: string,
	args: string[],
	options: RunLoggedOptions,
): Promise<void> {
	const { cwd, env, logFile, label, progress } = options;
	return new Promise((resolve, reject) => {
		const log = createWriteStream(logFile, { flags: 'a' });
		log.write(`\n$ ${command} ${args.join(' ')}\n`);
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let tail = '';
		const keep = (chunk: Buffer): void => {
			log.write(chunk);
			tail = (tail + chunk.toString()).slice(-4000);
		};
		child.stdout.on('data', keep);
		child.stderr.on('data', keep);
		const stop = heartbeat((s) => {
			const extra = progress ? `, ${progress()}` : '';
			process.stdout.write(`  … ${label}: still working (${s} s${extra})\n`);
		});
		child.on('error', (error) => {
			stop();
			log.end();
			reject(error);
		});
		child.on('close', (code) => {
			stop();
			log.end();
			if (code === 0) return resolve();
			const lastLines = tail.split('\n').slice(-25).join('\n');
			reject(
				new Error(
					`${command} ${args.join(' ')} exited with ${code}; full log: ${logFile}\n${lastLines}`,
				),
			);
		});
	});
}
