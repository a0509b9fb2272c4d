import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The code's comments cite documents a clone has: `docs/<name>.md` (and `§n` of it, a numbered `## n.`
 * heading there), never a document kept outside the repository.
 */
const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|css)$/.test(entry.name) ? [path] : [];
  });
}

const files = sourceFiles(join(root, 'src')).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));

function sectionsOf(doc: string): Set<string> {
  return new Set([...readFileSync(join(root, doc), 'utf8').matchAll(/^## (\d+)\. /gm)].map((m) => m[1]!));
}

describe('documents cited in the source', () => {
  it('reads the whole source tree', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('cites no document outside the repository', () => {
    const outside = files.flatMap(({ path, text }) =>
      [...text.matchAll(/PRODUCT(\.md)?\s*§|SPEC(\.md)?\s*§|\.\.\/shared\/|STYLE\.md/g)].map((m) => `${path}: ${m[0]}`),
    );
    expect(outside).toEqual([]);
  });

  it('every docs/*.md cited exists, and every § cited is a numbered section of it', () => {
    const cited = files.flatMap(({ path, text }) =>
      [...text.matchAll(/docs\/([\w.-]+\.md)((?:\s*§\s*\d+(?:,\s*§\s*\d+)*)?)/g)].map((m) => ({
        path,
        doc: `docs/${m[1]}`,
        sections: [...(m[2] ?? '').matchAll(/\d+/g)].map((n) => n[0]),
      })),
    );
    expect(cited.length).toBeGreaterThan(20);
    const missing = cited.filter(({ doc }) => !existsSync(join(root, doc))).map(({ path, doc }) => `${path}: ${doc}`);
    expect(missing).toEqual([]);
    const unknown = cited.flatMap(({ path, doc, sections }) => {
      const known = sectionsOf(doc);
      return sections.filter((n) => !known.has(n)).map((n) => `${path}: ${doc} §${n}`);
    });
    expect(unknown).toEqual([]);
  });
});
