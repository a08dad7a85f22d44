import { lookup as dnsLookup } from 'node:dns/promises';
import type { AssetSource, Logger } from '@pressroom/core';
import type { APIResponse, BrowserContext, Route } from 'playwright';
import type { NetworkPolicy } from './network-policy.ts';

/** Resolves a host name to every address it has (IP literals resolve to themselves). */
export type LookupAll = (host: string) => Promise<string[]>;

export const lookupAll: LookupAll = async (host) =>
  (await dnsLookup(host.replace(/^\[(.*)\]$/, '$1'), { all: true, verbatim: true })).map((a) => a.address);

export interface GuardOptions {
  policy: NetworkPolicy;
  logger: Logger;
  lookup?: LookupAll;
  /** Redirect hops followed for one allowed request; each hop is checked like the first. */
  maxRedirects?: number;
  /** Time limit of one fetch made on the page's behalf. */
  fetchTimeoutMs?: number;
  /** The assets of the job the context is rendering now; none between jobs. */
  assets?: () => AssetSource | undefined;
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
  if (decision.kind === 'asset') return serveAsset(route, decision.name, options.assets?.());
  if (decision.kind === 'block') {
    options.logger.debug('request blocked', { url: truncate(url), reason: decision.reason });
    return route.abort('blockedbyclient');
  }
  const outcome = await followAllowed(decision.url, {
    policy: options.policy,
    lookup: options.lookup ?? lookupAll,
    maxRedirects: options.maxRedirects ?? 5,
    fetch: (next) => route.fetch({ url: next.href, maxRedirects: 0, timeout: options.fetchTimeoutMs ?? 15_000 }),
  });
  if ('blocked' in outcome) {
    options.logger.debug('request blocked', { url: truncate(url), reason: outcome.blocked });
    return route.abort('blockedbyclient');
  }
  return route.fulfill({ response: outcome.response });
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
  fetch: (url: URL) => Promise<R>;
}

type FetchedResponse = Pick<APIResponse, 'status' | 'headers'>;

/**
 * Fetches an allowed URL without letting a redirect or a DNS answer lead somewhere the policy
 * refuses: before every hop the host's addresses must all be public, and every Location must be
 * allowed by the policy itself. A name that resolves differently between our lookup and the
 * fetch's own (DNS rebinding with a zero TTL) is not covered; allowed hosts are operator-chosen.
 */
export async function followAllowed<R extends FetchedResponse>(
  start: URL,
  deps: FollowDeps<R>,
): Promise<{ response: R } | { blocked: string }> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const addresses = await deps.lookup(url.hostname).catch(() => []);
    if (!deps.policy.addressesArePublic(addresses)) {
      return { blocked: `${url.hostname} resolves to a non-public address (${addresses.join(', ') || 'none'})` };
    }
    const response = await deps.fetch(url);
    const location = response.headers()['location'];
    const status = response.status();
    if (status < 300 || status >= 400 || !location) return { response };
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
