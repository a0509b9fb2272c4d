import type Router from '@koa/router';
import type { Context, DefaultState, ParameterizedContext } from 'koa';
import type { z } from 'zod';
import type { Config } from '../config/index.ts';
import type { Scope } from '../domain/principal.ts';
import { assertScope } from '../http/requireScope.ts';
import { parseInput } from '../schemas/parse.ts';
import type { DashboardClientService } from '../services/dashboardClient.ts';
import { dash, seeOther, sendPage, type DashboardState } from './context.ts';
import { refusal, type FormState, type FormValues } from './forms.ts';
import { confirmBody, type ConfirmOptions, type Flash } from './layout.ts';

/** The names of the `:parameters` of a route's path: `'/webhooks/:id/deliveries/:delivery'` → `'id' | 'delivery'`. */
export type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamNames<Rest> : P extends `${string}:${infer Name}` ? Name : never;

/**
 * A request context whose path parameters `N` are there (the route matched them), typed as strings:
 * Koa's own `Context` types every property it does not know, `params` included, as `any`.
 */
export type WithParams<N extends string> = ParameterizedContext<DefaultState, { params: Record<N, string> }>;

/** The request context of a page declared at path `P`: its parameters are the path's own. */
export type PageContext<P extends string> = WithParams<ParamNames<P>>;

/** A page's handler: runs once the route's scope is checked, with the signed-in user's state. */
export type PageHandler<P extends string> = (ctx: PageContext<P>, state: DashboardState) => Promise<void> | void;

/** Where a write leads (Post/Redirect/Get), with an optional message for the page it leads to. */
export interface Redirect {
  to: string;
  flash?: Flash;
}

/** A refusal the form shows on its own page again: the values sent (see `keep`) and what was wrong. */
export interface Rerender<P extends string = string> {
  /** The form's field names: a refusal about one of them is shown next to it. */
  fields: readonly string[];
  /** A service field name → the form's field name (`expires_at` → `expires_on`). */
  rename?: Record<string, string>;
  /** The field a `conflict` belongs to (a name already taken). */
  conflictField?: string;
  /** The values put back into the form (default: all sent); secrets and passwords are never sent back. */
  keep?: (form: FormValues) => FormValues;
  rerender: (ctx: PageContext<P>, form: FormState, status: number) => Promise<void> | void;
}

/** A refusal shown as a message on the page the form came from (buttons, selects in a table row). */
export interface Back<P extends string = string> {
  back: (ctx: PageContext<P>, form: FormValues) => string;
  /** Shown when the refusal has no message of its own. */
  message: string;
}

/**
 * One POST of the dashboard, declared in one piece: claim (the CSRF token is checked before any route;
 * a form that shows a secret also claims its one-time token) → parse (`fields` read from the form,
 * checked with the /v1 route's own `schema`; without a schema, `run` gets no input) → `run` (the
 * service, as the principal) → `answer`: a redirect (303, with a message for the next page) or a page
 * rendered in the response (a secret shown once). A refusal the form owns (422 `validation_failed`,
 * 409) is shown by `refused`: the form again with its messages, or a message on the page it came from.
 * Anything else (403, 404, 500), or any refusal of an action without `refused`, is the error page.
 */
export interface FormAction<S extends z.ZodType, R, P extends string = string> {
  scope: Scope;
  /** The answer shows a secret: the form's `_once` token is claimed first; a second submission goes `back`. */
  once?: { back: (ctx: PageContext<P>) => string; message: string };
  schema?: S;
  /** The form's fields as the schema's input (the /v1 body's names and types). */
  fields?: (form: FormValues, ctx: PageContext<P>) => unknown;
  run: (ctx: PageContext<P>, input: z.output<S>, state: DashboardState) => Promise<R>;
  /** A redirect (with its message), or nothing when it rendered the answer itself (a secret shown once). */
  answer: (result: R, ctx: PageContext<P>, state: DashboardState) => Redirect | void | Promise<void>;
  refused?: Rerender<P> | Back<P>;
}

/** A confirmation step before a destructive form (its page title and question). */
export interface Confirmation extends Omit<ConfirmOptions, 'csrf'> {
  page: string;
}

export const success = (to: string, text: string): Redirect => ({ to, flash: { kind: 'success', text } });

/**
 * The dashboard's routes, declared like `/v1`'s (src/http/apiRouter.ts): each route states the scope it
 * needs next to its path, and the declaration is the check (403 before the handler runs, judged as on
 * /v1 by `assertScope`). Pages are `get`; every form posts to a `form` action.
 */
export class PageRouter {
  readonly #router: Router;
  readonly #config: Config;
  readonly #claims: DashboardClientService;

  constructor(router: Router, config: Config, claims: DashboardClientService) {
    this.#router = router;
    this.#config = config;
    this.#claims = claims;
  }

  get<P extends string>(path: P, scope: Scope, handler: PageHandler<P>): this {
    this.#router.get(path, async (ctx) => await handler(ctx as PageContext<P>, this.#allowed(ctx, scope)));
    return this;
  }

  /** The page that asks before a destructive action (its form posts to a `form` action). */
  confirm<P extends string>(path: P, scope: Scope, describe: (ctx: PageContext<P>, state: DashboardState) => Promise<Confirmation>): this {
    return this.get(path, scope, async (ctx, state) => {
      const { page, ...question } = await describe(ctx, state);
      sendPage(ctx, this.#config, { title: page, body: confirmBody({ ...question, csrf: state.viewer.csrf }) });
    });
  }

  form<S extends z.ZodType = z.ZodUndefined, R = void, P extends string = string>(path: P, action: FormAction<S, R, P>): this {
    this.#router.post(path, async (ctx) => await this.#submit(ctx as PageContext<P>, action));
    return this;
  }

  #allowed(ctx: Context, scope: Scope): DashboardState {
    const state = dash(ctx);
    assertScope(state.principal, scope);
    return state;
  }

  async #submit<S extends z.ZodType, R, P extends string>(ctx: PageContext<P>, action: FormAction<S, R, P>): Promise<void> {
    const state = this.#allowed(ctx, action.scope);
    const form = state.form;
    const claim = action.once ? await this.#claims.claimForm(state.session._id, form._once) : null;
    if (action.once && !claim) return seeOther(ctx, this.#config, action.once.back(ctx), { kind: 'error', text: action.once.message });
    let result: R;
    try {
      const input = action.schema ? parseInput(action.schema, action.fields?.(form, ctx)) : (undefined as z.output<S>);
      result = await action.run(ctx, input, state);
      await claim?.succeeded();
    } catch (err) {
      await claim?.failed();
      return await this.#refuse(ctx, action.refused, form, err);
    }
    const redirect = await action.answer(result, ctx, state);
    if (redirect) seeOther(ctx, this.#config, redirect.to, redirect.flash);
  }

  async #refuse<P extends string>(ctx: PageContext<P>, refused: Rerender<P> | Back<P> | undefined, form: FormValues, err: unknown): Promise<void> {
    if (!refused) throw err;
    if ('back' in refused) {
      const found = refusal(err, { fields: [] });
      if (!found) throw err;
      return seeOther(ctx, this.#config, refused.back(ctx, form), { kind: 'error', text: found.message ?? refused.message });
    }
    const found = refusal(err, refused);
    if (!found) throw err;
    await refused.rerender(ctx, { values: refused.keep ? refused.keep(form) : form, ...found }, found.status);
  }
}
