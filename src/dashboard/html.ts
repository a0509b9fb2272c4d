import { escape } from '../oauth/views.ts';

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
 * Templates for the dashboard: every interpolated value is HTML-escaped unless it is itself `Html`, so
 * escaping is the default and forgetting it is impossible. Arrays are joined; null, undefined and false
 * render nothing (for `${cond && html`…`}`).
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1]!;
  return new Html(out);
}
