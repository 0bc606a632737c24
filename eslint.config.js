// ESLint's configuration is in tools/lint/config.js, beside the packages it needs (see its header).
export { default } from './tools/lint/config.js';
