import type { BuiltMarker } from './built-marker.ts';
import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import type { DocumentCollectionSpec } from './document-store.ts';

/**
 * Where both status view adapters keep their documents (the `statusProjection` of
 * @pressroom/domain): one per requestId under `status:`, terminal transitions announced on
 * `status-events`, the "built" marker beside them (not a request id: those are UUIDs).
 */
export const STATUS_DOCUMENTS = { name: 'status:', channel: 'status-events' } satisfies DocumentCollectionSpec;
export const STATUS_BUILT_MARKER = 'status:~built';

/**
 * The status view: one entry per render, derived only from events (see
 * `evolveStatus` in @pressroom/domain), so it can be wiped and rebuilt from the log.
 *
 * Adapters guarantee:
 * - `apply` is idempotent and forward-only, safe to call concurrently from several
 *   processes (the ingress records ONGOING itself; the projector applies everything);
 * - when an entry becomes terminal, every `waitForTerminal` on it, in any process sharing
 *   the view, is woken by a notification, never by polling.
 */
export interface StatusView extends BuiltMarker {
  apply(event: PressroomEvent): Promise<StatusViewEntry | undefined>;
  get(requestId: string): Promise<StatusViewEntry | undefined>;
  /**
   * `apply` of each event in order, in a few round trips (see `projectMany`): what replays of the
   * log use. Same guarantees as `apply`; the entries are not returned.
   */
  applyMany(events: readonly PressroomEvent[]): Promise<void>;
  /** `get` of each requestId, in order, in one round trip. */
  getMany(requestIds: readonly string[]): Promise<(StatusViewEntry | undefined)[]>;
  /**
   * Resolves with the entry as soon as it is terminal, or with its current value (maybe
   * ONGOING, maybe undefined) when `timeoutMs` elapses.
   */
  waitForTerminal(requestId: string, timeoutMs: number): Promise<StatusViewEntry | undefined>;
  /** Removes every entry (before a rebuild from the log). */
  clear(): Promise<void>;
  /**
   * Whether a full rebuild from the log completed since the view's storage last lost its data
   * (`clear` and a Redis FLUSHALL or restart without persistence forget it): readers that find
   * nothing rebuild first when it is false (see selfRebuildingViews).
   */
  isBuilt(): Promise<boolean>;
  markBuilt(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
