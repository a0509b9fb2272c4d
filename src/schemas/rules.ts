import { z } from 'zod';

/*
 * Rules that a plain JSON Schema keyword does not say by itself, declared once: the zod schema the route
 * validates with carries both the check and the keyword the OpenAPI document shows, so a client generated
 * from the document never sends what the server refuses.
 */

/**
 * The end of the input (ECMA-262 `$`, as JSON Schema reads it). Python's `$` also matches before a final
 * newline; generators such as schemathesis read a closing `$` as the end of the string, and a trailing
 * newline is either refused by the character classes here or trimmed whitespace on both readings.
 */
const END = '$';

/**
 * The `pattern` keyword for a regex with the `u` flag (code points, as JSON Schema and Python count):
 * zod-to-openapi would print it as `…$/u`, which no engine reads as meant.
 */
export function documentedPattern(pattern: RegExp): { pattern: string } {
  return { pattern: pattern.source };
}

/**
 * A PATCH body must change something: `minProperties: 1` in the document, the same check (with the
 * fields named in the message) here.
 */
export function atLeastOneField<T extends z.ZodObject>(schema: T): T {
  const fields = Object.keys(schema.shape).join(', ');
  return schema.refine((v) => Object.keys(v as object).length > 0, `send at least one of ${fields}`).meta({ minProperties: 1 }) as T;
}

/**
 * A branch name as `git check-ref-format --branch` accepts it (one-level names allowed), at most 255
 * characters: not `@` or `HEAD`, not starting with `-`, `/` or `.`; no `..`, `@{`, `//`, `/.`; not
 * ending with `/`, `.` or `.lock` (nor any part between slashes ending with `.lock`); no space, control
 * character or any of `~ ^ : ? * [ \`. https://git-scm.com/docs/git-check-ref-format
 */
export const BRANCH_PATTERN = new RegExp(
  `^(?!(?:@|HEAD)${END})(?![-/.])(?![\\s\\S]*(?:\\.\\.|@\\{|//|/\\.|\\.lock/|\\.lock${END}|\\.${END}|/${END}))[^\\x00-\\x20\\x7f~^:?*\\[\\\\]{1,255}${END}`,
  'u',
);

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
// The last label starts with a letter, so a host is never read as a (malformed) IPv4 address.
const TOP_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)';

/**
 * An absolute http(s) URL: a host name or dotted IPv4 address, an optional port, then any visible
 * ASCII (path, query, fragment; non-ASCII must be percent-encoded). No user name or password.
 * Every URL that matches is one that WHATWG `new URL()` parses.
 */
export const HTTP_URL_PATTERN = new RegExp(
  `^[hH][tT][tT][pP][sS]?://(?:${OCTET}(?:\\.${OCTET}){3}|(?:${LABEL}\\.)*${TOP_LABEL})(?::${PORT})?(?:[/?#][\\x21-\\x7e]*)?${END}`,
  'u',
);

/** `Idempotency-Key`: 1–255 visible ASCII characters (e.g. a UUID). */
export const IDEMPOTENCY_KEY_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,255}${END}`, 'u');

// What String.prototype.trim() removes (ECMAScript WhiteSpace and LineTerminator), spelled out so that
// every regex engine reads the class the same way (`\s` differs between JavaScript and Python).
const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
// Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they reorder what a
// reader sees (U+202E before "yawpilS" shows "Slipway"), so no name or description may hold one. The plain
// marks (LRM, RLM, ALM), which right-to-left text needs, stay allowed.
const BIDI_CONTROL = '\\u202a-\\u202e\\u2066-\\u2069';

/**
 * Free text that is trimmed, then must be 1–`max` characters (code points; 0–`max` with `allowEmpty`)
 * and hold no bidirectional control (BIDI_CONTROL) and, with `controlCharacters: false`, no control character. The pattern states exactly that for
 * the raw value (any whitespace around, then the text), so the document and the check cannot disagree;
 * the message names the problem.
 */
export function trimmedText(max: number, options: { controlCharacters: boolean; allowEmpty?: boolean }) {
  const edge = options.controlCharacters ? `[^${TRIMMED}${BIDI_CONTROL}]` : `[^${TRIMMED}${CONTROL}${BIDI_CONTROL}]`;
  const inner = options.controlCharacters ? `[^${BIDI_CONTROL}]` : `[^${CONTROL}${BIDI_CONTROL}]`;
  const text = `${edge}(?:${inner}{0,${max - 2}}${edge})?`;
  const pattern = new RegExp(`^[${TRIMMED}]*${options.allowEmpty ? `(?:${text})?` : text}[${TRIMMED}]*${END}`, 'u');
  const controlCharacters = new RegExp(`[${CONTROL}]`, 'u');
  const bidiControls = new RegExp(`[${BIDI_CONTROL}]`, 'u');
  const problem = (raw: string) => {
    const text = raw.trim();
    if (!text && !options.allowEmpty) return 'must not be empty';
    if ([...text].length > max) return `must be at most ${max} characters`;
    if (!options.controlCharacters && controlCharacters.test(text)) return 'must not contain control characters';
    if (bidiControls.test(text)) return 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069)';
    return 'is not valid';
  };
  return z
    .string()
    .regex(pattern, { error: (issue) => problem(String(issue.input)) })
    .meta(documentedPattern(pattern))
    .trim();
}

/** A space-separated list of API scopes (`read`, `write`, `admin`), whitespace around allowed. */
export const SCOPE_LIST_PATTERN = new RegExp(`^[${TRIMMED}]*(?:read|write|admin)(?:[${TRIMMED}]+(?:read|write|admin))*[${TRIMMED}]*${END}`, 'u');

/**
 * An e-mail address as zod's `email()` accepts it, with whitespace around (it is trimmed first): the
 * document says what the check does, not only `format: email`, which accepts more.
 */
export const EMAIL_PATTERN = new RegExp(`^[${TRIMMED}]*${z.regexes.email.source.replace(/^\^|\$$/g, '')}[${TRIMMED}]*${END}`, 'u');

// A redirect URI's tail (path, query): visible ASCII without `#` (no fragment) or `*` (no wildcard).
const URI_TAIL = '[\\x21-\\x22\\x24-\\x29\\x2b-\\x7e]';
const URI_TAIL_NO_SLASH = '[\\x21-\\x22\\x24-\\x29\\x2b-\\x2e\\x30-\\x7e]';

/**
 * A redirect URI: https to any host; http only to a loopback host (RFC 8252 §7.3); or a private-use
 * scheme in reverse-domain form (RFC 8252 §7.1) such as `com.example.app:/callback`. No fragment, no
 * wildcard, no user name or password; non-ASCII percent-encoded.
 */
export const REDIRECT_URI_PATTERN = new RegExp(
  '^(?:' +
    `[hH][tT][tT][pP][sS]://(?:${OCTET}(?:\\.${OCTET}){3}|(?:${LABEL}\\.)*${TOP_LABEL})(?::${PORT})?(?:[/?]${URI_TAIL}*)?` +
    `|[hH][tT][tT][pP]://(?:127\\.0\\.0\\.1|\\[::1\\]|[lL][oO][cC][aA][lL][hH][oO][sS][tT])(?::${PORT})?(?:[/?]${URI_TAIL}*)?` +
    `|[A-Za-z][A-Za-z0-9+.-]*\\.[A-Za-z0-9+.-]+:(?:${URI_TAIL_NO_SLASH}${URI_TAIL}*|/(?:${URI_TAIL_NO_SLASH}${URI_TAIL}*)?)?` +
    `)${END}`,
  'u',
);
