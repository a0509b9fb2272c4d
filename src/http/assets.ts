import { readFileSync } from 'node:fs';
import Router from '@koa/router';

/**
 * The stylesheets and the one script of the server's pages: files in src/assets/, read once at start and
 * served from this router only (same origin, so the pages' CSP `style-src 'self'` / `script-src 'self'`
 * allows them).
 */
const ASSETS: { url: string; file: string }[] = [
  // The authorization server's pages (sign-in, consent, messages); under the dashboard's too.
  { url: '/assets/slipway.css', file: 'slipway.css' },
  // The dashboard's own, on top of slipway.css. Narrow screens: tables become one card per row, forms one
  // column, nothing scrolls sideways.
  { url: '/assets/dashboard.css', file: 'dashboard.css' },
  // The one script dashboard pages run: the copy button next to a secret that is shown once. Without it
  // the secret is still selectable in its read-only field.
  { url: '/assets/dashboard.js', file: 'dashboard.js' },
  // /docs.
  { url: '/docs/docs.css', file: 'docs.css' },
];

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
};

export function createAssetsRouter() {
  const router = new Router();
  for (const { url, file } of ASSETS) {
    const type = TYPES[file.slice(file.lastIndexOf('.') + 1)]!;
    const body = readFileSync(new URL(`../assets/${file}`, import.meta.url), 'utf8');
    router.get(url, (ctx) => {
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = body;
    });
  }
  return router;
}
