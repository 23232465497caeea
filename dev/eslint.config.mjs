// Development tools and tests are not the package: they run on Node with its globals and modules,
// so n8n's rules for nodes do not apply. The package's own lint (the official strict config in the
// root eslint.config.mjs) reaches this folder only when ESLint looks configs up per file
// (ESLINT_FLAGS=unstable_config_lookup_from_file, set by `npm run lint`).
import tseslint from 'typescript-eslint';

export default tseslint.config({ files: ['**/*.ts'], extends: [tseslint.configs.recommended] });
