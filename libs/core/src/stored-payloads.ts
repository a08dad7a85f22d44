import { createHash } from 'node:crypto';
import type { RenderRequested, RenderSource } from '@pressroom/schemas';
import { isStorablePayload, payloadKey, PressroomError, readBackPayload, storedSourceOf, type PayloadRef } from '@pressroom/domain';
import type { ObjectStore } from './ports/object-store.ts';
import type { PayloadCopies } from './ports/payload-copies.ts';

/** Attempts of the ingress's put, with the waits between them (all within the request's acceptBy). */
const PUT_WAITS_MS = [100, 400];
/** Largest payload read back: the door bounds an HTML body and template data far below this. */
const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

/** How often a worker reads again a payload its ingress may still be storing (see resolve). */
const MISSING_PAYLOAD_POLL_MS = 100;

/** Settles when `copied` resolves true or `stored` settles (a copy that failed leaves it to `stored`). */
function firstOf(copied: Promise<boolean> | undefined, stored: Promise<void>): Promise<void> {
  if (!copied) return stored;
  return new Promise<void>((resolve, reject) => {
    void copied.then((ok) => ok && resolve());
    stored.then(resolve, reject);
  });
}

/** Bytes of payloads a handoff holds at most (the oldest go first); a payload it dropped is read back from storage. */
const HANDOFF_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Payloads this process's ingress is storing or stored, held for its own render worker when the
 * ingress and the worker share a process (the standalone service): the worker takes the source
 * from memory instead of reading the file back, parsing it and hashing it again. An entry is what
 * `stage` hashed and is writing; it is taken once, and only for a reference with the same key,
 * hash and size. Bounded by bytes (a payload stored for a request that was then refused is never
 * taken): the oldest go.
 */
export interface PayloadHandoff {
  /** `stored` settles when the ingress's put does (it may still run when the worker takes the entry). */
  hold(ref: PayloadRef, source: RenderSource, stored?: Promise<void>): void;
  take(ref: PayloadRef): HandedPayload | undefined;
}

/** A payload handed over in memory, and whether the ingress's put of it has succeeded yet. */
export interface HandedPayload {
  source: RenderSource;
  /** True once the put succeeded; false while it runs, or when it failed (the ingress then withdraws the request). */
  stored: boolean;
}

export function createPayloadHandoff(opts: { maxBytes?: number } = {}): PayloadHandoff {
  const maxBytes = opts.maxBytes ?? HANDOFF_MAX_BYTES;
  const held = new Map<string, { ref: PayloadRef; handed: HandedPayload }>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = held.get(key);
    if (!entry) return;
    held.delete(key);
    bytes -= entry.ref.bytes;
  };
  return {
    hold(ref, source, stored = Promise.resolve()) {
      if (ref.bytes > maxBytes) return;
      drop(ref.key);
      const handed: HandedPayload = { source, stored: false };
      stored.then(
        () => (handed.stored = true),
        () => {},
      );
      held.set(ref.key, { ref, handed });
      bytes += ref.bytes;
      for (const key of held.keys()) {
        if (bytes <= maxBytes) break;
        drop(key);
      }
    },
    take(ref) {
      const entry = held.get(ref.key);
      if (!entry) return undefined;
      drop(ref.key);
      return entry.ref.sha256 === ref.sha256 && entry.ref.bytes === ref.bytes ? entry.handed : undefined;
    },
  };
}

/** Requests as they go on the log, and the puts of their payloads. */
export interface StagedPayloads {
  /** Each request with a `stored` reference (hash and size) instead of its payload. */
  requests: RenderRequested[];
  /**
   * Settles when every payload is in storage; rejects DEPENDENCY_UNAVAILABLE when one could not
   * be stored. Already settled when `stage` resolves, unless the payloads are handed over in memory.
   */
  stored: Promise<void>;
}

/**
 * Request payloads in our own storage instead of on the log (PRESSROOM_PAYLOADS=store). The
 * stored bytes are the source as JSON, exactly what payloadFingerprint hashes, so the hash on a
 * RenderRequested's reference and on its outcome are the same. With a `handoff` shared by the
 * ingress and the worker of one process, `stage` holds each payload there as its put starts and
 * `resolve` takes it from there (see PayloadHandoff). With `copies` (processes apart: the
 * distributed profile), `stage` also copies each sync request's payload there and `resolve`
 * takes a copy before it reads the object (see PayloadCopies).
 */
export function createStoredPayloads(deps: {
  own: ObjectStore;
  sleep?: (ms: number) => Promise<void>;
  handoff?: PayloadHandoff;
  copies?: PayloadCopies;
}) {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  /** Puts with a retry (a storage blip is waited out), giving up at `deadlineMs` or after the last attempt. */
  async function put(key: string, bytes: Uint8Array, deadlineMs: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await deps.own.put(key, bytes, 'application/json');
        return;
      } catch (err) {
        const wait = PUT_WAITS_MS[attempt];
        if (wait === undefined || Date.now() + wait >= deadlineMs) {
          throw new PressroomError(
            'DEPENDENCY_UNAVAILABLE',
            "The request's payload could not be stored; nothing was accepted. Try again.",
            {
              retryable: true,
              cause: err,
            },
          );
        }
        await sleep(wait);
      }
    }
  }

  return {
    /**
     * Stages the payload of each request that has one: its put starts, and the requests come back
     * as they go on the log, with a `stored` reference instead of the payload. Called before the
     * append, which need not wait for the put wherever the worker can take the payload without
     * the object: it resolves once each payload is handed over in memory (a handoff: the worker
     * in this process), copied (a sync request's copy written: a worker elsewhere takes it), or
     * stored. The worker then renders while the put finishes (issue 13: the put was ~1 ms of an
     * embedded sync render at concurrency 1, ~3 ms of a distributed one); the caller answers only
     * once `stored` has settled, and withdraws the requests if it rejects or comes too late.
     */
    async stage(requests: RenderRequested[], deadlineMs: number): Promise<StagedPayloads> {
      const puts: Promise<void>[] = [];
      const takeable: Promise<void>[] = [];
      const staged = requests.map((requested) => {
        const source = requested.data.source;
        if (!isStorablePayload(source)) return requested;
        const bytes = Buffer.from(JSON.stringify(source), 'utf8');
        const ref: PayloadRef = {
          key: payloadKey(requested.tenantId, requested.requestId),
          sha256: createHash('sha256').update(bytes).digest('hex'),
          bytes: bytes.byteLength,
        };
        // Sync requests only get a copy: their worker takes it within moments, so Redis holds few
        // at a time; an async backlog (thousands queued) would hold its payloads in Redis's memory.
        // A copy not kept (too large, Redis away) only means the append waits for the object.
        const copied = requested.data.mode === 'sync' && deps.copies ? deps.copies.put(ref.key, bytes).catch(() => false) : undefined;
        const stored = put(ref.key, bytes, deadlineMs);
        stored.catch(() => {}); // the caller awaits `stored`; a request refused before that never does
        deps.handoff?.hold(ref, source, stored);
        puts.push(stored);
        if (!deps.handoff) takeable.push(firstOf(copied, stored));
        return { ...requested, data: { ...requested.data, source: storedSourceOf(source, ref) } };
      });
      const stored = Promise.all(puts).then(() => undefined);
      stored.catch(() => {});
      await Promise.all(takeable);
      return { requests: staged, stored };
    },

    /**
     * The source to render: an inline one as it is (older events, PRESSROOM_PAYLOADS=inline), a
     * stored one read back and checked against its hash. A failed read rejects (storage down: the
     * caller retries); a missing object is PAYLOAD_REMOVED.
     */
    async resolve(
      source: RenderSource,
      /** `storedBy`: until when (ms since the epoch) a missing object may still be on its way (see below). */
      opts: { storedBy?: number } = {},
    ): Promise<{ ok: true; source: RenderSource } | { ok: false; code: 'PAYLOAD_REMOVED' | 'RENDER_ERROR'; message: string }> {
      if (source.kind !== 'stored') return { ok: true, source };
      // The size on the reference is what the ingress wrote (only we write under our keys, and the
      // hash check below refuses anything else), so no round trip to storage asks for it again.
      if (source.payload.bytes > MAX_PAYLOAD_BYTES) return { ok: false, code: 'RENDER_ERROR', message: 'The stored payload is too large.' };
      const handed = deps.handoff?.take(source.payload);
      // Held by this process's ingress, byte for byte what it hashed. While its put has not
      // succeeded (it still runs beside the append, or it failed and the ingress withdraws the
      // request) nothing can have removed the payload: its requestId has not been answered yet.
      if (handed && !handed.stored) return { ok: true, source: handed.source };
      if (handed && deps.own.size) {
        // Stored: the object must still be there; a payload removed before its render (DELETE,
        // retention) fails it as before.
        const size = await deps.own.size(source.payload.key);
        if (size === undefined) return readBackPayload(source.payload, undefined);
        if (size === source.payload.bytes) return { ok: true, source: handed.source };
      }
      // A copy is used only when it is byte for byte what the reference names; any other answer
      // (none, another hash, Redis failing) reads the object, which stays the judge.
      const copy = await deps.copies?.take(source.payload.key).catch(() => undefined);
      if (copy) {
        const read = readBack(copy);
        if (read.sha256 === source.payload.sha256 && read.bytes === source.payload.bytes) return readBackPayload(source.payload, read);
      }
      let file = await deps.own.get(source.payload.key);
      // Not there yet, rather than removed, while its ingress may still be storing it (the append
      // went beside the put, its copy since gone): until `storedBy` (the request's acceptBy and
      // the clocks' tolerance), when the ingress has stored it or withdraws the request, it is read again. Nothing removes a payload
      // before its request is answered (one deleted right after that fails the same, later).
      while (!file && opts.storedBy !== undefined && Date.now() < opts.storedBy) {
        await sleep(MISSING_PAYLOAD_POLL_MS);
        file = await deps.own.get(source.payload.key);
      }
      return readBackPayload(source.payload, file ? readBack(file.bytes) : undefined);
    },
  };
}
export type StoredPayloads = ReturnType<typeof createStoredPayloads>;

/** Stored bytes as readBackPayload checks them: their hash, size and parsed source (undefined when not JSON). */
function readBack(bytes: Uint8Array): { sha256: string; bytes: number; source: unknown } {
  let source: unknown;
  try {
    source = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    source = undefined;
  }
  return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.byteLength, source };
}
