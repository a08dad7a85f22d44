import { goneUrlOf, isWebhookEvent, withdrawsWebhook, type DeliveryRecord } from '@pressroom/domain';
import type { PressroomEvent } from '@pressroom/schemas';
import type { DeliveryStore } from '../ports/delivery-store.ts';

/**
 * The embedded profile's deliveries: in memory, rebuilt from the log when first used after
 * the process started (see `selfRebuildingDeliveries`). One process, so a Map is the whole story.
 */
export function createMemoryDeliveryStore(): DeliveryStore {
  const records = new Map<string, DeliveryRecord & { eventIds: Set<string> }>();
  const gone = new Set<string>();
  const due = new Map<string, number>();
  let built = false;
  const goneKey = (tenantId: string, url: string) => JSON.stringify([tenantId, url]);

  function recordOf(e: PressroomEvent) {
    let r = records.get(e.requestId);
    if (!r) records.set(e.requestId, (r = { requestId: e.requestId, tenantId: e.tenantId, events: [], eventIds: new Set() }));
    return r;
  }

  return {
    async apply(e) {
      if (e.type === 'RenderSucceeded' || e.type === 'RenderFailed' || e.type === 'BatchCompleted' || withdrawsWebhook(e)) {
        const r = recordOf(e);
        r.completion ??= structuredClone(e);
      } else if (isWebhookEvent(e)) {
        const r = recordOf(e);
        if (r.eventIds.has(e.eventId)) return;
        r.eventIds.add(e.eventId);
        r.events.push(structuredClone(e));
        const url = goneUrlOf(e);
        if (url) gone.add(goneKey(e.tenantId, url));
      }
    },
    async get(requestId) {
      const r = records.get(requestId);
      if (!r) return undefined;
      return structuredClone({
        requestId: r.requestId,
        tenantId: r.tenantId,
        ...(r.completion ? { completion: r.completion } : {}),
        events: r.events,
      });
    },
    async listCompleted(tenantId, fromMs, toMs) {
      return [...records.values()]
        .filter((r) => r.tenantId === tenantId && r.completion && r.completion.type !== 'RenderWithdrawn')
        .map((r) => ({ id: r.requestId, at: Date.parse(r.completion!.occurredAt) }))
        .filter((r) => r.at >= fromMs && r.at < toMs)
        .sort((a, b) => a.at - b.at)
        .map((r) => r.id);
    },
    async isGone(tenantId, url) {
      return gone.has(goneKey(tenantId, url));
    },
    async schedule(requestId, dueAtMs, opts) {
      if (opts?.ifAbsent && due.has(requestId)) return;
      due.set(requestId, dueAtMs);
    },
    async claimDue(nowMs, leaseMs, limit) {
      const claimed = [...due]
        .filter(([, at]) => at <= nowMs)
        .sort((a, b) => a[1] - b[1])
        .slice(0, limit)
        .map(([id]) => id);
      for (const id of claimed) due.set(id, nowMs + leaseMs);
      return claimed;
    },
    async nextDueAt() {
      let min: number | undefined;
      for (const at of due.values()) if (min === undefined || at < min) min = at;
      return min;
    },
    async unschedule(requestId) {
      due.delete(requestId);
    },
    async clear() {
      records.clear();
      gone.clear();
      due.clear();
      built = false;
    },
    isBuilt: async () => built,
    async markBuilt() {
      built = true;
    },
    async ping() {},
    async close() {},
  };
}
