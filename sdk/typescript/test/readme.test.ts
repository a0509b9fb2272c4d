import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { harness } from './support/env.ts';
import { REPO_ROOT } from './support/harness.ts';

const run = promisify(execFile);
const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');

/** The ```ts blocks of a Markdown file (in the repository README, only those of "Client libraries"). */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/**
 * The names the examples use without defining them (the reader's own values and functions). Ambient
 * globals, so an example that defines one of them itself simply shadows it.
 */
const GLOBALS = `import type { Slipway as SlipwayClient, TokenSet } from ${JSON.stringify(path.join(PACKAGE_DIR, 'src', 'index.ts'))};
declare global {
  const slipway: SlipwayClient;
  const projectId: string;
  const clientId: string;
  const callbackUrl: string;
  function saveSomewhere(tokens: TokenSet): void;
  function loadSomewhere(): string;
  function saveSecret(secret: string): void;
}
export {};
`;

/** The TypeScript snippets of the live server's /docs (its Client libraries section), unescaped. */
async function docsBlocks(): Promise<string[]> {
  const page = await (await fetch(`${harness().base_url}/docs`)).text();
  const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  return [...page.matchAll(/<pre class="example" data-example="sdk" data-language="typescript" data-task="[a-z]+"><code>([^]*?)<\/code><\/pre>/g)].map((m) => unescape(m[1]!));
}

it("the README examples (this package's and the repository's Client libraries section) and /docs's TypeScript examples typecheck against the SDK", async () => {
  const own = tsBlocks(await readFile(path.join(PACKAGE_DIR, 'README.md'), 'utf8'));
  const root = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = root.slice(root.indexOf('## Client libraries'), root.indexOf('\n## ', root.indexOf('## Client libraries') + 1));
  const repository = tsBlocks(section);
  expect(own.length).toBeGreaterThanOrEqual(6);
  expect(repository.length).toBeGreaterThanOrEqual(1);
  const docs = await docsBlocks();
  expect(docs).toHaveLength(2);

  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-sdk-ts-readme-'));
  try {
    await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
    await writeFile(path.join(dir, 'globals.ts'), GLOBALS);
    const files = ['globals.ts'];
    for (const [i, block] of [...own, ...repository, ...docs].entries()) {
      const file = `example${i}.ts`;
      // Each example is a module of its own, importing the package's source as '@slipway/sdk'.
      const code = block.replaceAll("from '@slipway/sdk'", `from ${JSON.stringify(path.join(PACKAGE_DIR, 'src', 'index.ts'))}`);
      await writeFile(path.join(dir, file), /^\s*(import|export)\s/m.test(code) ? code : `${code}\nexport {};\n`);
      files.push(file);
    }
    const tsc = path.join(PACKAGE_DIR, 'node_modules', '.bin', 'tsc');
    const args = [
      ...['--noEmit', '--strict', '--noUncheckedIndexedAccess', '--skipLibCheck', '--allowImportingTsExtensions'],
      ...['--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2023,dom,dom.iterable'],
      ...['--types', 'node', '--typeRoots', path.join(PACKAGE_DIR, 'node_modules', '@types')],
      ...files,
    ];
    const result = await run(tsc, args, { cwd: dir }).then(
      () => '',
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
    expect(result, 'README examples do not typecheck').toBe('');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
