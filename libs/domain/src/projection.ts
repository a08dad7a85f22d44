/**
 * A projection defined once: which events it reads, which document each one changes, and how
 * (a pure fold). The projector (`project` in @pressroom/core) applies it through the
 * versioned-document port, so the memory and the Redis views share the rule and the retry loop.
 */

/** Where a document lives: alone under `id`, or as `id` within `group` (a group can be listed). */
export type DocumentKey = string | { group: string; id: string };

export interface Projection<E, D> {
  /** Whether the projection reads this event (the others are ignored). */
  canHandle(event: unknown): event is E;
  /** The one document the event changes. */
  keyOf(event: E): DocumentKey;
  /**
   * The document after the event: `current` itself (the same object) when nothing changes,
   * undefined when there is still no document. Pure and idempotent (a redelivery is harmless).
   */
  evolve(current: D | undefined, event: E): D | undefined;
  /**
   * Whether this change is announced to the document's watchers (in the same atomic write, so
   * exactly one writer announces it). Without it, nothing is announced.
   */
  announces?(before: D | undefined, after: D): boolean;
  /**
   * How long the document written lives after this write, in ms (0: for ever), where that
   * depends on the document; without it, the collection's `ttlMs`. A view store may forget a
   * document that only keeps history: the log keeps its events.
   */
  ttlMsOf?(doc: D): number;
}
