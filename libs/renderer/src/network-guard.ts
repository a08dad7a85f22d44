import { lookup as dnsLookup } from 'node:dns/promises';
import type { AssetSource, Logger } from '@pressroom/core';
import type { BrowserContext, Route } from 'playwright';
import type { NetworkPolicy } from './network-policy.ts';
import { pinnedFetch, type FetchedResource } from './pinned-fetch.ts';

/** Resolves a host name to every address it has (IP literals resolve to themselves). */
export type LookupAll = (host: string) => Promise<string[]>;

export const lookupAll: LookupAll = async (host) =>
  (await dnsLookup(host.replace(/^\[(.*)\]$/, '$1'), { all: true, verbatim: true })).map((a) => a.address);

/** How allowed hosts are fetched on a page's behalf. */
export interface AllowedFetchOptions {
  /** The resolver whose answer is vetted and then dialled (the system's by default). */
  lookup?: LookupAll;
  /** Redirect hops followed for one allowed request; each hop is checked like the first. */
  maxRedirects?: number;
  /** Time limit of one fetch made on the page's behalf. */
  fetchTimeoutMs?: number;
  /** Largest answer (decompressed) handed to the page for one fetch. */
  fetchMaxBytes?: number;
  /** Extra trust roots for allowed-host fetches (tests; deployments use NODE_EXTRA_CA_CERTS). */
  extraCa?: readonly string[];
}

export interface GuardOptions extends AllowedFetchOptions {
  policy: NetworkPolicy;
  logger: Logger;
  /** The assets of the job the context is rendering now; none between jobs. */
  assets?: () => AssetSource | undefined;
  /**
   * Told the origin of every request answered with content (assets, allowed hosts): the origins
   * whose documents may have run and stored something, to be cleared before the next job.
   */
  onOrigin?: (origin: string) => void;
  /**
   * Told of every request that would leave the browser (answered here or refused; not data:,
   * blob: or about:, which the browser answers itself): the document used the network.
   */
  onRequest?: () => void;
}

/**
 * Puts every request of every page in `context` under the policy. The browser itself can resolve
 * nothing (see chromiumArgs), so the only way out is through this handler: requests to allowed
 * hosts are fetched here, hop by hop, and handed to the page; everything else is aborted.
 * WebSockets never get here: the browser cannot resolve their host either. They must not be
 * routed through Playwright (context.routeWebSocket): that installs Playwright's bindings
 * (`__playwright__binding__`, `__pwWebSocketDispatch`) in every page, where tenant code can call
 * them with a payload that throws inside Playwright, outside any handler of ours.
 */
export async function guardNetwork(context: BrowserContext, options: GuardOptions): Promise<void> {
  const log = options.logger;
  await context.route('**/*', (route) => handle(route, options).catch((err) => quietAbort(route, log, err)));
}

async function handle(route: Route, options: GuardOptions): Promise<void> {
  const url = route.request().url();
  const decision = options.policy.decide(url);
  if (decision.kind === 'pass') return route.continue();
  options.onRequest?.();
  if (decision.kind === 'asset') {
    options.onOrigin?.(new URL(url).origin);
    return serveAsset(route, decision.name, options.assets?.());
  }
  if (decision.kind === 'block') {
    options.logger.debug('request blocked', { url: truncate(url), reason: decision.reason });
    return route.abort('blockedbyclient');
  }
  const request = route.request();
  let method = request.method();
  let body = request.postDataBuffer() ?? undefined;
  const headers = await request.allHeaders();
  options.onOrigin?.(decision.url.origin);
  const outcome = await followAllowed(decision.url, {
    policy: options.policy,
    lookup: options.lookup ?? lookupAll,
    maxRedirects: options.maxRedirects ?? 5,
    fetch: async (next, addresses, previous) => {
      // A 303, or a 301/302 after a POST, turns into a GET without a body, as browsers do.
      if (previous && (previous.status === 303 || ((previous.status === 301 || previous.status === 302) && method === 'POST'))) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
      }
      return pinnedFetch({
        url: next,
        addresses,
        method,
        headers,
        body,
        timeoutMs: options.fetchTimeoutMs ?? 15_000,
        maxBytes: options.fetchMaxBytes ?? 25 * 1024 * 1024,
        extraCa: options.extraCa,
      });
    },
  });
  if ('blocked' in outcome) {
    options.logger.debug('request blocked', { url: truncate(url), reason: outcome.blocked });
    return route.abort('blockedbyclient');
  }
  const { status, headers: answerHeaders, body: answerBody } = outcome.response;
  return route.fulfill({ status, headers: answerHeaders, body: answerBody });
}

/**
 * Answers a request under ASSET_ORIGIN from the job's assets: 200 with the bytes, or 404. Fonts
 * are fetched in CORS mode from the page's opaque origin, hence the wildcard; `no-store` keeps
 * Chromium's memory cache (shared by the documents of a renderer process) from handing one
 * tenant's asset to the next job that asks for the same name.
 */
async function serveAsset(route: Route, name: string, assets: AssetSource | undefined): Promise<void> {
  const headers = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
  const asset = name && assets ? await assets.get(name) : undefined;
  if (!asset) return route.fulfill({ status: 404, headers, contentType: 'text/plain', body: `no asset named ${JSON.stringify(name)}` });
  return route.fulfill({ status: 200, headers, contentType: asset.contentType, body: Buffer.from(asset.bytes) });
}

export interface FollowDeps<R> {
  policy: NetworkPolicy;
  lookup: LookupAll;
  maxRedirects: number;
  /**
   * Fetches `url` by connecting to `addresses` only (the ones this hop vetted); `previous` is the
   * redirect that led here, if any.
   */
  fetch: (url: URL, addresses: readonly string[], previous?: { status: number }) => Promise<R>;
}

type FetchedResponse = Pick<FetchedResource, 'status' | 'headers'>;

/**
 * Fetches an allowed URL without letting a redirect or a DNS answer lead somewhere the policy
 * refuses: before every hop the host is resolved once, its addresses must all be allowed, and the
 * fetch connects to the vetted address itself (pinned), so a second DNS answer (rebinding with
 * a zero TTL) never decides where the socket goes. Every Location must be allowed by the policy.
 */
export async function followAllowed<R extends FetchedResponse>(
  start: URL,
  deps: FollowDeps<R>,
): Promise<{ response: R } | { blocked: string }> {
  let url = start;
  let previous: { status: number } | undefined;
  for (let hop = 0; ; hop++) {
    const addresses = await deps.lookup(url.hostname).catch(() => []);
    if (!deps.policy.addressesAllowed(addresses)) {
      return { blocked: `${url.hostname} resolves to a non-public address (${addresses.join(', ') || 'none'})` };
    }
    const response = await deps.fetch(url, addresses, previous);
    const location = response.headers['location'];
    const status = response.status;
    if (status < 300 || status >= 400 || !location) return { response };
    previous = { status };
    if (hop >= deps.maxRedirects) return { blocked: `more than ${deps.maxRedirects} redirects` };
    const next = deps.policy.decide(new URL(location, url).href);
    if (next.kind !== 'fetch') return { blocked: `redirect to a refused URL (${next.kind === 'block' ? next.reason : next.kind})` };
    url = next.url;
  }
}

async function quietAbort(route: Route, log: Logger, err: unknown): Promise<void> {
  // The page may be gone already (a timed-out render's context is being closed): nothing to do.
  log.debug('request failed in the network guard', { url: truncate(route.request().url()), err });
  await route.abort('failed').catch(() => {});
}

function truncate(url: string): string {
  return url.length > 200 ? `${url.slice(0, 200)}…` : url;
}
