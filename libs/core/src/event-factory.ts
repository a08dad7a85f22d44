import type { PressroomEvent } from '@pressroom/schemas';
import type { Clock, Ids } from './ports/clock.ts';

type Payload<T extends PressroomEvent['type']> = Extract<PressroomEvent, { type: T }>['data'];

/** Builds envelopes; time and ids come from the ports so tests can fix them. */
export function createEventFactory(deps: { clock: Clock; ids: Ids }) {
  return function event<T extends PressroomEvent['type']>(
    type: T,
    ids: { requestId: string; tenantId: string },
    data: Payload<T>,
  ): Extract<PressroomEvent, { type: T }> {
    return {
      eventId: deps.ids.next(),
      type,
      version: 1,
      occurredAt: deps.clock.now().toISOString(),
      requestId: ids.requestId,
      tenantId: ids.tenantId,
      data,
    } as Extract<PressroomEvent, { type: T }>;
  };
}
export type EventFactory = ReturnType<typeof createEventFactory>;
