/* eslint-disable no-console -- a CI script whose output is its purpose */
// Prints the counts of every suite .ci/run ran (the server's vitest on the embedded database and on the
// DocumentDB engine, the SDKs' vitest, pytest and go test), one line per suite and a closing total, from the
// reports they wrote into test-artifacts/, and each failed test by name with the first line of its message.
import { existsSync, readFileSync } from 'node:fs';

interface Counts { passed: number; failed: number; skipped: number; failures?: string[] }
const suites: [string, Counts | null][] = [];

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults?: { name: string; status: string; message?: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

/** The first non-empty line of a failure message, short enough for a summary line. */
function firstLine(message: string | undefined): string {
  const line = (message ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '(no message)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function vitest(file: string): Counts | null {
  if (!existsSync(file)) return null;
  const r = JSON.parse(readFileSync(file, 'utf8')) as VitestReport;
  const failures: string[] = [];
  for (const f of r.testResults ?? []) {
    const rel = f.name.replace(`${process.cwd()}/`, '');
    const failedTests = f.assertionResults.filter((a) => a.status === 'failed');
    for (const a of failedTests) failures.push(`${rel} > ${a.fullName}: ${firstLine(a.failureMessages[0])}`);
    // A file that failed before its tests ran (an error in a hook or at import) has no failed test of its own.
    if (failedTests.length === 0 && f.status === 'failed') failures.push(`${rel}: ${firstLine(f.message)}`);
  }
  return { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests, failures };
}

function junit(file: string): Counts | null {
  if (!existsSync(file)) return null;
  const xml = readFileSync(file, 'utf8');
  const attr = (name: string) => [...xml.matchAll(new RegExp(`<testsuite\\b[^>]*\\b${name}="(\\d+)"`, 'g'))].reduce((n, m) => n + Number(m[1]), 0);
  const failed = attr('failures') + attr('errors');
  const failures = [...xml.matchAll(/<testcase\b[^>]*\bclassname="([^"]*)"[^>]*\bname="([^"]*)"[^>]*>\s*<(?:failure|error)\b[^>]*?(?:message="([^"]*)")?/g)].map(
    (m) => `${m[1]}::${m[2]}: ${firstLine(m[3])}`,
  );
  const skipped = attr('skipped');
  return { passed: attr('tests') - failed - skipped, failed, skipped, failures };
}

function goTest(file: string): Counts | null {
  if (!existsSync(file)) return null;
  const log = readFileSync(file, 'utf8');
  const count = (word: string) => (log.match(new RegExp(`^--- ${word}: `, 'gm')) ?? []).length;
  const buildFailed = /^FAIL\s/m.test(log) && count('FAIL') === 0 ? 1 : 0;
  const failures = [...log.matchAll(/^--- FAIL: (\S+)/gm)].map((m) => m[1]!);
  return { passed: count('PASS'), failed: count('FAIL') + buildFailed, skipped: count('SKIP'), failures };
}

suites.push(['server (vitest)', vitest('test-artifacts/vitest-results.json')]);
suites.push(['server on DocumentDB (vitest)', vitest('test-artifacts/vitest-documentdb.json')]);
suites.push(['TypeScript SDK', vitest('test-artifacts/sdk-typescript.json')]);
suites.push(['Python SDK', junit('test-artifacts/sdk-python.xml')]);
suites.push(['Go SDK', goTest('test-artifacts/sdk-go.log')]);

// How long each step of .ci/run took (test-artifacts/steps.tsv: the epoch second each began, and its name).
if (existsSync('test-artifacts/steps.tsv')) {
  const steps = readFileSync('test-artifacts/steps.tsv', 'utf8').trim().split('\n').map((l) => l.split('\t') as [string, string]);
  for (let i = 0; i + 1 < steps.length; i++) console.log(`step ${Number(steps[i + 1]![0]) - Number(steps[i]![0])} s: ${steps[i]![1]}`);
  if (steps.length > 1) console.log(`all steps: ${Number(steps.at(-1)![0]) - Number(steps[0]![0])} s`);
}

const total: Counts = { passed: 0, failed: 0, skipped: 0 };
for (const [name, counts] of suites) {
  if (!counts) {
    console.log(`${name}: no report (the suite did not run)`);
    total.failed += 1;
    continue;
  }
  console.log(`${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  for (const failure of counts.failures ?? []) console.log(`  failed: ${failure}`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
console.log(`total: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
