import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The server suite's second pass, on the DocumentDB engine (PostgreSQL + DocumentDB behind FerretDB 2),
 * which behaves like MongoDB where the embedded FerretDB 1.24 does not. `.ci/run` starts the engine and
 * runs `MONGODB_URI=<its uri> npx vitest run --config vitest.documentdb.config.ts`; the harness's
 * globalSetup then uses that server, and each test file a database of its own.
 *
 * Every test that stores something runs, except the files below. Each exclusion, with its reason, is here
 * and only here.
 */
export const DOCUMENTDB_INCLUDE = [
  'test/services/**/*.test.ts',
  'test/v1/**/*.test.ts',
  'test/oauth/**/*.test.ts',
  'test/perf/**/*.test.ts',
  'test/dashboard/**/*.test.ts',
  'test/http/corsOrigins.test.ts',
  'test/ops/cli.test.ts',
  'test/ops/cliAdmin.test.ts',
  'test/ops/keysCli.test.ts',
  'test/ops/driverSettings.test.ts',
  'test/ops/webhookRestart.test.ts',
];

export const DOCUMENTDB_EXCLUDE: Record<string, string> = {
  'test/perf/indexUse.test.ts':
    "plans the embedded FerretDB's own SQL statements with SQLite (EXPLAIN QUERY PLAN) from its debug log: it starts a FerretDB 1.24 of its own, so on this pass it would only test the embedded database again",
};

// Not mergeConfig: it would concatenate the base's `include` (every test) with this one.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: DOCUMENTDB_INCLUDE,
    exclude: [...configDefaults.exclude, ...Object.keys(DOCUMENTDB_EXCLUDE)],
  },
});
