import { describe, expect, it } from 'vitest';
import { clientAddress, proxyModel, sourceKey } from '../../src/http/clientAddress.ts';

/* The client address model itself (docs/security.md, "Behind a proxy"); login and token tests use it over HTTP. */

const model = (o: { trustProxy?: boolean; proxyHops?: number; trustedProxies?: string[] }) =>
  proxyModel({ trustProxy: o.trustProxy ?? false, proxyHops: o.proxyHops ?? 0, trustedProxies: o.trustedProxies ?? [] });

describe('clientAddress', () => {
  it('without a proxy setting, X-Forwarded-For is ignored', () => {
    expect(clientAddress(model({}), '192.0.2.1', '203.0.113.9')).toBe('192.0.2.1');
    expect(clientAddress(model({}), '::ffff:192.0.2.1', undefined)).toBe('192.0.2.1');
  });

  it('trusted ranges: the right-most address not in them; left-most entries are the client’s to forge', () => {
    const m = model({ trustedProxies: ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'] });
    expect(clientAddress(m, '127.0.0.1', '1.1.1.1, 203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddress(m, '127.0.0.1', '1.1.1.1, 203.0.113.9, 10.1.2.3')).toBe('203.0.113.9');
    expect(clientAddress(m, '::ffff:127.0.0.1', '203.0.113.9,fd00::7')).toBe('203.0.113.9');
    expect(clientAddress(m, '127.0.0.1', '[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(clientAddress(m, '127.0.0.1', '::ffff:198.51.100.4')).toBe('198.51.100.4');
    // A peer that is not a trusted proxy is the client, whatever it sends.
    expect(clientAddress(m, '192.0.2.50', '203.0.113.9')).toBe('192.0.2.50');
    // Everything trusted: the left-most address; garbage: the last trusted hop.
    expect(clientAddress(m, '127.0.0.1', '10.0.0.5')).toBe('10.0.0.5');
    expect(clientAddress(m, '127.0.0.1', 'nonsense, 10.0.0.5')).toBe('10.0.0.5');
    expect(clientAddress(m, '127.0.0.1', undefined)).toBe('127.0.0.1');
  });

  it('a hop count: the N-th entry from the right; TRUST_PROXY=true alone is one hop', () => {
    expect(clientAddress(model({ trustProxy: true }), '127.0.0.1', '1.1.1.1, 203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddress(model({ proxyHops: 2 }), '127.0.0.1', '1.1.1.1, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
    expect(clientAddress(model({ proxyHops: 2 }), '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddress(model({ proxyHops: 1 }), '127.0.0.1', undefined)).toBe('127.0.0.1');
  });
});

describe('sourceKey', () => {
  it('IPv6 by /64, IPv4 (and IPv4-mapped IPv6) as the address', () => {
    expect(sourceKey('2001:db8:a:b::1')).toBe(sourceKey('2001:db8:a:b:ffff:ffff:ffff:fffe'));
    expect(sourceKey('2001:db8:a:b::1')).not.toBe(sourceKey('2001:db8:a:c::1'));
    expect(sourceKey('::ffff:198.51.100.9')).toBe(sourceKey('198.51.100.9'));
    expect(sourceKey('198.51.100.9')).not.toBe(sourceKey('198.51.100.10'));
  });
});
