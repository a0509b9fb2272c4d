import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.ts';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { ID_PREFIXES } from '../../src/lib/ids.ts';

/**
 * The ids the CLI's help shows as examples (`usr_…`, `proj_…`) are ids the service mints: their
 * prefixes are read from src/lib/ids.ts, never written out here.
 */

/** An id example: a lower-case prefix, `_`, then `…` (or `...`). */
const ID_EXAMPLE = /\b([a-z]+)_(?:…|\.\.\.)/g;

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

/** The whole help of `command` as `slipway … --help` prints it, texts added before and after included. */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

/** Every id example in `text`, with its prefix. */
function idExamples(text: string): { example: string; prefix: string }[] {
  return [...text.matchAll(ID_EXAMPLE)].map((m) => ({ example: m[0], prefix: m[1]! }));
}

describe('id examples in the help', () => {
  const commands = everyCommand(buildProgram());
  const name = (c: Command): string => (c.parent ? `${name(c.parent)} ${c.name()}` : c.name());

  it('use only the prefixes ids are minted with (src/lib/ids.ts)', () => {
    const found = commands.flatMap((c) => idExamples(helpOf(c)).map((e) => ({ ...e, command: name(c) })));
    console.log(`id examples in the help: ${found.length}, prefixes ${[...new Set(found.map((e) => e.prefix))].sort().join(', ')}`);
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((e) => !(ID_PREFIXES as readonly string[]).includes(e.prefix))).toEqual([]);
  });

  it('every argument and option that takes an id shows an example of it', () => {
    const places = commands.flatMap((c) => [
      ...c.registeredArguments.filter((a) => /(^|_)id$/.test(a.name())).map((a) => ({ where: `${name(c)} <${a.name()}>`, description: a.description })),
      ...c.options.filter((o) => /<id>/.test(o.flags)).map((o) => ({ where: `${name(c)} ${o.long!}`, description: o.description })),
    ]);
    expect(places.length).toBeGreaterThan(0);
    const without = places.filter((p) => idExamples(p.description).length !== 1).map((p) => p.where);
    expect(without).toEqual([]);
  });

  it('the check itself catches a wrong prefix', () => {
    // The example the help once gave for a project id.
    const wrong = idExamples('--project <id>  the project (prj_…)');
    expect(wrong.map((e) => e.prefix)).toEqual(['prj']);
    expect(ID_PREFIXES).not.toContain(wrong[0]!.prefix);
  });

  it("the README's CLI section uses the same prefixes", () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('## The admin CLI');
    expect(start).toBeGreaterThan(-1);
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const found = idExamples(section);
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((e) => !(ID_PREFIXES as readonly string[]).includes(e.prefix))).toEqual([]);
  });
});
