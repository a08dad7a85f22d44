import { PressroomError } from './errors.ts';

/**
 * What a decider answers: the events to append, and the version the entity's stream must
 * still be at when they are appended (its number of events so far). The append checks that
 * version, so a decision taken on a stale state is refused (409), never silently applied.
 */
export interface Decision<E> {
  events: E[];
  expectedVersion: number;
}

/** Identity and time of the events a decision creates: chosen by the caller, so a decider stays pure. */
export interface EventMeta {
  eventId: string;
  occurredAt: string;
}

/** Conflict happens when a write was decided on a version of an entity that is no longer current. */
export function versionConflict(what: string, expected: number, actual?: number): PressroomError {
  const now = actual === undefined ? '' : ` (it is at version ${actual}, the write expected ${expected})`;
  return new PressroomError('CONFLICT', `${what} was changed by another request${now}; read it again and retry.`, {
    details: [{ field: 'version', message: `expected ${expected}${actual === undefined ? '' : `, found ${actual}`}` }],
  });
}

export function isDecision<E>(d: Decision<E> | PressroomError): d is Decision<E> {
  return !(d instanceof PressroomError);
}
