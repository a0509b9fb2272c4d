import { configDefaults, defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/sequencer.ts';

/**
 * Files that need oidc-provider's modules as it ships them, before any provider of ours changed them:
 * each runs in a process of its own. Every other file shares its worker's modules with the files before
 * it (`isolate: false`): the app's module graph is loaded once per worker, not once per file (that was
 * about 270 s of each CI pass, summed over the workers). Each file still starts its own servers, on a
 * database of its own, and stops them.
 */
export const ISOLATED_FILES = ['test/oauth/providerInternals.test.ts'];

/** The suite's configuration, leaving out `exclude` (globs), with `testTimeout` (vitest.documentdb.config.ts gives its own). */
export function suiteConfig(options: { exclude?: string[]; testTimeout?: number } = {}) {
  const exclude = [...configDefaults.exclude, ...(options.exclude ?? [])];
  const common = { testTimeout: options.testTimeout ?? 60_000, hookTimeout: 120_000, globalSetup: ['test/support/globalSetup.ts'] };
  return defineConfig({
    test: {
      pool: 'forks',
      maxWorkers: 2,
      reporters: ['default'],
      // The slowest files first (test/support/sequencer.ts): no worker is left alone with one at the end.
      sequence: { sequencer: SlowFirstSequencer },
      projects: [
        { extends: true, test: { ...common, name: 'isolated', include: ISOLATED_FILES, exclude, isolate: true } },
        { extends: true, test: { ...common, name: 'shared', include: ['test/**/*.test.ts'], exclude: [...exclude, ...ISOLATED_FILES], isolate: false } },
      ],
    },
  });
}

export default suiteConfig();
