import type { Context } from 'koa';
import type { PageRequest } from '../domain/page.ts';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { AppError } from '../errors.ts';
import { html, type Html } from '../lib/html.ts';
import { parseInput } from '../schemas/parse.ts';

/** Messages per form field name, shown next to the field. */
export type FieldErrors = Record<string, string>;

/** A form body as koa-body parsed it: strings, or arrays for repeated names. */
export type FormValues = Record<string, string | string[]>;

/** What a form is re-rendered with after a refused submission: the values sent and what was wrong. */
export interface FormState {
  values: FormValues;
  errors: FieldErrors;
  /** A problem that belongs to no one field. */
  message?: string;
}

/** A fresh token for a form whose answer shows a secret (`_once`; see DashboardClientService.claimForm). */
export const newOnce = () => randomBytes(16).toString('base64url');

/** A form body as koa-body parsed it: strings, or arrays for repeated names. Unknown shapes become ''. */
export function formBody(body: unknown): FormValues {
  const out: FormValues = {};
  if (!body || typeof body !== 'object') return out;
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

/** A field's value (a repeated name: the first). */
export const str = (body: FormValues, name: string): string => {
  const v = body[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
};

/** A field's values (checkboxes). */
export const list = (body: FormValues, name: string): string[] => {
  const v = body[name];
  return Array.isArray(v) ? v : v ? [v] : [];
};

const value = (state: FormState | undefined, name: string): string => str(state?.values ?? {}, name);
const values = (state: FormState | undefined, name: string): string[] => list(state?.values ?? {}, name);

export interface RefusedForm {
  status: number;
  errors: FieldErrors;
  message?: string;
}

/**
 * Turns a service's refusal into messages for the form: `validation_failed` details go next to their
 * fields (`fieldNames` maps service field names to form field names; a detail for a field the form does
 * not have becomes the form's message), `conflict` goes to `conflictField`, state errors
 * (`invalid_transition`, `project_not_active`, an environment's refusals: every other 409) to the form's message. Anything else (403, 404, 500) is
 * not the form's business: null, and the caller rethrows.
 */
export function refusal(err: unknown, options: { fields: readonly string[]; rename?: Record<string, string>; conflictField?: string }): RefusedForm | null {
  if (!(err instanceof AppError)) return null;
  if (err.code === 'validation_failed') {
    const errors: FieldErrors = {};
    const other: string[] = [];
    for (const detail of err.details ?? []) {
      const top = detail.field.split('.')[0]!;
      const field = options.rename?.[top] ?? top;
      if (options.fields.includes(field)) errors[field] ??= sentence(detail.message);
      else other.push(`${detail.field}: ${detail.message}`);
    }
    return { status: 422, errors, ...(other.length ? { message: sentence(other.join('; ')) } : {}) };
  }
  if (err.code === 'conflict' && options.conflictField) return { status: 409, errors: { [options.conflictField]: err.message } };
  // Every other 409 is a state refusal too (invalid_transition, project_not_active, an environment's rules: docs/product.md §9).
  if (err.status === 409) return { status: 409, errors: {}, message: err.message };
  return null;
}

const sentence = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);

interface FieldBase {
  form: string;
  name: string;
  label: string;
  state?: FormState | undefined;
  hint?: string;
}

const ids = (f: FieldBase) => {
  const id = `${f.form}-${f.name}`;
  const error = f.state?.errors[f.name];
  const described = [f.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { id, error, described };
};

const aria = (described: string, error: string | undefined) =>
  html`${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}`;

const after = (id: string, hint: string | undefined, error: string | undefined) =>
  html`${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ''}`;

export function textField(
  f: FieldBase & { type?: string; value?: string; required?: boolean; autocomplete?: string; minlength?: number; maxlength?: number; placeholder?: string; inputmode?: string },
): Html {
  const { id, error, described } = ids(f);
  const v = f.value ?? value(f.state, f.name);
  return html`<div class="field${error ? ' has-error' : ''}">
<label for="${id}">${f.label}</label>
<input id="${id}" name="${f.name}" type="${f.type ?? 'text'}"${f.type === 'password' ? '' : html` value="${v}"`}${f.required ? html` required` : ''}${
    f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''
  }${f.minlength ? html` minlength="${f.minlength}"` : ''}${f.maxlength ? html` maxlength="${f.maxlength}"` : ''}${f.placeholder ? html` placeholder="${f.placeholder}"` : ''}${aria(described, error)}>
${after(id, f.hint, error)}</div>`;
}

export function textArea(f: FieldBase & { rows?: number; required?: boolean; value?: string }): Html {
  const { id, error, described } = ids(f);
  return html`<div class="field${error ? ' has-error' : ''}">
<label for="${id}">${f.label}</label>
<textarea id="${id}" name="${f.name}" rows="${f.rows ?? 3}"${f.required ? html` required` : ''}${aria(described, error)}>${f.value ?? value(f.state, f.name)}</textarea>
${after(id, f.hint, error)}</div>`;
}

export function selectField(f: FieldBase & { options: readonly { value: string; label: string }[]; value?: string }): Html {
  const { id, error, described } = ids(f);
  const selected = f.value ?? value(f.state, f.name);
  return html`<div class="field${error ? ' has-error' : ''}">
<label for="${id}">${f.label}</label>
<select id="${id}" name="${f.name}"${aria(described, error)}>${f.options.map(
    (o) => html`<option value="${o.value}"${o.value === selected ? html` selected` : ''}>${o.label}</option>`,
  )}</select>
${after(id, f.hint, error)}</div>`;
}

/** Checkboxes (or radios) under one legend; the error is tied to the group. */
export function choiceGroup(f: FieldBase & { type?: 'checkbox' | 'radio'; options: readonly { value: string; label: string }[]; checked?: string[] }): Html {
  const { id, error, described } = ids(f);
  const checked = f.checked ?? values(f.state, f.name);
  return html`<fieldset class="field choices${error ? ' has-error' : ''}"${aria(described, error)}>
<legend>${f.label}</legend>
${f.options.map(
  (o) =>
    html`<label class="choice" for="${id}-${o.value}"><input type="${f.type ?? 'checkbox'}" id="${id}-${o.value}" name="${f.name}" value="${o.value}"${
      checked.includes(o.value) ? html` checked` : ''
    }> ${o.label}</label>`,
)}
${after(id, f.hint, error)}</fieldset>`;
}

/** The form-level message and a summary that says which fields need attention. */
export function formProblem(state: FormState | undefined, labels: Record<string, string> = {}): Html {
  if (!state) return html``;
  const fields = Object.keys(state.errors);
  if (!state.message && fields.length === 0) return html``;
  return html`<div class="form-problem" role="alert">
${state.message ? html`<p>${state.message}</p>` : ''}${
    fields.length ? html`<p>Please correct: ${fields.map((f, i) => html`${i ? ', ' : ''}${labels[f] ?? f}`)}.</p>` : ''
  }</div>`;
}

/**
 * A page's filters (from the query string) checked with the /v1 list route's own query schema
 * (`parseInput`): the parsed query, or no query and a message per filter field (`messages`, by field;
 * `rename` moves a field's message onto a form field).
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  raw: Record<string, string>,
  options: { messages: Record<string, string>; rename?: Record<string, string> },
): { query: z.output<S> | undefined; errors: FieldErrors } {
  const given = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== ''));
  try {
    return { query: parseInput(schema, given), errors: {} };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
    const errors: FieldErrors = {};
    for (const detail of err.details ?? []) {
      const top = detail.field.split('.')[0]!;
      const field = options.rename?.[top] ?? top;
      errors[field] ??= options.messages[field] ?? sentence(detail.message);
    }
    return { query: undefined, errors };
  }
}

/** A positive integer from the query string (`?page=`), or the fallback when absent or malformed. */
/**
 * A page of a list, as the views take it: the page asked for (`?page`, `perPage` a page) and what the
 * service found on it.
 */
export async function listPage<T>(ctx: Context, load: (page: PageRequest) => Promise<{ items: T[]; total: number }>, perPage = 20) {
  const page = intParam(ctx.query.page, 1);
  return { ...(await load({ page, per_page: perPage })), page };
}

export function intParam(raw: unknown, fallback: number, max = 1_000_000_000): number {
  if (typeof raw !== 'string' || !/^[0-9]{1,10}$/.test(raw)) return fallback;
  const n = Number(raw);
  return n >= 1 && n <= max ? n : fallback;
}

/** A single query-string value (repeated parameters: the first). */
export function queryValue(raw: unknown): string {
  return typeof raw === 'string' ? raw : Array.isArray(raw) && typeof raw[0] === 'string' ? raw[0] : '';
}
