import Router from '@koa/router';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { renderDocsPage } from '../http/docsPage.ts';

/** `/openapi.json` and `/docs`: outside /v1, no credentials (docs/product.md §1). */
export function createDocsRouter(document: OpenAPIObject) {
  const router = new Router();
  const json = JSON.stringify(document);
  const page = renderDocsPage(document);

  router.get('/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json';
    ctx.body = json;
  });
  router.get('/docs', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'html';
    ctx.body = page;
  });
  return router;
}
