/**
 * The layers of src/, top first, written down once (docs/ARCHITECTURE.md explains them). A module may
 * import modules of its own layer and of the layers below it, never one above. `npm run lint` checks it.
 */
const LAYERS = [
  { name: 'entry points', path: '^src/(main|server|startupFailure)[.]ts$|^src/cli/' },
  { name: 'composition root', path: '^src/(container|app)[.]ts$' },
  { name: 'delivery (/v1 routes, dashboard)', path: '^src/(routes|dashboard)/' },
  { name: 'authorization server', path: '^src/oauth/' },
  { name: 'HTTP machinery', path: '^src/http/' },
  { name: 'authentication', path: '^src/auth/' },
  { name: 'services', path: '^src/services/' },
  { name: 'presenters', path: '^src/presenters/' },
  { name: 'schemas', path: '^src/schemas/' },
  { name: 'repositories', path: '^src/repositories/' },
  { name: 'database', path: '^src/db/' },
  { name: 'keys', path: '^src/keys/' },
  { name: 'foundation', path: '^src/(lib|domain|config)/|^src/(errors|logger)[.]ts$' },
];

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-import:${layer.name}`,
  comment: `${layer.name} may not import from the layers above it: ${LAYERS.slice(0, i + 1).map((l) => l.name).join(', ')}`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: LAYERS.slice(0, i + 1).map((l) => `(${l.path})`).join('|') },
}));

export default {
  forbidden: [
    ...upward,
    {
      name: 'no-delivery-crosstalk',
      comment: 'The /v1 routes and the dashboard are side by side: both use the services, neither imports the other.',
      severity: 'error',
      from: { path: '^src/(routes|dashboard)/' },
      to: { path: '^src/(routes|dashboard)/', pathNot: '^src/$1/' },
    },
    {
      name: 'delivery-uses-services',
      comment:
        'Delivery code (the /v1 routes, the dashboard, the admin CLI) reaches data through the services only: the rules live there, where this lint can see them. Types included: a service re-exports what its callers name.',
      severity: 'error',
      from: { path: '^src/(routes|dashboard|cli)/' },
      to: { path: '^src/repositories/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-stands-alone',
      comment: 'The service does not import its tests, benchmarks or client libraries.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|sdk|examples)/' },
    },
    {
      name: 'tests-do-not-use-bench',
      comment: 'Tests and benchmarks share helpers through src/ or test/support/, not through bench/.',
      severity: 'error',
      from: { path: '^test/' },
      to: { path: '^bench/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|sdk/(go|python)|sdk/typescript/src/generated)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.d.ts'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
