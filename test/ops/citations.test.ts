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

/**
 * The README is the front door and docs/ holds the guides: every link between them (and within one)
 * lands on a file that exists and, for `#anchor`, on a heading of it (GitHub's anchors: lower case,
 * punctuation dropped, spaces as hyphens, a repeated heading numbered).
 */
const markdownFiles = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(root, file), 'utf8').replace(/^```[^]*?^```$/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

describe('links of the README and docs/', () => {
  const links = markdownFiles.flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').replace(/^```[^]*?^```$/gm, '').matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .map((target) => ({ file, target })),
  );

  it('finds the links', () => {
    expect(links.filter((l) => l.file === 'README.md').length).toBeGreaterThan(10);
    expect(links.filter((l) => l.target.includes('#')).length).toBeGreaterThan(10);
  });

  it('every linked file exists and every #anchor is a heading of it', () => {
    const broken = links.flatMap(({ file, target }) => {
      const [pathPart, anchor] = target.split('#') as [string, string | undefined];
      const linked = pathPart ? relative(root, join(root, file, '..', pathPart)) : file;
      if (!existsSync(join(root, linked))) return [`${file}: ${target} (no such file)`];
      if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) return [`${file}: ${target} (no such heading)`];
      return [];
    });
    expect(broken).toEqual([]);
  });

  it("the README's quick start is two commands, and it links to every guide in docs/", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const quickStart = /^## Quick start\n+```sh\n([^]*?)^```$/m.exec(readme)?.[1];
    expect(quickStart?.trim().split('\n')).toEqual(['npm install', 'npm start']);
    const linked = new Set(links.filter((l) => l.file === 'README.md').map((l) => l.target.split('#')[0]));
    const guides = markdownFiles.filter((f) => f.startsWith('docs/') && f !== 'docs/tenant-isolation.md');
    expect(guides.filter((g) => !linked.has(g))).toEqual([]);
  });
});

/**
 * The README's sections cited in prose and comments, in any of the ways they are written: an anchor of
 * it (`README.md#<anchor>`, also as `../README.md#<anchor>`), its quoted heading (`README "<heading>"`,
 * `the README's "<heading>"`), or `the README's <words> section`, whose words must stand in one of its
 * headings. Each must be a section the README has; a citation of another README (`sdk/go/README.md`)
 * is that one's own.
 */
function readmeCitations(path: string, raw: string): { path: string; citation: string; found: boolean }[] {
  // A citation may run over a line break, inside a comment (` * `, `// `, `# `) or not.
  const text = raw.replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#(?!#))?\s*/g, ' ');
  const headings = [...readFileSync(join(root, 'README.md'), 'utf8').replace(/^```[^]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase());
  const anchors = anchorsOf('README.md');
  return [
    ...[...text.matchAll(/(?<![\w./-])(?:\.\.\/)*README\.md#([\w-]+)/g)].map((m) => ({ citation: m[0], found: anchors.has(m[1]!) })),
    ...[...text.matchAll(/(?<![\w./-])README(?:\.md)?(?:'s|,)? "([^"]+)"/g)].map((m) => ({ citation: m[0], found: headings.includes(m[1]!.toLowerCase()) })),
    ...[...text.matchAll(/(?<![\w./-])README(?:\.md)?'s ([\w -]+?) section/g)].map((m) => ({ citation: m[0], found: headings.some((h) => h.includes(m[1]!.toLowerCase())) })),
  ].map((c) => ({ path, ...c }));
}

describe("sections of the README cited elsewhere", () => {
  // This file's own made-up citations (below) are not citations.
  const cited = [
    ...['src', 'test', 'bench', 'scripts']
      .flatMap((dir) => sourceFiles(join(root, dir)))
      .map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }))
      .filter(({ path }) => path !== relative(root, import.meta.filename)),
    ...markdownFiles.filter((f) => f !== 'README.md').map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') })),
  ].flatMap(({ path, text }) => readmeCitations(path, text));

  it('finds the citations, written each way', () => {
    expect(cited.some((c) => c.citation.includes('README.md#'))).toBe(true);
    expect(cited.some((c) => c.citation.includes('"'))).toBe(true);
    expect(cited.some((c) => c.citation.endsWith(' section'))).toBe(true);
  });

  it('every README section cited is one the README has', () => {
    expect(cited.filter((c) => !c.found).map((c) => `${c.path}: ${c.citation}`)).toEqual([]);
  });

  it('a citation of a section the README lacks is caught, whichever way it is written', () => {
    const made = ['README.md#no-such-part', '../README.md#no-such-part', 'README "No such part"', "the README's \"No such\n * part\"", "the README's no such part section"];
    expect(made.map((text) => readmeCitations('made-up.ts', text).map((c) => c.found))).toEqual(made.map(() => [false]));
    expect(readmeCitations('made-up.ts', 'sdk/go/README.md#anything, and sdk/python/README "Anything"')).toEqual([]);
    expect(readmeCitations('made-up.ts', "README.md#quick-start, README \"Quick start\", the README's quick start section").map((c) => c.found)).toEqual([true, true, true]);
  });
});
