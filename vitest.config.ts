import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    // The slowest files first (test/support/sequencer.ts): no worker is left alone with one at the end.
    sequence: { sequencer: SlowFirstSequencer },
  },
});
