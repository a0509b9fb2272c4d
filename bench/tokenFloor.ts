/**
 * The least a token response can cost on this machine: node:http, the form body read, one RS256 access
 * token signed with jose (WebCrypto, as oidc-provider signs), the JSON answer; no client authentication,
 * no provider, no storage, no log. Run it beside `npm run bench` to see how much of a token request is
 * spent before any authorization server runs:
 *
 *   node bench/tokenFloor.ts            (BENCH_SECONDS, default 6; 10 connections, 1 s warm-up)
 *
 * The server runs in a child process of its own, which reports its CPU (user + system, its thread pool
 * included) per request; autocannon drives it from this one.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { generateKeyPair, SignJWT } from 'jose';
import { intSetting } from './lib/settings.ts';

async function serve(): Promise<void> {
  const { privateKey } = await generateKeyPair('RS256');
  let count = 0;
  let since = process.cpuUsage();
  const server = http.createServer((req, res) => {
    if (req.url === '/reset' || req.url === '/stats') {
      const used = process.cpuUsage(since);
      res.end(JSON.stringify({ count, cpuMsPerRequest: (used.user + used.system) / 1000 / Math.max(count, 1) }));
      if (req.url === '/reset') [count, since] = [0, process.cpuUsage()];
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      void new SignJWT({ scope: form.get('scope'), client_id: 'floor' })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
        .setIssuedAt()
        .setExpirationTime('1h')
        .setJti(crypto.randomUUID())
        .sign(privateKey)
        .then((jwt) => {
          count += 1;
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
          res.end(JSON.stringify({ access_token: jwt, token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') }));
        });
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as { port: number }).port));
}

async function drive(): Promise<void> {
  const child = fork(new URL(import.meta.url).pathname, ['--serve']);
  try {
    const [port] = (await once(child, 'message')) as [number];
    const url = `http://127.0.0.1:${port}`;
    const load = (duration: number) =>
      autocannon({ url: `${url}/token`, method: 'POST', connections: 10, duration, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&scope=read' });
    await load(1);
    await fetch(`${url}/reset`);
    const result = await load(intSetting('BENCH_SECONDS', 6, 1, 300));
    const stats = (await (await fetch(`${url}/stats`)).json()) as { count: number; cpuMsPerRequest: number };
    console.log(`token floor (node:http + one RS256 JWT, 10 connections): ${Math.round(result.requests.average)} req/s, server CPU ${stats.cpuMsPerRequest.toFixed(2)} ms per request (${stats.count} requests, non-2xx ${result.non2xx})`);
  } finally {
    child.kill();
  }
}

await (process.argv.includes('--serve') ? serve() : drive());
