/**
 * The install-and-demo end-to-end tests again, on the newest n8n 1.x (dev/n8n/v1, installed into
 * node_modules/.cache/lendasat-n8n-v1): the same test files, with LENDASAT_N8N=1.x selecting that
 * installation for every n8n process they start (the scheduled-flow templates' nodes, Data tables
 * and Form Trigger 2.3 included, all exist there). `npm run test:e2e` runs this after the 2.x suite.
 */
const base = require('./jest.e2e.config.js');
const { dependencies } = require('./dev/n8n/v1/package.json');

/** @type {import('jest').Config} */
module.exports = {
	...base,
	displayName: `n8n ${dependencies.n8n}`,
	// The editor smoke test drives n8n 2.x's editor, and n8n 1.x has no human review of an agent's
	// tool calls (agentReview.e2e.ts); queue mode has its own suite.
	testMatch: [
		'**/demo.e2e.ts',
		'**/aiTool.e2e.ts',
		'**/credentialTest.e2e.ts',
		'**/partner.e2e.ts',
		'**/outputSchemas.e2e.ts',
		'**/mcpServer.e2e.ts',
		'**/scheduledFlows.e2e.ts',
	],
	testPathIgnorePatterns: ['/node_modules/'],
	setupFiles: ['<rootDir>/test/e2e/on-n8n-1.x.js'],
};
