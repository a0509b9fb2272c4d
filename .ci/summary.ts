/* eslint-disable no-console -- a CI script whose output is its purpose */
// Prints the counts of every suite .ci/run ran (the server's vitest on the embedded database and on the
// DocumentDB engine, the SDKs' vitest, pytest and go test), one line per suite and a closing total, from the
// reports they wrote into test-artifacts/.
import { existsSync, readFileSync } from 'node:fs';

interface Counts { passed: number; failed: number; skipped: number }
const suites: [string, Counts | null][] = [];

function vitest(file: string): Counts | null {
  if (!existsSync(file)) return null;
  const r = JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
  return { passed: r.numPassedTests!, failed: r.numFailedTests!, skipped: r.numPendingTests! + r.numTodoTests! };
}

function junit(file: string): Counts | null {
  if (!existsSync(file)) return null;
  const xml = readFileSync(file, 'utf8');
  const attr = (name: string) => [...xml.matchAll(new RegExp(`<testsuite\\b[^>]*\\b${name}="(\\d+)"`, 'g'))].reduce((n, m) => n + Number(m[1]), 0);
  const failed = attr('failures') + attr('errors');
  const skipped = attr('skipped');
  return { passed: attr('tests') - failed - skipped, failed, skipped };
}

function goTest(file: string): Counts | null {
  if (!existsSync(file)) return null;
  const log = readFileSync(file, 'utf8');
  const count = (word: string) => (log.match(new RegExp(`^--- ${word}: `, 'gm')) ?? []).length;
  const buildFailed = /^FAIL\s/m.test(log) && count('FAIL') === 0 ? 1 : 0;
  return { passed: count('PASS'), failed: count('FAIL') + buildFailed, skipped: count('SKIP') };
}

suites.push(['server (vitest)', vitest('test-artifacts/vitest-results.json')]);
suites.push(['server on DocumentDB (vitest)', vitest('test-artifacts/vitest-documentdb.json')]);
suites.push(['TypeScript SDK', vitest('test-artifacts/sdk-typescript.json')]);
suites.push(['Python SDK', junit('test-artifacts/sdk-python.xml')]);
suites.push(['Go SDK', goTest('test-artifacts/sdk-go.log')]);

const total: Counts = { passed: 0, failed: 0, skipped: 0 };
for (const [name, counts] of suites) {
  if (!counts) {
    console.log(`${name}: no report (the suite did not run)`);
    total.failed += 1;
    continue;
  }
  console.log(`${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
}
console.log(`total: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
