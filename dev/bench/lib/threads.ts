import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock ticks per second, in which /proc reports a thread's CPU time. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time so far of this process's main thread and of its other threads (V8's concurrent GC and
 * compilers, libuv's pool), in ms, from /proc (10 ms ticks); undefined where there is no /proc.
 * process.cpuUsage() counts both: this tells how much of a run's CPU the event loop spent.
 */
export function cpuByThread(): { mainMs: number; otherMs: number } | undefined {
	let tasks: string[];
	try {
		tasks = readdirSync('/proc/self/task');
	} catch {
		return undefined;
	}
	let mainMs = 0;
	let otherMs = 0;
	for (const task of tasks) {
		let stat: string;
		try {
			stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
		} catch {
			continue; // the thread ended meanwhile
		}
		// The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
		if (Number(task) === process.pid) mainMs += ms;
		else otherMs += ms;
	}
	return { mainMs, otherMs };
}
