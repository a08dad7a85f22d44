// node:crypto only for SHA-256: a pure function of its input, no I/O.
import { createHash } from 'node:crypto';
import { canonicalJson } from './idempotency.ts';

/**
 * Bump when what a render produces from the same inputs changes for a reason the key does not
 * see (the renderer's page setup, the template runtime): every older entry then misses.
 */
export const RENDER_CACHE_FORMAT = 1;

/** Everything a render's bytes depend on; two renders with equal inputs print equal files. */
export interface RenderCacheInputs {
  /** Part of the key: a tenant never gets another tenant's file, whatever it sends. */
  tenantId: string;
  /** The request's source as on the log: HTML, or the template version's content, header, footer and the data. */
  source: unknown;
  output: string;
  pdfParams?: unknown;
  pdfMetadata?: unknown;
  ready?: unknown;
  /** The plan's PNG pixel cap (a PNG over it fails; under it, the same bytes). */
  maxPngPixels?: number | undefined;
  /** The plan's PNG page cap (a PNG stacking more sheets fails; under it, the same bytes). */
  maxPngPages?: number | undefined;
  /** The tenant's uploaded assets by name and content hash (a page may load any of them). */
  assets: readonly { name: string; sha256: string }[];
  /** The browser that prints (`chromium --version`): another build may lay out differently. */
  chromium: string;
}

/**
 * The content key of a render: SHA-256 (hex) of its inputs as canonical JSON (members sorted,
 * so the order a caller wrote its data in does not matter; assets sorted by name). Pure: the
 * same inputs give the same key in every process.
 */
export function renderCacheKey(inputs: RenderCacheInputs): string {
  const assets = [...inputs.assets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((a) => [a.name, a.sha256]);
  const canonical = canonicalJson({
    format: RENDER_CACHE_FORMAT,
    tenantId: inputs.tenantId,
    source: inputs.source,
    output: inputs.output,
    pdfParams: inputs.pdfParams ?? null,
    pdfMetadata: inputs.pdfMetadata ?? null,
    ready: inputs.ready ?? null,
    maxPngPixels: inputs.maxPngPixels ?? null,
    maxPngPages: inputs.maxPngPages ?? null,
    assets,
    chromium: inputs.chromium,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** What the worker knows about a request when deciding whether the cache may serve it. */
export interface RenderCacheRequest {
  /** The tenant's plan includes the cache (PRESSROOM_PLANS renderCache; default off). */
  planAllows: boolean;
  /** The caller sent `cache: false`. */
  optedOut: boolean;
  /** Only renders of HTML or a template; a PDF tool's output is not a render. */
  sourceKind: string;
  /** Where the file goes: only our own storage (a copy there is ours to make and to delete). */
  storageKind: string;
  /** A debug render wants the HTML its own run printed. */
  debug: boolean;
  /** A PDF tool's request (markdown → PDF). */
  tool: boolean;
  /** The browser's version is known (it is part of the key). */
  chromiumKnown: boolean;
}

export type RenderCacheUse = { use: true } | { use: false; reason: string };

/**
 * Whether a request may be served from the render cache (and recorded in it). Off unless the
 * plan includes it and the caller did not opt out; never for what the key cannot describe.
 */
export function renderCacheUse(r: RenderCacheRequest): RenderCacheUse {
  if (!r.planAllows) return { use: false, reason: 'plan' };
  if (r.optedOut) return { use: false, reason: 'opted-out' };
  if (r.sourceKind !== 'html' && r.sourceKind !== 'template') return { use: false, reason: 'source' };
  if (r.tool) return { use: false, reason: 'tool' };
  if (r.debug) return { use: false, reason: 'debug' };
  if (r.storageKind !== 'default') return { use: false, reason: 'storage' };
  if (!r.chromiumKnown) return { use: false, reason: 'chromium-unknown' };
  return { use: true };
}
