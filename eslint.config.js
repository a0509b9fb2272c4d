import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const bulkDelete = { selector: "MemberExpression[property.name='deleteMany']", message: 'Delete in batches: use deleteInBatches (src/db/deleteInBatches.ts).' };
const claimsOnly = 'A unique-index conflict is read in src/db/claims.ts only: use claimOnce, writeUnique, Leases or GenerationLeases.';
const duplicateKey = [
  { selector: "Identifier[name='isDuplicateKeyError']", message: claimsOnly },
  { selector: 'Literal[value=11000]', message: claimsOnly },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.tools/', 'data/', 'keys/', 'test-artifacts/', 'coverage/', 'sdk/typescript/dist/', 'sdk/typescript/src/generated/', 'sdk/python/', 'sdk/go/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', Response: 'readonly', Request: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', performance: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  {
    // Served to browsers as it is (src/http/assets.ts): a classic script, no modules, no Node.
    files: ['src/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { window: 'readonly', document: 'readonly', navigator: 'readonly' } },
  },
  {
    // Delivery code reads as small named parts (views apart from handlers, one command group a file).
    files: ['src/dashboard/**', 'src/cli/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipComments: true, skipBlankLines: true }] },
  },
  // Bulk deletes go one way (src/db/deleteInBatches.ts): a plain deleteMany fails on the embedded
  // database past ~32,000 matches. Claims go one way (src/db/claims.ts): only it reads a unique-index
  // conflict, in every form the engines answer it. One rule each file, so the two are listed together.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/deleteInBatches.ts', 'src/db/claims.ts'],
    rules: { 'no-restricted-syntax': ['error', bulkDelete, ...duplicateKey] },
  },
  {
    files: ['src/db/deleteInBatches.ts'],
    rules: { 'no-restricted-syntax': ['error', ...duplicateKey] },
  },
  {
    files: ['src/db/claims.ts'],
    rules: { 'no-restricted-syntax': ['error', bulkDelete] },
  },
  {
    files: ['src/cli/**', 'bench/**', 'test/**', 'scripts/**', 'sdk/testserver/**', 'sdk/typescript/test/**'],
    rules: { 'no-console': 'off' },
  },
);
