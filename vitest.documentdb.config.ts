import { suiteConfig } from './vitest.config.ts';

/**
 * The server suite's second pass, on the DocumentDB engine (PostgreSQL + DocumentDB behind FerretDB 2),
 * which behaves like MongoDB where the embedded FerretDB 1.24 does not. `.ci/run` starts the engine and
 * runs `MONGODB_URI=<its uri> npx vitest run --config vitest.documentdb.config.ts`; the harness's
 * globalSetup then uses that server, and each test file a database of its own.
 *
 * Every test file runs, except the ones below: each exclusion, with its reason, is here and only here.
 * A new test file runs on this engine too unless it is added here.
 */
export const DOCUMENTDB_EXCLUDE: Record<string, string> = {
  // Specific to the embedded FerretDB 1.24: they start one of their own, whatever MONGODB_URI says, so
  // here they would test the embedded database again.
  'test/perf/indexUse.test.ts': "plans the embedded FerretDB's own SQL statements with SQLite (EXPLAIN QUERY PLAN), from the debug log of a FerretDB 1.24 it starts",
  'test/ops/busyDatabase.test.ts': 'loads a FerretDB 1.24 of its own with heavy reads to show a busy database is not taken for a dead one',
  'test/ops/faults.test.ts': 'kills (SIGKILL) and restarts a FerretDB 1.24 of its own under concurrent writes',
  'test/ops/outage.test.ts': 'kills, stops (SIGSTOP) and restarts a FerretDB 1.24 of its own to measure outages',
  'test/ops/buildEmbedded.test.ts': 'builds the embedded FerretDB 1.24 with its patches',
  'test/ops/noGo.test.ts': "npm start without Go and without MONGODB_URI: the embedded database's missing toolchain",
  'test/db/**': 'compares FerretDB 1.24 builds (patched and unpatched); the main run gives it this engine as its reference (SLIPWAY_REFERENCE_MONGODB_URI)',
  // Guards a limit of the embedded database only, at a size this engine takes minutes to load.
  'test/perf/bulkDelete.test.ts':
    "fills a project with 100,000 deployments (and deletes it with 170,000 documents) to pass the embedded database's limit of ~32,000 SQL variables a statement; here the inserts alone take minutes (100,000 in 42 s on an idle machine, past the test's 5 minutes on a shared one); the batched delete itself is measured on this engine in docs/OPERATIONS.md",
  // Store nothing: the same on every engine, and run by the main pass.
  'test/ops/asyncLogs.test.ts': 'the logger, no database',
  'test/ops/citations.test.ts': 'the documents the code cites, no database',
  'test/ops/cliHelp.test.ts': "the CLI's help texts, no database",
  'test/ops/config.test.ts': 'configuration errors at start, before any database',
  'test/ops/documentdbCli.test.ts': "this engine's own build key and command refusals, no database",
  'test/ops/build.test.ts': 'compiles the server into dist/ and starts it once: the build, not storage',
  'test/http/clientAddress.test.ts': 'client addresses from X-Forwarded-For, no database',
  'test/http/corsOrigins.test.ts': "the CORS allow-list's cache over an in-memory list of clients, no database",
  'test/http/schemathesis.test.ts': "fuzzes the HTTP API's shapes against its OpenAPI document (Python, minutes), not storage",
  'test/cli/cli.test.ts': "the user CLI installed from the checkout (npm, tsc: most of its minute) and run against the API: the CLI, not storage",
  'test/examples/spa.test.ts': "the browser example signing in and reading one list through Chromium: the example, not storage",
  // Accessibility and layout in Chromium (axe-core in light and dark, 390 px): the markup, not storage. The
  // flows these pages drive are the API's, whose tests run here.
  'test/dashboard/pages.test.ts': 'every dashboard page through axe-core and at 390 px in Chromium: the markup, not storage',
  'test/dashboard/accountsPages.test.ts': 'the invitation page, the account chooser and the switcher through axe-core and at 390 px: the markup, not storage',
  'test/oauth/devicePages.test.ts': "the device flow's pages through axe-core and at 390 px: the markup, not storage",
  'test/dashboard/charts.test.ts': "the 30-day chart's drawing and its labels' size in Chromium: the markup, not storage",
};

export default suiteConfig({
  exclude: Object.keys(DOCUMENTDB_EXCLUDE),
  // The same tests on an engine that spends more per command (PostgreSQL behind a second server):
  // the long sequential ones (110 sign-ins after waiting for a new minute) get twice the time.
  testTimeout: 120_000,
});
