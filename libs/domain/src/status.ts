import type { PressroomEvent, StatusViewEntry } from '@pressroom/schemas';
import type { Projection } from './projection.ts';
import { templateOfSource } from './payloads.ts';

const rank = { ONGOING: 0, SUCCESS: 1, FAILED: 1 } as const;

/**
 * Evolve one render's status view with one event. Pure and idempotent:
 * applying the same event twice, or events out of order (a RenderSucceeded before its
 * RenderRequested), gives the same result. The state only moves forward; the first
 * terminal event wins, so a duplicate RenderFailed after SUCCESS changes nothing.
 *
 * A RenderWithdrawn is terminal too (the ingress refused the request with 503): when it comes
 * first, a later outcome changes nothing and the entry stays withdrawn (the API answers 404).
 */
export function evolveStatus(current: StatusViewEntry | undefined, event: PressroomEvent): StatusViewEntry | undefined {
  switch (event.type) {
    case 'RenderRequested': {
      const base = current ?? ongoing(event, event.data.mode);
      const template = templateOfSource(event.data.source);
      return {
        ...base,
        mode: event.data.mode, // the request's own, over a guess made by an attempt seen first
        requestedAt: base.requestedAt ?? event.occurredAt,
        ...deliveryExtras(event.data),
        ...(template ? { template } : {}),
        ...(event.data.tool ? { tool: event.data.tool } : {}),
        ...(event.data.batch ? { batchRequestId: event.data.batch.batchRequestId } : {}),
      };
    }
    case 'BatchRequested': {
      const base = current ?? ongoing(event, event.data.mode);
      const d = event.data;
      const done = base.batch?.status !== undefined ? base.batch : undefined; // a BatchCompleted seen first
      return {
        ...base,
        mode: d.mode,
        requestedAt: base.requestedAt ?? event.occurredAt,
        batch: {
          kind: d.kind,
          items: d.items,
          merge: d.merge,
          ...(d.webhook ? { webhook: d.webhook } : {}),
          ...(d.signedUrlExpiresIn !== undefined ? { signedUrlExpiresIn: d.signedUrlExpiresIn } : {}),
          ...(done?.status ? { status: done.status } : {}),
          ...(done?.results ? { results: done.results } : {}),
          ...(done?.mergeError ? { mergeError: done.mergeError } : {}),
        },
      };
    }
    case 'BatchCompleted': {
      if (isTerminal(current)) return current;
      const base = current ?? ongoing(event, event.data.mode);
      const d = event.data;
      return {
        ...base,
        state: d.status === 'FAILED' ? 'FAILED' : 'SUCCESS',
        completedAt: event.occurredAt,
        executionMs: d.executionMs,
        ...(d.merged ? { artifact: d.merged } : {}),
        batch: {
          kind: d.kind,
          items: base.batch?.items ?? d.results.map((r) => r.requestId),
          merge: d.merge,
          ...(d.webhook ? { webhook: d.webhook } : {}),
          ...(d.signedUrlExpiresIn !== undefined ? { signedUrlExpiresIn: d.signedUrlExpiresIn } : {}),
          status: d.status,
          results: d.results,
          ...(d.mergeError ? { mergeError: d.mergeError } : {}),
        },
      };
    }
    case 'RenderWithdrawn': {
      if (isTerminal(current)) return current;
      const base = current ?? ongoing(event, event.data.mode);
      return { ...base, withdrawnAt: event.occurredAt };
    }
    case 'RenderAttemptStarted': {
      // The highest attempt number seen: idempotent, and order does not matter.
      if (current && (current.attempts ?? 0) >= event.data.attempt) return current;
      const base = current ?? ongoing(event, 'async');
      return { ...base, attempts: event.data.attempt };
    }
    case 'RenderSucceeded':
    case 'RenderFailed': {
      if (current && (rank[current.state] > 0 || current.withdrawnAt)) return current;
      const base = current ?? ongoing(event, event.data.mode);
      const toolRequest = !base.tool && event.data.toolRequest ? { tool: event.data.toolRequest } : {};
      if (event.type === 'RenderSucceeded') {
        return {
          ...base,
          ...deliveryExtras(event.data),
          ...toolRequest,
          state: 'SUCCESS',
          completedAt: event.occurredAt,
          artifact: event.data.artifact,
          executionMs: event.data.executionMs,
          ...(event.data.cache?.hit ? { cached: true } : {}),
          ...(event.data.debugArtifact ? { debugArtifact: event.data.debugArtifact } : {}),
          ...(event.data.tool ? { toolResult: event.data.tool } : {}),
        };
      }
      return {
        ...base,
        ...deliveryExtras(event.data),
        ...toolRequest,
        state: 'FAILED',
        completedAt: event.occurredAt,
        error: event.data.error,
        executionMs: event.data.executionMs,
      };
    }
    case 'ArtifactRemoved': {
      // Only a render with an outcome has files; the first removal is the one shown.
      if (!current || current.removed) return current;
      return { ...current, removed: { reason: event.data.reason, at: event.occurredAt } };
    }
    default:
      return current;
  }
}

/** The request's own extras every render event carries: its externalId and its links' lifetime. */
/** The entry of a request whose first event seen is `event` (events of one request may arrive in any order). */
function ongoing(event: { requestId: string; tenantId: string }, mode: StatusViewEntry['mode']): StatusViewEntry {
  return { requestId: event.requestId, tenantId: event.tenantId, state: 'ONGOING', mode };
}

function deliveryExtras(data: { externalId?: string; linkTtlSeconds?: number }): Pick<StatusViewEntry, 'externalId' | 'linkTtlSeconds'> {
  return {
    ...(data.externalId !== undefined ? { externalId: data.externalId } : {}),
    ...(data.linkTtlSeconds !== undefined ? { linkTtlSeconds: data.linkTtlSeconds } : {}),
  };
}

/** Whether the entry has its final state: an outcome, or withdrawn. */
export function isTerminal(entry: StatusViewEntry | undefined): boolean {
  return entry !== undefined && (entry.state !== 'ONGOING' || entry.withdrawnAt !== undefined);
}

/** Whether the entry is of a request the ingress refused: to the API it was never issued (404). */
export function isWithdrawn(entry: StatusViewEntry | undefined): boolean {
  return entry?.withdrawnAt !== undefined;
}

/**
 * The status view as a projection: one document per render (keyed by requestId), folded by
 * `evolveStatus`; the write that makes an entry terminal is announced (it wakes sync waiters).
 */
export const statusProjection: Projection<PressroomEvent, StatusViewEntry> = {
  canHandle: (event): event is PressroomEvent => typeof event === 'object' && event !== null && 'requestId' in event,
  keyOf: (event) => event.requestId,
  evolve: evolveStatus,
  announces: (before, after) => !isTerminal(before) && isTerminal(after),
};
