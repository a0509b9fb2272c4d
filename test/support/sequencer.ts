import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, measured on CI (test-artifacts/vitest-results.json), longest first. A
 * fresh clone has no vitest cache of durations, so without this list they would start wherever the
 * default order put them, and the last of them would keep one worker busy while the other idles: the
 * 100 s bulk delete started last and made the run 2 minutes longer. Starting them first lets the short
 * files fill in beside them.
 */
export const SLOW_FIRST = [
  'test/perf/bulkDelete.test.ts',
  'test/http/schemathesis.test.ts',
  'test/cli/cli.test.ts',
  'test/ops/cliAdmin.test.ts',
  'test/v1/authorization.test.ts',
  'test/v1/deploymentLogs.test.ts',
  'test/oauth/tokenBudgets.test.ts',
  'test/dashboard/pages.test.ts',
  'test/dashboard/dashboard.test.ts',
  'test/ops/startup.test.ts',
  'test/ops/cli.test.ts',
  'test/ops/webhookRestart.test.ts',
  'test/v1/webhookFairness.test.ts',
];

/** The default order (failed first, then cached durations, then size), with SLOW_FIRST ahead of it. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = SLOW_FIRST.indexOf(path.relative(process.cwd(), spec.moduleId).split(path.sep).join('/'));
      return at === -1 ? SLOW_FIRST.length : at;
    };
    // A stable sort: files outside the list keep the default order among themselves.
    return sorted.map((spec, i) => ({ spec, i })).sort((x, y) => rank(x.spec) - rank(y.spec) || x.i - y.i).map(({ spec }) => spec);
  }
}
