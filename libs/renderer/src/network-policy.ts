import { isIP } from 'node:net';
import { ASSET_ORIGIN } from '@pressroom/core';
import { addressPermitted, judgeAddress, type AddressOpenings } from '@pressroom/domain';

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

export interface NetworkPolicyOptions {
  /**
   * Allowed hosts may be on private addresses (RFC 1918, CGNAT, unique-local): asset servers on an
   * internal network. Loopback, link-local and metadata addresses stay refused.
   */
  allowPrivate?: boolean;
}

/**
 * The render network policy of the architecture brief: `data:`, `blob:` and `about:` pass; `file:`
 * and every other scheme are refused; https is allowed only to hosts in `allowedHosts` (exact,
 * case-insensitive names; no wildcards) and only to addresses the shared address policy admits
 * (global unicast; private too when the operator opens it; never loopback or metadata).
 * Plain http is refused even for allowed hosts: a page must not be able to downgrade.
 * URLs under ASSET_ORIGIN (a reserved .invalid name that no DNS answers) are the job's assets.
 */
export class NetworkPolicy {
  readonly #allowed: ReadonlySet<string>;
  readonly #open: AddressOpenings;

  constructor(allowedHosts: readonly string[] = [], options: NetworkPolicyOptions = {}) {
    this.#allowed = new Set(allowedHosts.map(normalizeHost));
    this.#open = { private: options.allowPrivate === true, loopback: false };
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
    if (isIP(host) && !this.addressAllowed(host))
      return { kind: 'block', reason: `address ${host} is not public (${judgeAddress(host).why})` };
    if (!this.#allowed.has(host)) return { kind: 'block', reason: `host ${host} is not in allowedHosts` };
    return { kind: 'fetch', url };
  }

  /** One address an allowed host resolved to, judged by the shared address policy. */
  addressAllowed(address: string): boolean {
    return addressPermitted(address, this.#open);
  }

  /** True when every address a name resolved to is allowed; an empty answer is not. */
  addressesAllowed(addresses: readonly string[]): boolean {
    return addresses.length > 0 && addresses.every((a) => this.addressAllowed(a));
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
