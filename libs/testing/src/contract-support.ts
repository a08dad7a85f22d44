import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createFileEventLog, topicNames, type EventLog, type TopicNames } from '@pressroom/core';
import type { PressroomEvent } from '@pressroom/schemas';

/**
 * A contract suite's spaces: each test opens its own through the returned function, and every
 * space opened is disposed after the test, so no test sees another's data. Call inside `describe`.
 */
export function spacesPerTest<S extends { dispose(): Promise<void> }>(createSpace: () => Promise<S>): () => Promise<S> {
  const spaces: S[] = [];
  afterEach(async () => {
    await Promise.all(spaces.splice(0).map((s) => s.dispose()));
  });
  return async () => {
    const space = await createSpace();
    spaces.push(space);
    return space;
  };
}

/**
 * Runs `use` on a file event log in a fresh temporary folder with the service's topic names (prefix
 * `contract`), then closes the log and removes the folder, whatever `use` did.
 */
export async function withFileLog<T>(name: string, use: (file: { log: EventLog; topics: TopicNames }) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `pressroom-${name}-`));
  const log = await createFileEventLog({ dir });
  try {
    return await use({ log, topics: topicNames('contract') });
  } finally {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
}

type RequestEventOf<T extends PressroomEvent['type']> = Extract<PressroomEvent, { type: T }>;

/**
 * An event of one request as the log holds it (a fresh eventId, version 1), for the contract
 * suites' givens: `requestEvent('RenderFailed', { requestId, tenantId, occurredAt }, data)`.
 */
export function requestEvent<T extends PressroomEvent['type']>(
  type: T,
  of: { requestId: string; tenantId: string; occurredAt: string },
  data: RequestEventOf<T>['data'],
): RequestEventOf<T> {
  return { eventId: randomUUID(), type, version: 1, ...of, data } as RequestEventOf<T>;
}
