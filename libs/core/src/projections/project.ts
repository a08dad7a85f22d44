import { PressroomError, type Projection } from '@pressroom/domain';
import type { DocumentCollection, DocumentKey } from '../ports/document-store.ts';

/** Enough for the few writers one document ever has at once (ingress, projector replicas, a replay). */
const MAX_ATTEMPTS = 32;

/**
 * Applies one event to a projection's document: read it, fold the event in (`evolve`, pure),
 * compare-and-set the result against the version read; when another writer got there first,
 * read again and retry. That is WATCH/MULTI's optimistic loop, per document, for every view and
 * every adapter. Resolves with the document after the event (undefined: there is none), or
 * undefined without reading when the projection does not handle the event.
 */
export async function project<E, D>(
  documents: DocumentCollection<D>,
  projection: Projection<E, D>,
  event: unknown,
): Promise<D | undefined> {
  if (!projection.canHandle(event)) return undefined;
  const key = projection.keyOf(event);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await documents.get(key);
    const next = projection.evolve(current?.doc, event);
    if (next === undefined || next === current?.doc) return next;
    const notify = projection.announces?.(current?.doc, next) ?? false;
    const ttl = projection.ttlMsOf ? { ttlMs: projection.ttlMsOf(next) } : {};
    if (await documents.compareAndSet(key, current?.version, next, { notify, ...ttl })) return next;
  }
  const id = typeof key === 'string' ? key : `${key.group}/${key.id}`;
  throw new PressroomError('DEPENDENCY_UNAVAILABLE', `Document ${id} kept changing; gave up applying.`, { retryable: true });
}

/**
 * Applies many events at once, in order, with two round trips instead of two per event: every
 * document they touch is read in one `getMany`, each document's events are folded in memory, and
 * the results are written with one `compareAndSetMany`. A document another writer changed
 * meanwhile (its write answered false) has its events applied again one by one with `project`
 * (they are idempotent and forward-only), so nothing is lost to a concurrent writer. A document
 * announces once, when the fold from the document read to the one written is announced (for the
 * status view: it became terminal in this batch). What replays of the log use (rebuilds).
 */
export async function projectMany<E, D>(
  documents: DocumentCollection<D>,
  projection: Projection<E, D>,
  events: readonly unknown[],
): Promise<void> {
  const byKey = new Map<string, { key: DocumentKey; events: E[] }>();
  for (const event of events) {
    if (!projection.canHandle(event)) continue;
    const key = projection.keyOf(event);
    const id = typeof key === 'string' ? `s\u0000${key}` : `g\u0000${key.group}\u0000${key.id}`;
    let entry = byKey.get(id);
    if (!entry) byKey.set(id, (entry = { key, events: [] }));
    entry.events.push(event);
  }
  if (byKey.size === 0) return;
  const entries = [...byKey.values()];
  const current = await documents.getMany(entries.map((e) => e.key));
  const writes: { key: DocumentKey; expected: string | undefined; next: D; notify: boolean; ttlMs?: number; events: E[] }[] = [];
  entries.forEach((entry, i) => {
    const read = current[i];
    let doc = read?.doc;
    for (const event of entry.events) doc = projection.evolve(doc, event) ?? doc;
    if (doc === undefined || doc === read?.doc) return;
    writes.push({
      key: entry.key,
      expected: read?.version,
      next: doc,
      notify: projection.announces?.(read?.doc, doc) ?? false,
      ...(projection.ttlMsOf ? { ttlMs: projection.ttlMsOf(doc) } : {}),
      events: entry.events,
    });
  });
  if (writes.length === 0) return;
  const written = await documents.compareAndSetMany(writes);
  for (const [i, w] of writes.entries()) {
    if (written[i]) continue;
    for (const event of w.events) await project(documents, projection, event);
  }
}
