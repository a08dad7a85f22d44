import type { Plan } from '@pressroom/schemas';

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
 * Which renders' files a sweep removes: the expired objects of our own storage, grouped by
 * render. `planOf` answers the tenant's plan (undefined: unknown tenant, kept: never guess).
 * A render is removed whole once its oldest file expired, so a removal is one event.
 */
export function expiredRenders(
  objects: readonly StoredObject[],
  args: { now: Date; policy: RetentionPolicy; planOf: (tenantId: string) => Plan | undefined },
): { tenantId: string; requestId: string; keys: string[] }[] {
  const byRender = new Map<string, { tenantId: string; requestId: string; keys: string[]; expired: boolean }>();
  for (const o of objects) {
    const render = renderOfObjectKey(o.key);
    if (!render) continue;
    const plan = args.planOf(render.tenantId);
    const retentionMs = plan === undefined ? undefined : args.policy[plan];
    const id = `${render.tenantId}/${render.requestId}`;
    const entry = byRender.get(id) ?? { ...render, keys: [], expired: false };
    entry.keys.push(o.key);
    entry.expired ||= isExpired({ lastModified: o.lastModified, now: args.now, retentionMs });
    byRender.set(id, entry);
  }
  return [...byRender.values()]
    .filter((r) => r.expired)
    .map(({ tenantId, requestId, keys }) => ({ tenantId, requestId, keys: keys.sort() }));
}

/**
 * Reads a retention setting: `plan=duration` pairs separated by commas, a duration being a
 * whole number with a unit (`s`, `m`, `h`, `d`), e.g. `standard=7d,high=30d`. Empty: nothing
 * expires. Throws with the offending part, so a bad setting stops the process at start.
 */
export function parseRetention(value: string, plans: readonly Plan[]): RetentionPolicy {
  const policy: RetentionPolicy = {};
  const units: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)=(\d+)([smhd])$/.exec(part);
    if (!match) throw new Error(`"${part}" is not plan=duration (e.g. standard=7d; units s, m, h, d).`);
    const [, plan, amount, unit] = match as unknown as [string, string, string, string];
    if (!(plans as readonly string[]).includes(plan)) throw new Error(`"${plan}" is not a plan (${plans.join(', ')}).`);
    const ms = Number(amount) * (units[unit] ?? 0);
    if (ms <= 0) throw new Error(`"${part}": a retention must be longer than zero.`);
    policy[plan as Plan] = ms;
  }
  return policy;
}
