import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const DELETE_IN_BATCHES = 'src/db/deleteInBatches.ts';
const CLAIMS = 'src/db/claims.ts';
const PROVIDER_SEAM = 'src/oauth/provider/internals.ts';
const bulkDelete = { selector: "MemberExpression[property.name='deleteMany']", message: 'Delete in batches: use deleteInBatches (src/db/deleteInBatches.ts).' };
const claimsOnly = 'A unique-index conflict is read in src/db/claims.ts only: use claimOnce, writeUnique, Leases or GenerationLeases.';
const duplicateKey = [
  { selector: "Identifier[name='isDuplicateKeyError']", message: claimsOnly },
  { selector: 'Literal[value=11000]', message: claimsOnly },
];
// Changing oidc-provider's classes (a method on a prototype, a static of one of its models) is done in its
// seam only, where each change is named with what it relies on.
const PROVIDER_MODELS = 'AccessToken|AuthorizationCode|BackchannelAuthenticationRequest|Client|ClientCredentials|DeviceCode|Grant|IdToken|InitialAccessToken|Interaction|PushedAuthorizationRequest|RefreshToken|RegistrationAccessToken|ReplayDetection|Session';
const NO_PROVIDER_PATCHES = [
  { selector: "MemberExpression[property.name='prototype']", message: "Prototypes are changed in one place, oidc-provider's seam (src/oauth/provider/internals.ts)." },
  {
    selector: `AssignmentExpression > MemberExpression.left > MemberExpression.object[property.name=/^(${PROVIDER_MODELS})$/]`,
    message: "oidc-provider's models are changed in one place, its seam (src/oauth/provider/internals.ts).",
  },
];
/** Each thing done one way, in its one home: every file of src/ but that home is refused the others' ways. */
const ONE_WAY = [
  [DELETE_IN_BATCHES, [bulkDelete]],
  [CLAIMS, duplicateKey],
  [PROVIDER_SEAM, NO_PROVIDER_PATCHES],
];
const oneWayBut = (home) => ['error', ...ONE_WAY.filter(([file]) => file !== home).flatMap(([, rules]) => rules)];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.tools/', 'data/', 'keys/', 'test-artifacts/', 'coverage/', 'sdk/typescript/dist/', 'cli/dist/', 'sdk/typescript/src/generated/', 'sdk/python/', 'sdk/go/'] },
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
  // conflict, in every form the engines answer it. oidc-provider's classes are changed in its seam only.
  // One no-restricted-syntax rule a file, so the three are listed together (ONE_WAY).
  {
    files: ['src/**/*.ts'],
    ignores: ONE_WAY.map(([file]) => file),
    rules: { 'no-restricted-syntax': oneWayBut(undefined) },
  },
  ...ONE_WAY.map(([home]) => ({ files: [home], rules: { 'no-restricted-syntax': oneWayBut(home) } })),
  {
    // oidc-provider's private modules are imported by its seam only, which says what Slipway relies on
    // in each and is checked against the installed version (test/oauth/providerInternals.test.ts).
    files: ['src/**/*.ts'],
    ignores: [PROVIDER_SEAM],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['oidc-provider/lib/*'], message: "oidc-provider's internals are reached through src/oauth/provider/internals.ts only." }] }],
    },
  },
  {
    files: ['src/cli/**', 'bench/**', 'test/**', 'scripts/**', 'sdk/testserver/**', 'sdk/typescript/test/**'],
    rules: { 'no-console': 'off' },
  },
);
