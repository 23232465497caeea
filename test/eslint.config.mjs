// The tests follow the development tools' rules; see dev/eslint.config.mjs.
export { default } from '../dev/eslint.config.mjs';
