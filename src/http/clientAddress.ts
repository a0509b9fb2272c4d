import ipaddr from 'ipaddr.js';
import type { Middleware } from 'koa';
import type { Config } from '../config/index.ts';

/**
 * Who is on the other end of a request: the one answer every part of the app uses (login throttling,
 * token budgets, /v1 rate limits, log lines, oidc-provider's `ctx.ip`).
 *
 * `X-Forwarded-For` is a list each proxy appends to: the right-most entry was written by the proxy we
 * talk to, every entry left of the proxies' own is whatever the client chose to send. So the client is
 * found from the right, never from the left:
 * - `proxyHops: N` (N proxies in front of every request): the N-th entry from the right;
 * - `trustedProxies` (CIDRs): when the peer is one of them, the right-most entry that is not;
 * - neither (and no `trustProxy`): the socket's peer; the header is ignored.
 * `trustProxy: true` alone means one hop.
 */
export interface ProxyModel {
  hops: number;
  trusted: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

export function proxyModel(config: Pick<Config, 'trustProxy' | 'proxyHops' | 'trustedProxies'>): ProxyModel {
  const trusted = config.trustedProxies.map((range): [ipaddr.IPv4 | ipaddr.IPv6, number] => {
    if (range.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(range);
      return [unmapped(address), address.kind() === 'ipv6' && unmapped(address).kind() === 'ipv4' ? bits - 96 : bits];
    }
    const address = unmapped(ipaddr.parse(range));
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
  const hops = config.proxyHops > 0 ? config.proxyHops : config.trustProxy && trusted.length === 0 ? 1 : 0;
  return { hops, trusted };
}

/** True when any proxy is trusted, so `X-Forwarded-*` may be read at all. */
export const behindProxy = (model: ProxyModel) => model.hops > 0 || model.trusted.length > 0;

function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** One address as written in a header or by the socket (`[::1]:443`, `1.2.3.4:80`, `::ffff:1.2.3.4`); undefined if it is none. */
export function parseAddress(text: string | undefined): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!text) return undefined;
  let value = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  // A zone (fe80::1%eth0) names an interface of the sender, not a host.
  value = value.replace(/%.*$/, '');
  if (ipaddr.IPv4.isValidFourPartDecimal(value)) return ipaddr.IPv4.parse(value);
  if (ipaddr.IPv6.isValid(value)) return unmapped(ipaddr.IPv6.parse(value));
  return undefined;
}

const isTrusted = (model: ProxyModel, address: ipaddr.IPv4 | ipaddr.IPv6) =>
  model.trusted.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));

/**
 * The client's address, by the model above, from the socket's peer and the `X-Forwarded-For` header
 * (several headers arrive joined with commas). IPv4-mapped IPv6 addresses are given as IPv4.
 */
export function clientAddress(model: ProxyModel, peer: string | undefined, forwardedFor: string | undefined): string {
  const peerAddress = parseAddress(peer);
  const fallback = peerAddress?.toString() ?? peer ?? '';
  if (!behindProxy(model) || !peerAddress) return fallback;
  const entries = (forwardedFor ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  if (model.hops > 0) {
    if (entries.length === 0) return fallback;
    // Fewer entries than proxies: the left-most was still written by one of them.
    const written = entries[Math.max(0, entries.length - model.hops)];
    return parseAddress(written)?.toString() ?? fallback;
  }
  if (!isTrusted(model, peerAddress)) return fallback;
  let nearest = peerAddress;
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = parseAddress(entries[i]);
    // Not an address: the trusted proxy right of it is the last hop known for sure.
    if (!address) return nearest.toString();
    if (!isTrusted(model, address)) return address.toString();
    nearest = address;
  }
  return nearest.toString();
}

/**
 * The budget an address is counted in: an IPv4 address on its own, an IPv6 address by its /64 (one
 * subscriber usually holds a whole /64, so single IPv6 addresses would be free to change).
 */
export function sourceKey(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed) return address.slice(0, 64);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * Sets `ctx.request.ip` (and so `ctx.ip`) to the client's address, first thing in the app: whatever
 * reads `ctx.ip` afterwards reads this, and Koa's own `X-Forwarded-For` handling is never used.
 */
export function resolveClientAddress(config: Pick<Config, 'trustProxy' | 'proxyHops' | 'trustedProxies'>): Middleware {
  const model = proxyModel(config);
  if (!behindProxy(model)) {
    // The socket's peer alone: the same for every request of a connection (kept alive), so worked out once per connection.
    const peers = new WeakMap<object, string>();
    return async (ctx, next) => {
      const socket = ctx.req.socket;
      let ip = peers.get(socket);
      if (ip === undefined) {
        ip = clientAddress(model, socket.remoteAddress, undefined);
        if (socket.remoteAddress !== undefined) peers.set(socket, ip);
      }
      ctx.request.ip = ip;
      await next();
    };
  }
  return async (ctx, next) => {
    ctx.request.ip = clientAddress(model, ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For') || undefined);
    await next();
  };
}
