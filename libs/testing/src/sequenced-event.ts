import { randomUUID } from 'node:crypto';
import type { WebhookDelivered } from '@pressroom/schemas';

/**
 * A small valid log event that carries `seq` (in `data.durationMs`), so a test of an EventLog
 * adapter can check the order its records come back in.
 */
export function sequencedEvent(seq: number, requestId: string = randomUUID(), tenantId = 'tenant-test'): WebhookDelivered {
  return {
    eventId: randomUUID(),
    type: 'WebhookDelivered',
    version: 1,
    occurredAt: new Date().toISOString(),
    requestId,
    tenantId,
    data: { url: 'https://example.test/hook', statusCode: 200, durationMs: seq, renderStatus: 'SUCCESS' },
  };
}
