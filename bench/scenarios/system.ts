import type { Scenario } from '../lib/types.ts';

/** The cheapest request the server answers: the cost of Koa, the middleware chain and the access log. */
export const healthz: Scenario = {
  id: 'healthz',
  title: 'GET /healthz',
  async prepare() {
    return { requests: [{ method: 'GET', path: '/healthz' }] };
  },
};
