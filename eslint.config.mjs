import tseslint from 'typescript-eslint';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const shippedSources = ['nodes/**/*.ts', 'credentials/**/*.ts'];

export default tseslint.config(
	{
		ignores: ['dist/**', 'node_modules/**', 'e2e/**', 'coverage/**', '**/*.js', '**/*.mjs'],
	},
	{
		files: ['**/*.ts'],
		extends: [tseslint.configs.recommended],
	},
	{
		files: [...shippedSources, 'package.json'],
		...n8nCommunityNodesPlugin.configs.recommended,
	},
	{
		files: ['package.json'],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.credentials.rules,
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.nodes.rules,
	},
);
