import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export type Lookup = (host: string) => Promise<{ address: string }[]>;
export const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Every address a URL's host stands for: the literal itself for an IP host (the URL parser has
 * already rewritten octal, hex and IPv4-mapped forms), else every answer of the resolver.
 * Undefined when the name does not resolve.
 */
export async function hostAddresses(url: URL, lookup: Lookup = systemLookup): Promise<string[] | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return [host];
  try {
    return (await lookup(host)).map((a) => a.address);
  } catch {
    return undefined;
  }
}
