import type { RenderRequested } from '@pressroom/schemas';

/**
 * Sync requests the ingress is about to append, offered to a render worker of the same process
 * (the standalone service) so it may begin rendering them at once, while the append is written
 * and synced, instead of after the log delivers them back: ~1.3 ms of an embedded sync render at
 * concurrency 1 (issue 13).
 *
 * An offer is only a head start, never a way around the log: the worker stores nothing and
 * appends nothing for a request until the log delivers it, and then uses the render it began only
 * for the very request the log holds (same id, same data). A render begun for a request the log
 * never delivers (refused, its append failed) is dropped once it ends, and its slot given back.
 * A worker takes an offer only into a slot that is free with nobody waiting for it, so a head
 * start never passes a request already queued.
 */
export interface RenderHeadStart {
  /** These requests (one lane, as appended together) go on the log next. */
  offer(requests: readonly RenderRequested[]): void;
  /** The ingress answered these as not taken after offering them: any head start on them is dropped. */
  forget(requestIds: readonly string[]): void;
}

/**
 * The ingress's end of the head start, which a worker of the process attaches to once it has
 * started (Chromium may still be starting while the ingress takes requests): offers made with no
 * worker attached are nothing.
 */
export interface RenderHeadStartLink extends RenderHeadStart {
  /** Offers go to `taker` from now on; the function returned detaches it (the worker stopping). */
  attach(taker: RenderHeadStart): () => void;
}

export function createRenderHeadStartLink(): RenderHeadStartLink {
  let taker: RenderHeadStart | undefined;
  return {
    offer: (requests) => taker?.offer(requests),
    forget: (requestIds) => taker?.forget(requestIds),
    attach(next) {
      taker = next;
      return () => {
        if (taker === next) taker = undefined;
      };
    },
  };
}
