import type { LogEvent } from '@pressroom/schemas';
import type { EventLog, TopicNames } from '@pressroom/core';
import { ID_CLOCK_SKEW_MS, requestIdTime, templateOfSource } from '@pressroom/domain';

/** One event of a render's history, as the API shows it. */
export interface HistoryEvent {
  eventId: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** `GET /v1/pdf/{requestId}/events`. */
export interface RenderHistory {
  requestId: string;
  renderStatus: 'ONGOING' | 'SUCCESS' | 'FAILED';
  externalId?: string;
  template?: { templateId: string; templateVersion: number };
  chromium?: string;
  events: HistoryEvent[];
}

/** One line of `GET /v1/renders`. */
export interface RenderSummary {
  requestId: string;
  requestedAt: string;
  mode: string;
  output: string;
  renderStatus: 'ONGOING' | 'SUCCESS' | 'FAILED';
  externalId?: string;
  template?: { templateId: string; templateVersion: number };
  completedAt?: string;
}

const renderTopics = (t: TopicNames) => [t.requestedSync, t.requestedAsync, t.completed, t.webhooks];

/** The caller's `externalId` on a request, when the request carries one (read from the event's data). */
function externalIdOf(event: LogEvent): string | undefined {
  const id = (event.data as { externalId?: unknown }).externalId;
  return typeof id === 'string' ? id : undefined;
}

function templateOf(event: LogEvent): RenderSummary['template'] {
  return event.type === 'RenderRequested' ? templateOfSource(event.data.source) : undefined;
}

/**
 * What the history shows of an event's data: everything but the document itself (a template's
 * `data`, an HTML body), which is the tenant's content, not history.
 */
function shown(event: LogEvent): Record<string, unknown> {
  if (event.type !== 'RenderRequested') return event.data;
  const { source, ...rest } = event.data;
  const { kind } = source;
  // A stored payload shows its hash and size (what identifies it), never its key or content.
  const slim =
    source.kind === 'stored'
      ? { kind: source.of, ...templateOfSource(source), payload: { sha256: source.payload.sha256, bytes: source.payload.bytes } }
      : source.kind === 'template'
        ? { kind, templateId: source.templateId, templateVersion: source.templateVersion }
        : { kind };
  return { ...rest, source: slim };
}

/** The first outcome wins (as in the status view); a withdrawn request was never taken. */
function fold(events: LogEvent[]): { status: RenderSummary['renderStatus']; withdrawn: boolean; completedAt?: string } {
  for (const e of events) {
    if (e.type === 'RenderWithdrawn') return { status: 'ONGOING', withdrawn: true };
    if (e.type === 'RenderSucceeded') return { status: 'SUCCESS', withdrawn: false, completedAt: e.occurredAt };
    if (e.type === 'RenderFailed') return { status: 'FAILED', withdrawn: false, completedAt: e.occurredAt };
  }
  return { status: 'ONGOING', withdrawn: false };
}

const byTime = (a: LogEvent, b: LogEvent) => (a.occurredAt < b.occurredAt ? -1 : a.occurredAt > b.occurredAt ? 1 : 0);

/**
 * Where a history read starts on the log (EventLog.readAll's `sinceMs`): every event of a request
 * is written after the request was made, and a request made at `madeMs` by one process's clock
 * was written after `madeMs` less the clocks' difference (ID_CLOCK_SKEW_MS). So a render's
 * history is read from its id's time (a UUIDv7 id carries it) and a listing from its `from`, both
 * less that margin; an id that carries no time is read from the beginning.
 */
export function historyReadStart(madeMs: number | undefined): { sinceMs?: number } {
  return madeMs === undefined ? {} : { sinceMs: madeMs - ID_CLOCK_SKEW_MS };
}

/**
 * Histories read from the log itself (the record), not from a view: every call reads the render
 * topics from the time the history begins (historyReadStart), so its cost grows with what the log
 * holds since then: little for a recent render or the last day's listing, the whole log for a
 * render as old as the log. Meant for audit and support, not for polling.
 */
export function createHistory(deps: { log: EventLog; topics: TopicNames }) {
  return {
    /** Every event of one of the tenant's renders, in order; undefined for an unknown id, another tenant's, or a withdrawn one. */
    async ofRequest(tenantId: string, requestId: string): Promise<RenderHistory | undefined> {
      const events: LogEvent[] = [];
      await deps.log.readAll(
        renderTopics(deps.topics),
        (r) => {
          if (r.key === requestId && 'requestId' in r.event && r.event.requestId === requestId) events.push(r.event);
        },
        historyReadStart(requestIdTime(requestId)),
      );
      // Each topic keeps one request's events in order; across topics, the time they occurred orders them (stable sort).
      events.sort(byTime);
      const requested = events.find((e) => e.type === 'RenderRequested');
      if (!requested || requested.tenantId !== tenantId || events.some((e) => e.tenantId !== tenantId)) return undefined;
      const outcome = fold(events);
      if (outcome.withdrawn) return undefined;
      const chromium = events
        .map((e) => (e.type === 'RenderSucceeded' || e.type === 'RenderFailed' ? e.data.chromium : undefined))
        .find((v) => v !== undefined);
      const template = templateOf(requested);
      const externalId = externalIdOf(requested);
      return {
        requestId,
        renderStatus: outcome.status,
        ...(externalId !== undefined ? { externalId } : {}),
        ...(template ? { template } : {}),
        ...(chromium ? { chromium } : {}),
        events: events.map((e) => ({ eventId: e.eventId, type: e.type, occurredAt: e.occurredAt, data: shown(e) })),
      };
    },

    /**
     * The tenant's renders requested in [fromMs, toMs), by requestId (UUIDv7: in time order), after
     * `after` when given, at most `limit`; with `externalId`, only requests that carry it.
     */
    async list(
      tenantId: string,
      q: { fromMs: number; toMs: number; externalId?: string; after?: string; limit: number },
    ): Promise<{ renders: RenderSummary[]; next?: string }> {
      const requested = new Map<string, LogEvent>();
      const outcomes = new Map<string, LogEvent[]>();
      await deps.log.readAll(
        renderTopics(deps.topics),
        (r) => {
          const e = r.event;
          if (e.tenantId !== tenantId || !('requestId' in e)) return;
          if (e.type === 'RenderRequested') {
            const at = Date.parse(e.occurredAt);
            if (at < q.fromMs || at >= q.toMs || e.data.preview) return;
            if (q.externalId !== undefined && externalIdOf(e) !== q.externalId) return;
            if (q.after !== undefined && e.requestId <= q.after) return;
            requested.set(e.requestId, e);
          } else if (e.type === 'RenderSucceeded' || e.type === 'RenderFailed' || e.type === 'RenderWithdrawn') {
            const list = outcomes.get(e.requestId) ?? [];
            list.push(e);
            outcomes.set(e.requestId, list);
          }
        },
        historyReadStart(q.fromMs),
      );
      const renders: RenderSummary[] = [];
      for (const id of [...requested.keys()].sort()) {
        const e = requested.get(id)!;
        if (e.type !== 'RenderRequested') continue;
        const outcome = fold((outcomes.get(id) ?? []).sort(byTime));
        if (outcome.withdrawn) continue;
        if (renders.length === q.limit) return { renders, next: renders[renders.length - 1]!.requestId };
        const template = templateOf(e);
        const externalId = externalIdOf(e);
        renders.push({
          requestId: id,
          requestedAt: e.occurredAt,
          mode: e.data.mode,
          output: e.data.output,
          renderStatus: outcome.status,
          ...(externalId !== undefined ? { externalId } : {}),
          ...(template ? { template } : {}),
          ...(outcome.completedAt ? { completedAt: outcome.completedAt } : {}),
        });
      }
      return { renders };
    },
  };
}

export type History = ReturnType<typeof createHistory>;
