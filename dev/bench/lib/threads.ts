import { readFileSync } from 'node:fs';

/** Linux's clock ticks per second, in which /proc reports a thread's CPU time. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time so far of this process's main thread, in ms, from /proc (10 ms ticks); undefined where
 * there is no /proc. process.cpuUsage() counts the other threads too (V8's concurrent GC and
 * compilers, libuv's pool): the difference tells how much of a run's CPU the event loop spent.
 */
export function mainThreadCpuMs(): number | undefined {
	let stat: string;
	try {
		// The main thread's task has the process's own ID.
		stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
	} catch {
		return undefined;
	}
	// The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
