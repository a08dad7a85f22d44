/**
 * A view's "built" marker: it lives exactly as long as the view's data, so a view whose storage
 * lost its data (a Redis FLUSHALL, a restart without persistence) is known to need a replay of
 * the log (self-rebuilding.ts).
 */
export interface BuiltMarker {
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
  /**
   * For a store that can lose its data while a replay runs (Redis): `startBuild` notes the
   * replay's start beside the data and answers the note's id; `markBuiltAfter` marks the view
   * built only if that note is still there (one atomic step) and answers whether it did. A replay
   * that straddled a loss would otherwise mark built a view missing all it wrote before the loss,
   * and a read of an accepted render would answer 404 instead of rebuilding.
   */
  startBuild?(): Promise<string>;
  markBuiltAfter?(build: string): Promise<boolean>;
}
