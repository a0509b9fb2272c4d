import { lookup } from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { webhookUrlProblem } from '../schemas/webhooks.ts';

/**
 * SSRF guard for webhook URLs (docs/product.md §7). A URL is refused unless it is https (or http to loopback
 * when the deployment allows loopback) and every address its host resolves to is an ordinary public
 * unicast address: private, loopback, link-local (cloud metadata), CGNAT, multicast, unspecified,
 * reserved, unique-local and the IPv6 forms that embed an IPv4 address are all refused. ipaddr.js
 * classifies the addresses (its special-range tables follow the IANA registries). The check runs at
 * registration and again before every connection, and the connection goes to the addresses checked.
 */


export interface TargetPolicy {
  /** Development and tests: loopback addresses are allowed, and http to them. */
  allowLoopback: boolean;
}

export interface CheckedTarget {
  url: URL;
  /** The addresses that passed the check, in resolver order: connect to these and nothing else. */
  addresses: { address: string; family: 4 | 6 }[];
}

export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}


/** Why an address may not be connected to; undefined when it may. */
export function addressProblem(address: string, policy: TargetPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  // ipaddr.js leaves ::/96 (the deprecated IPv4-compatible form, RFC 4291 §2.5.5.1, e.g. ::127.0.0.1) as unicast.
  if (range === 'unicast' && ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return 'resolves to an IPv4-compatible address, which is not allowed';
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  return `resolves to a ${range} address, which is not allowed`;
}

/** Resolves the URL's host and checks every address; throws TargetRefused with a reason fit for the caller. */
export async function checkTarget(value: string, policy: TargetPolicy): Promise<CheckedTarget> {
  const problem = webhookUrlProblem(value);
  if (problem) throw new TargetRefused(problem);
  const url = new URL(value);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: { address: string; family: 4 | 6 }[];
  const literal = net.isIP(host);
  if (literal) addresses = [{ address: host, family: literal as 4 | 6 }];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    } catch {
      throw new TargetRefused('host does not resolve');
    }
  }
  if (addresses.length === 0) throw new TargetRefused('host does not resolve');
  for (const { address } of addresses) {
    const refused = addressProblem(address, policy);
    if (refused) throw new TargetRefused(`host ${refused}`);
  }
  if (url.protocol === 'http:') {
    const loopbackOnly = policy.allowLoopback && addresses.every(({ address }) => ipaddr.process(address).range() === 'loopback');
    if (!loopbackOnly) throw new TargetRefused('must be an https URL (http only to loopback, when the deployment allows it)');
  }
  return { url, addresses };
}
