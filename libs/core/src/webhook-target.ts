import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress, type FieldProblem } from '@pressroom/domain';

export type Lookup = (host: string) => Promise<{ address: string }[]>;
const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Decides whether a webhook URL may be called. Checked when the request arrives (400) and
 * again right before each attempt, since DNS can change between the two. Returns the
 * problem, or undefined when the target is acceptable.
 */
export async function checkWebhookTarget(url: string, opts: { allowPrivate: boolean; lookup?: Lookup }): Promise<FieldProblem | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { field: 'webhook', message: 'must be an absolute URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { field: 'webhook', message: 'must use https or http' };
  if (parsed.username || parsed.password) return { field: 'webhook', message: 'must not carry credentials' };
  if (opts.allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await (opts.lookup ?? systemLookup)(host)).map((a) => a.address);
    } catch {
      return { field: 'webhook', message: `host ${host} does not resolve` };
    }
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a))) {
    return { field: 'webhook', message: 'must not point to a loopback, private, link-local or metadata address' };
  }
  return undefined;
}
