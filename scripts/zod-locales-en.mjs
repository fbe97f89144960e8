// What the bundled CLI gets for zod's `locales` (scripts/bundle-cli.mjs): English, the one zod itself configures.
export { default as en } from 'zod/v4/locales/en.js';
