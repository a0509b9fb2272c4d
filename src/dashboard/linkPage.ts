import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Html } from '../lib/html.ts';
import { dashboardErrors } from './context.ts';
import { formIsOurs, SetupCsrfCookie } from './csrf.ts';
import { formBody, queryValue, refusal, str, type FormState, type FormValues } from './forms.ts';
import { renderPage } from './layout.ts';

/*
 * Pages opened from a one-time link by someone without a session (a setup link, an invitation): the
 * token is the credential. Their answers are never stored by a browser or proxy, they sit before the
 * dashboard's session check on their one path, and their form is checked against a signed
 * double-submit cookie (src/dashboard/setup.ts says why).
 */

/** A page of such a link: `no-store`, in the dashboard's layout. */
export function sendLinkPage(ctx: Context, status: number, title: string, body: Html): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = renderPage({ title, body });
}

/** What a link's form shows: the token (in a hidden field), what it opens, the form's CSRF value, a refused submission. */
export interface LinkForm<T> {
  token: string;
  found: T;
  csrf: string;
  form?: FormState | undefined;
}

export interface LinkPageSpec<T> {
  /** The page's path (`/dashboard/setup`). */
  path: string;
  secure: boolean;
  logger: Logger;
  /** What the link opens while it is valid; null for anything else, malformed input included. */
  find(token: unknown): Promise<T | null>;
  /** The one page for a link that is not (or no longer) valid. */
  invalid(ctx: Context): void;
  render(ctx: Context, view: LinkForm<T>, status: number): void;
  /** What a form that does not match its cookie says. */
  notVerified: string;
  /** The fields a refused submission's messages may stand at. */
  fields: readonly string[];
  /**
   * The checked form (valid link, our form): what it does. `again` shows the form with a problem;
   * `done` forgets the CSRF cookie. A service's `invalid_request` shows the invalid-link page.
   */
  submit(ctx: Context, form: FormValues, link: { token: string; found: T }, answer: { again(form: FormState, status: number): void; done(): void }): Promise<void>;
}

/** A link's page: GET shows the form, POST runs it, both only while the link is valid. */
export function createLinkPage<T>(spec: LinkPageSpec<T>): Middleware {
  const csrf = new SetupCsrfCookie(spec.path, spec.secure);
  const parseForm = koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });
  const router = new Router();
  const show = (ctx: Context, token: string, found: T, status = 200, form?: FormState) => spec.render(ctx, { token, found, csrf: csrf.issue(ctx), form }, status);

  router.get(spec.path, async (ctx) => {
    const token = queryValue(ctx.query.token);
    const found = await spec.find(token);
    if (!found) return spec.invalid(ctx);
    show(ctx, token, found);
  });

  router.post(spec.path, parseForm, async (ctx) => {
    const form = formBody(ctx.request.body);
    const token = str(form, 'token');
    const found = await spec.find(token);
    if (!found) return spec.invalid(ctx);
    if (!formIsOurs(ctx, form, csrf.expected(ctx))) return show(ctx, token, found, 403, { values: {}, errors: {}, message: spec.notVerified });
    try {
      await spec.submit(ctx, form, { token, found }, { again: (state, status) => show(ctx, token, found, status, state), done: () => csrf.clear(ctx) });
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_request') return spec.invalid(ctx);
      const refused = refusal(err, { fields: spec.fields });
      if (!refused) throw err;
      show(ctx, token, found, refused.status, { values: {}, ...refused });
    }
  });

  const routes = router.routes() as Middleware;
  const allowed = router.allowedMethods() as Middleware;
  const errors = dashboardErrors(spec.logger);
  return async (ctx, next) => {
    if (ctx.path !== spec.path) return await next();
    await errors(ctx, () => routes(ctx, () => allowed(ctx, async () => undefined)));
  };
}
