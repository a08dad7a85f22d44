import { isIP } from 'node:net';
import { ASSET_ORIGIN } from '@pressroom/core';
import { isPublicAddress } from '@pressroom/domain';

/** What the network guard does with one request a page makes. */
export type RequestDecision =
  /** data:, blob:, about: — answered inside the browser, nothing leaves it. */
  | { kind: 'pass' }
  /** https to a host the operator allows: fetched by the guard after its addresses are checked. */
  | { kind: 'fetch'; url: URL }
  /** The tenant's asset `name` under ASSET_ORIGIN: answered from the job's AssetSource, never the network. */
  | { kind: 'asset'; name: string }
  | { kind: 'block'; reason: string };

/**
 * Names that reach the machine itself or a cloud metadata service whatever DNS says, refused even
 * when an operator lists them (a typo in allowedHosts must not open the metadata endpoint).
 */
const ALWAYS_BLOCKED_NAMES = ['localhost', 'metadata', 'metadata.google.internal', 'instance-data'];

/**
 * The render network policy of the architecture brief: `data:`, `blob:` and `about:` pass; `file:`
 * and every other scheme are refused; https is allowed only to hosts in `allowedHosts` (exact,
 * case-insensitive names; no wildcards) and never to loopback, private, link-local or metadata
 * addresses. Plain http is refused even for allowed hosts: a page must not be able to downgrade.
 * URLs under ASSET_ORIGIN (a reserved .invalid name that no DNS answers) are the job's assets.
 */
export class NetworkPolicy {
  readonly #allowed: ReadonlySet<string>;

  constructor(allowedHosts: readonly string[] = []) {
    this.#allowed = new Set(allowedHosts.map(normalizeHost));
  }

  decide(rawUrl: string): RequestDecision {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return { kind: 'block', reason: 'unparsable URL' };
    }
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.protocol === 'about:') return { kind: 'pass' };
    if (url.protocol !== 'https:') return { kind: 'block', reason: `scheme ${url.protocol} is not allowed` };
    if (url.origin === ASSET_ORIGIN) return assetDecision(url);
    if (url.username || url.password) return { kind: 'block', reason: 'credentials in URL' };
    const host = normalizeHost(url.hostname);
    if (isAlwaysBlockedName(host)) return { kind: 'block', reason: `host ${host} is never reachable` };
    if (isIP(host) && !isPublic(host)) return { kind: 'block', reason: `address ${host} is not public` };
    if (!this.#allowed.has(host)) return { kind: 'block', reason: `host ${host} is not in allowedHosts` };
    return { kind: 'fetch', url };
  }

  /** True when every address a name resolved to is public; an empty answer is not. */
  addressesArePublic(addresses: readonly string[]): boolean {
    return addresses.length > 0 && addresses.every((a) => isPublic(a));
  }
}

/** Lower-case, without the trailing dot of a fully qualified name or the brackets of an IPv6 literal. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

/**
 * The URL parser writes an IPv4-mapped IPv6 literal in hex (`[::ffff:127.0.0.1]` becomes
 * `::ffff:7f00:1`), a form isPublicAddress does not recognise as mapped; the deprecated
 * IPv4-compatible form (`::7f00:1`) reaches the same IPv4 host on some stacks. Both are judged by
 * the IPv4 address they embed.
 */
function isPublic(address: string): boolean {
  const embedded = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (embedded?.[1] && embedded[2]) {
    const hi = parseInt(embedded[1], 16);
    const lo = parseInt(embedded[2], 16);
    return isPublicAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return isPublicAddress(address);
}

/** The asset name is the path after the origin, percent-decoded; query and fragment are ignored. */
function assetDecision(url: URL): RequestDecision {
  if (url.username || url.password) return { kind: 'block', reason: 'credentials in URL' };
  try {
    return { kind: 'asset', name: decodeURIComponent(url.pathname.slice(1)) };
  } catch {
    return { kind: 'block', reason: 'undecodable asset name' };
  }
}

function isAlwaysBlockedName(host: string): boolean {
  return ALWAYS_BLOCKED_NAMES.some((name) => host === name || host.endsWith(`.${name}`));
}
