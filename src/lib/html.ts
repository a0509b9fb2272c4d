/** Text made safe to put in HTML, between tags and inside double- or single-quoted attributes. */
export function escape(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Markup that is already safe: only `html` produces it. Anything else interpolated is escaped. */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

function part(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(part).join('');
  if (value === null || value === undefined || value === false) return '';
  return escape(value);
}

/**
 * The one way to make HTML: every interpolated value is HTML-escaped unless it is itself `Html`, so
 * escaping is the default and forgetting it is impossible. Arrays are joined; null, undefined and false
 * render nothing (for `${cond && html`…`}`).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** `items` one after the other with `separator` between them (both escaped unless `Html`). */
export function join(items: readonly unknown[], separator: unknown): Html {
  return new Html(items.map(part).join(part(separator)));
}

export interface PageHead {
  /** The page's own title; the tab shows `{title} · {site}`. */
  title: string;
  site?: string;
  /** Stylesheets of this server, in order. */
  stylesheets: string[];
  /** Scripts of this server, run after parsing (only where the page's CSP allows them). */
  scripts?: string[];
}

/** The start of every server-rendered page up to `</head>`. */
export function pageHead({ title, site = 'Slipway', stylesheets, scripts = [] }: PageHead): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · ${site}</title>
${stylesheets.map((href) => html`<link rel="stylesheet" href="${href}">\n`)}${scripts.map((src) => html`<script src="${src}" defer></script>\n`)}</head>`;
}
