/**
 * End-to-end tests against a real n8n (dev/n8n) and the sandbox, both on 127.0.0.1.
 * Run with `npm run test:e2e` (builds, installs n8n when needed, then runs these).
 * Kept apart from jest.config.js so that `npm test` stays fast and does not need n8n.
 */
/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	// n8n in queue mode has a suite and a command of its own: jest.e2e-queue.config.js.
	testPathIgnorePatterns: ['/node_modules/', '/queue\\.e2e\\.ts$'],
	// Each n8n CLI call takes 2–3 s; the trigger waits for n8n's once-a-minute poll.
	testTimeout: 180_000,
	maxWorkers: 1,
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }],
	},
};
