/**
 * Branch patterns of an environment (docs/product.md §9): `*` matches within one path segment (any
 * characters but `/`), `**` across segments (any characters, `/` included; `a/**` also matches `a`
 * itself, `**\/b` also `b`); every other character stands for itself.
 *
 * Written here rather than taken from a glob library (picomatch, minimatch): those read braces,
 * character classes, `?`, extglobs and leading `!` as syntax, and branch names may contain `{`, `}`,
 * `!`, `(` and `+`, which would then have to be escaped by whoever writes a rule; the rule we promise is
 * these two wildcards only, compiled once to an anchored regular expression with no nested quantifier
 * (linear matching, no catastrophic backtracking on a 255-character name).
 */
export function branchPatternRegex(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; ) {
    if (pattern.startsWith('/**/', i)) {
      source += '(?:/|/.*/)';
      i += 4;
    } else if (pattern.startsWith('**/', i) && i === 0) {
      source += '(?:.*/)?';
      i += 3;
    } else if (pattern.startsWith('/**', i) && i + 3 === pattern.length) {
      source += '(?:/.*)?';
      i += 3;
    } else if (pattern.startsWith('**', i)) {
      source += '.*';
      i += 2;
    } else if (pattern[i] === '*') {
      source += '[^/]*';
      i += 1;
    } else {
      source += pattern[i]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  return new RegExp(`^${source}$`, 'u');
}

/** Whether `branch` matches one of `patterns`; `null` patterns admit every branch. */
export function branchAllowed(patterns: readonly string[] | null, branch: string): boolean {
  if (patterns === null) return true;
  return patterns.some((pattern) => branchPatternRegex(pattern).test(branch));
}
