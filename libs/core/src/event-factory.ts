import type { PressroomEvent, TemplateEvent } from '@pressroom/schemas';
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

type TemplatePayload<T extends TemplateEvent['type']> = Extract<TemplateEvent, { type: T }>['data'];

/** Builds template events (key: templateId); time and ids come from the ports. */
export function createTemplateEventFactory(deps: { clock: Clock; ids: Ids }) {
  return function templateEvent<T extends TemplateEvent['type']>(
    type: T,
    ids: { templateId: string; tenantId: string },
    data: TemplatePayload<T>,
  ): Extract<TemplateEvent, { type: T }> {
    return {
      eventId: deps.ids.next(),
      type,
      version: 1,
      occurredAt: deps.clock.now().toISOString(),
      templateId: ids.templateId,
      tenantId: ids.tenantId,
      data,
    } as Extract<TemplateEvent, { type: T }>;
  };
}
export type TemplateEventFactory = ReturnType<typeof createTemplateEventFactory>;
