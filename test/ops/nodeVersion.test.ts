import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { EXIT } from '../../src/startupFailure.ts';
import { NODE } from '../support/processes.ts';

const run = promisify(execFile);

/** The `node` a shell finds outside npm scripts (npm puts node_modules/.bin, Node 24, first on PATH). */
const systemPath = (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules')).join(':');
const systemNode = await run('node', ['--version'], { env: { PATH: systemPath } }).then(
  ({ stdout }) => stdout.trim(),
  () => undefined,
);
const systemMajor = systemNode ? Number(systemNode.slice(1).split('.')[0]) : undefined;

describe('bin/slipway.js and the Node.js version', () => {
  it.skipIf(systemMajor === undefined || systemMajor >= 24)(`on an older Node (this machine's node: ${systemNode}) it says in one line what is needed, exit 7`, async () => {
    const result = await run('node', ['bin/slipway.js', 'users', 'list'], { cwd: PROJECT_ROOT, env: { PATH: systemPath } }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(result.code).toBe(EXIT.node);
    expect(result.stderr.trim().split('\n')).toEqual([
      `slipway: needs Node.js 24, this is ${systemNode}; run it inside the Slipway checkout with \`npx slipway\` (npm puts the project's Node 24 first on PATH), or install Node.js 24.`,
    ]);
    expect(result.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
  });

  it('on Node 24 it runs the CLI', async () => {
    const { stdout } = await run(NODE, ['bin/slipway.js', '--version'], { cwd: PROJECT_ROOT });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
