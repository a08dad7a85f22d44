import type { LogEvent, UsageDay } from '@pressroom/schemas';

/**
 * The usage of each tenant by day (UTC), folded from render outcomes: renders by outcome,
 * pages and bytes of the files, seconds spent rendering. What a billing system needs.
 *
 * A request counts once, on the day of its first outcome (a redelivered render can append a
 * second one; the status view keeps the first too). Withdrawn requests (503) have no outcome
 * and cost nothing. Batches count as their items (each item is a render); the merged file of a
 * batch is not a render of its own.
 */
export interface UsageFold {
  days: Map<string, UsageDay>;
  /** The requests already counted, with when their first outcome happened (ms), to ignore a later one. */
  counted: Map<string, number>;
}

export function emptyUsage(): UsageFold {
  return { days: new Map(), counted: new Map() };
}

/**
 * How long after a request's first outcome a second one can still arrive: a redelivered render
 * appends its outcome within the render's own deadline (minutes), so a week is a wide margin.
 * A fold that runs for long forgets the requests it counted before it (`forgetCounted`).
 */
export const USAGE_DEDUP_WINDOW_MS = 7 * 86_400_000;

export function foldUsage(usage: UsageFold, event: LogEvent): UsageFold {
  if (event.type !== 'RenderSucceeded' && event.type !== 'RenderFailed') return usage;
  if (usage.counted.has(event.requestId)) return usage;
  usage.counted.set(event.requestId, Date.parse(event.occurredAt));
  const date = event.occurredAt.slice(0, 10);
  const id = `${date}|${event.tenantId}`;
  const day = usage.days.get(id) ?? {
    date,
    tenantId: event.tenantId,
    renders: { succeeded: 0, failed: 0 },
    pages: 0,
    bytes: 0,
    renderSeconds: 0,
  };
  if (event.type === 'RenderSucceeded') {
    day.renders.succeeded += 1;
    day.pages += event.data.pages ?? 0;
    day.bytes += event.data.artifact.bytes;
  } else {
    day.renders.failed += 1;
  }
  day.renderSeconds = Math.round((day.renderSeconds + event.data.executionMs / 1000) * 1000) / 1000;
  usage.days.set(id, day);
  return usage;
}

/**
 * Forgets the counted requests whose first outcome is older than `windowMs` before `newestMs`
 * (the newest outcome folded), so a fold kept up to date for months holds a week of request
 * ids, not every request ever made. The day totals are untouched.
 */
export function forgetCounted(counted: Map<string, number>, newestMs: number, windowMs = USAGE_DEDUP_WINDOW_MS): void {
  const cutoff = newestMs - windowMs;
  for (const [requestId, at] of counted) if (at < cutoff) counted.delete(requestId);
}

/** The days of `usage` between `from` and `to` (both included), of one tenant or of all, by date then tenant. */
export function usageBetween(usage: UsageFold, args: { from: string; to: string; tenantId?: string }): UsageDay[] {
  return [...usage.days.values()]
    .filter((d) => d.date >= args.from && d.date <= args.to && (args.tenantId === undefined || d.tenantId === args.tenantId))
    .sort((a, b) => (a.date === b.date ? a.tenantId.localeCompare(b.tenantId) : a.date.localeCompare(b.date)));
}

/** Why a usage range is refused, or undefined: real days, `from` not after `to`, at most 366 days. */
export function usageRangeProblem(from: unknown, to: unknown): string | undefined {
  const day = (v: unknown) =>
    typeof v === 'string' &&
    /^\d{4}-\d{2}-\d{2}$/.test(v) &&
    !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) &&
    new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
  if (!day(from) || !day(to)) return 'from and to must be days, YYYY-MM-DD.';
  const span = (Date.parse(`${to as string}T00:00:00Z`) - Date.parse(`${from as string}T00:00:00Z`)) / 86_400_000;
  if (span < 0) return 'from must not be after to.';
  if (span > 365) return 'A usage range covers at most 366 days.';
  return undefined;
}

/**
 * Pages of a PDF, counted from its page objects (`/Type /Page`, not `/Pages`) without parsing
 * it: cheap enough for every render (no child process on the hot path). Exact for Chromium's
 * PDFs, which keep page objects uncompressed; a PDF whose objects are all in compressed object
 * streams (some tool outputs) counts 0 here.
 */
export function countPdfPages(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
}
