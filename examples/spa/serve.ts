// Serves the SPA example on its own origin (default http://127.0.0.1:5173), with a config.json that
// points it at a Slipway server. No dependencies: node:http and the three static files.
//
//   SLIPWAY_URL=http://127.0.0.1:3000 CLIENT_ID=cli_… node examples/spa/serve.ts
//
// Register the client first (public, redirect URI = this origin + /callback):
//   npx slipway clients create --name "My SPA" --public --redirect-uri http://127.0.0.1:5173/callback
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.dirname(fileURLToPath(import.meta.url));

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  // The redirect URI: the same page, which finishes the sign-in from the query string.
  '/callback': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export interface SpaOptions {
  /** Slipway's public URL, e.g. http://127.0.0.1:3000 */
  slipwayUrl: string;
  clientId: string;
  scope?: string;
  host?: string;
  /** 0 for any free port. */
  port?: number;
}

export interface SpaServer {
  /** `http://host:port`; register `${origin}/callback` as the client's redirect URI. */
  origin: string;
  close(): Promise<void>;
}

export async function startSpaServer(options: SpaOptions): Promise<SpaServer> {
  const slipway = new URL(options.slipwayUrl).origin;
  const config = JSON.stringify({ issuer: `${slipway}/oauth`, api: slipway, client_id: options.clientId, scope: options.scope ?? 'read' });
  // The page talks to Slipway only; everything else is its own files.
  const csp = `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' ${slipway}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    const headers = { 'cache-control': 'no-store', 'content-security-policy': csp, 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' };
    if (pathname === '/config.json') return void res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(config);
    const entry = FILES[pathname];
    if (!entry) return void res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
    readFile(path.join(DIR, entry.file)).then(
      (body) => res.writeHead(200, { ...headers, 'content-type': entry.type }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 5173, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    origin: `http://${address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const clientId = process.env.CLIENT_ID;
  if (!clientId) {
    console.error('Set CLIENT_ID to the client_id of a public client whose redirect URI is http://127.0.0.1:5173/callback');
    process.exit(2);
  }
  const spa = await startSpaServer({ slipwayUrl: process.env.SLIPWAY_URL ?? 'http://127.0.0.1:3000', clientId, port: Number(process.env.PORT ?? 5173) });
  console.error(`SPA example on ${spa.origin}`);
}
