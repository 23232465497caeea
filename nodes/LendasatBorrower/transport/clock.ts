import { sleep } from 'n8n-workflow';

/**
 * Where the transport, the rate gate and the lookups read the time, wait, draw their jitter and
 * get an attempt's deadline. Each part takes it from the transport it is given, so a test can run
 * every wait on a fake clock.
 */
export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
	random(): number;
	/** A signal that aborts after `ms`, whose timer does not keep the process alive. */
	timeout(ms: number): AbortSignal;
}

/**
 * n8n's own clock. Each call reads the global one when it is made, so a test that fakes the
 * process's timers (as the integration tests do, since n8n builds the node's context) fakes this too.
 */
export const systemClock: Clock = {
	now: () => Date.now(),
	sleep: async (ms) => await sleep(ms),
	random: () => Math.random(),
	timeout: (ms) => AbortSignal.timeout(ms),
};
