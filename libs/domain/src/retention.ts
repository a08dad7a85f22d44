import type { Plan } from '@pressroom/schemas';
import { payloadKey } from './payloads.ts';

/** How long each plan keeps a render's files in our own storage; a plan not listed keeps them. */
export type RetentionPolicy = Partial<Record<Plan, number>>;

/** One object of our own storage, as a listing shows it. */
export interface StoredObject {
  key: string;
  lastModified: Date;
}

/**
 * The render an object of our own storage belongs to, from its key alone (artifact-key.ts):
 * `<tenant>/<requestId>.<ext>`, `<tenant>/<requestId>.<ext>.debug.json` (debug report) and
 * `<tenant>/<requestId>/<file>` (tool outputs). Undefined for anything else: assets
 * (`<tenant>/assets/…`), uploads and whatever is not a render's, which retention never touches.
 */
export function renderOfObjectKey(key: string): { tenantId: string; requestId: string } | undefined {
  const match = /^([^/]+)\/([^/.]+)(?:[./].*)?$/.exec(key);
  if (!match) return undefined;
  const [, tenantId, requestId] = match as unknown as [string, string, string];
  // Render ids are UUIDs; anything else beside them (assets/, uploads/) is not a render's file.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(requestId)) return undefined;
  return { tenantId, requestId };
}

/**
 * Whether an object has outlived its tenant's retention. Decided on the object's own
 * timestamp (the time it was stored, which is when the render finished), so the sweeper
 * needs no view: a listing of the storage is enough, and a rebuilt view changes nothing.
 */
export function isExpired(args: { lastModified: Date; now: Date; retentionMs: number | undefined }): boolean {
  if (args.retentionMs === undefined) return false;
  return args.now.getTime() - args.lastModified.getTime() >= args.retentionMs;
}

/**
 * When a render id was made, for the ids Pressroom makes (UUIDv7: the first 48 bits are
 * milliseconds since the epoch); undefined for any other id (a v4 id, an imported one).
 */
export function requestIdTime(requestId: string): number | undefined {
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.exec(requestId);
  return match ? parseInt(`${match[1]}${match[2]}`, 16) : undefined;
}

/**
 * How far the clocks of the processes that mint render ids and store files may differ: a render's
 * files are stored after its id was made, give or take that.
 */
export const ID_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Which objects of our own storage surely belong to a render that no retention of `policy` can
 * have run out for yet, from their keys alone: its id was made less than the shortest retention
 * ago (less the clock skew), and its files were stored after that. The sweep leaves such objects
 * out before any other work: without this it read (and, on the local disk, stat-ed) every stored
 * file each minute and held them all in memory, work and memory that grew with everything kept
 * (with a 30-day retention, a month of renders), which the soak saw as the service's RSS growing.
 * False when unsure (not a render's key, an id that carries no time, no retention at all): those
 * are decided on the object's own timestamp, as before. The shortest retention is found once per
 * sweep, not once per stored file.
 */
export function tooYoungToExpire(args: { now: Date; policy: RetentionPolicy }): (key: string) => boolean {
  const retentions = Object.values(args.policy).filter((ms): ms is number => ms !== undefined);
  if (retentions.length === 0) return () => false;
  const youngestExpirable = args.now.getTime() + ID_CLOCK_SKEW_MS - Math.min(...retentions);
  return (key) => {
    const render = renderOfObjectKey(key);
    const madeAt = render && requestIdTime(render.requestId);
    return madeAt !== undefined && madeAt > youngestExpirable;
  };
}

/** A render whose files outlived its tenant's plan (expiredRenders). */
export interface ExpiredRender {
  tenantId: string;
  requestId: string;
  keys: string[];
  /**
   * Only the request's stored payload is there (payloads.ts): the render is waiting, rendering,
   * withdrawn or failed. Removed only once its outcome is known: a queued request's payload is
   * what it will be rendered from.
   */
  payloadOnly: boolean;
}

/**
 * Which renders' files a sweep removes: the expired renders of our own storage, grouped by
 * render. `planOf` answers the tenant's plan (undefined: unknown tenant, kept: never guess).
 *
 * The retention counts from the render's outcome, the time its files were stored: the stored
 * payload (written when the request was accepted, maybe long before it was rendered) does not
 * count while the render has files of its own. A render with only its payload is expired when
 * the payload outlived the retention, flagged `payloadOnly`: the sweeper removes it only once the
 * render has an outcome. A render is removed whole (payload included), so a removal is one event.
 */
export function expiredRenders(
  objects: readonly StoredObject[],
  args: { now: Date; policy: RetentionPolicy; planOf: (tenantId: string) => Plan | undefined },
): ExpiredRender[] {
  // Per render: its keys, whether it has files of its own (outputs) and whether one of them
  // expired, and whether its stored payload expired (what decides for a render with only that).
  const byRender = new Map<
    string,
    { tenantId: string; requestId: string; keys: string[]; outputs: boolean; expired: boolean; payloadExpired: boolean }
  >();
  for (const o of objects) {
    const render = renderOfObjectKey(o.key);
    if (!render) continue;
    const plan = args.planOf(render.tenantId);
    const retentionMs = plan === undefined ? undefined : args.policy[plan];
    const id = `${render.tenantId}/${render.requestId}`;
    const entry = byRender.get(id) ?? { ...render, keys: [], outputs: false, expired: false, payloadExpired: false };
    entry.keys.push(o.key);
    const expired = isExpired({ lastModified: o.lastModified, now: args.now, retentionMs });
    if (o.key === payloadKey(render.tenantId, render.requestId)) entry.payloadExpired = expired;
    else {
      entry.outputs = true;
      entry.expired ||= expired;
    }
    byRender.set(id, entry);
  }
  return [...byRender.values()]
    .filter((r) => (r.outputs ? r.expired : r.payloadExpired))
    .map(({ tenantId, requestId, keys, outputs }) => ({ tenantId, requestId, keys: keys.sort(), payloadOnly: !outputs }));
}

/** A retention as configuration writes it: a whole number with a unit (`s`, `m`, `h`, `d`), or `forever`. */
export const RETENTION_PATTERN = '^([1-9][0-9]*[smhd]|forever)$';

/**
 * A retention in milliseconds, from its text (`30d`, `12h`, `2s`); undefined for `forever`.
 * Throws naming the text, so a bad plan stops the process at start.
 */
export function parseRetention(text: string): number | undefined {
  if (text === 'forever') return undefined;
  const units: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const match = /^([1-9]\d*)([smhd])$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a retention (a whole number with a unit s, m, h, d, e.g. 30d; or forever).`);
  const [, amount, unit] = match as unknown as [string, string, string];
  return Number(amount) * (units[unit] ?? 0);
}

/**
 * The one retention policy: each plan's `retention` (PRESSROOM_PLANS), which decides for a
 * render's files, previews, tool outputs and stored request payload alike. A plan kept
 * `forever` is left out (nothing of it expires).
 */
export function retentionPolicy(plans: Readonly<Partial<Record<Plan, { retention: string }>>>): RetentionPolicy {
  const policy: RetentionPolicy = {};
  for (const [plan, limits] of Object.entries(plans) as [Plan, { retention: string }][]) {
    const ms = parseRetention(limits.retention);
    if (ms !== undefined) policy[plan] = ms;
  }
  return policy;
}
