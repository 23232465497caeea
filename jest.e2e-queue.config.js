/**
 * The end-to-end tests of n8n in queue mode (test/e2e/queue.e2e.ts): Postgres, Redis, an n8n main
 * instance and two workers. Run with `npm run test:e2e:queue`; .ci/run runs it after the other e2e suites.
 */
const base = require('./jest.e2e.config.js');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	testMatch: ['**/queue.e2e.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// Starting the cluster takes a minute or more; scenario (b) runs against a rate limit, and the
	// trigger waits for n8n's once-a-minute polls.
	testTimeout: 960_000,
};
