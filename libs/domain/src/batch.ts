import {
  BATCH_MAX_ITEMS,
  type ArtifactRef,
  type BatchItemOutcome,
  type BatchStatus,
  type Http,
  type StatusViewEntry,
} from '@pressroom/schemas';
import type { FieldProblem } from './errors.ts';
import { isTerminal, isWithdrawn } from './status.ts';
import { statusBody } from './webhook-body.ts';

export { BATCH_MAX_ITEMS };

/** The documented body limit of the batch endpoints: 3 MB (MiB here); larger bodies get 413. */
export const BATCH_MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The item count, checked before the items are (so 21 items get one clear message, not 21
 * item reports): `items` must be an array of 1 to BATCH_MAX_ITEMS.
 */
export function batchItemsProblems(body: unknown): FieldProblem[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const items = (body as { items?: unknown }).items;
  if (!Array.isArray(items)) return [{ field: 'items', message: `is required: an array of 1 to ${BATCH_MAX_ITEMS} items` }];
  if (items.length === 0) return [{ field: 'items', message: 'must have at least 1 item' }];
  if (items.length > BATCH_MAX_ITEMS) {
    return [{ field: 'items', message: `has ${items.length} items; a batch takes at most ${BATCH_MAX_ITEMS}` }];
  }
  return [];
}

/** `merge` joins PDFs only: no item may ask for a PNG then. */
export function batchMergeProblems(body: { merge?: boolean; items: Array<{ convertToImage?: boolean }> }): FieldProblem[] {
  if (!body.merge) return [];
  return body.items.flatMap((item, i) =>
    item.convertToImage
      ? [{ field: `items.${i}.convertToImage`, message: 'cannot be true when merge is true (only PDFs are merged)' }]
      : [],
  );
}

/** A finished batch: SUCCESS when every item succeeded, FAILED when none did, PARTIAL_SUCCESS otherwise. */
export function batchStatusOf(states: ReadonlyArray<'SUCCESS' | 'FAILED'>): BatchStatus {
  const ok = states.filter((s) => s === 'SUCCESS').length;
  if (ok === 0) return 'FAILED';
  return ok === states.length ? 'SUCCESS' : 'PARTIAL_SUCCESS';
}

/**
 * One item's outcome from its status entry, or undefined while it runs. An item withdrawn
 * (its append was refused) never renders: it counts as failed.
 */
export function batchItemOutcome(requestId: string, entry: StatusViewEntry | undefined): BatchItemOutcome | undefined {
  if (!entry) return undefined;
  if (isWithdrawn(entry)) {
    return { requestId, state: 'FAILED', error: { code: 'RENDER_ERROR', message: 'The item was not accepted by the log.' } };
  }
  if (entry.state === 'ONGOING') return undefined;
  return {
    requestId,
    state: entry.state,
    ...(entry.artifact ? { artifact: entry.artifact } : {}),
    ...(entry.executionMs !== undefined ? { executionMs: entry.executionMs } : {}),
    ...(entry.error ? { error: entry.error } : {}),
  };
}

export interface BatchCompletion {
  status: BatchStatus;
  results: BatchItemOutcome[];
  /** The files to merge, in item order (empty when merge was not asked or nothing succeeded). */
  mergeInputs: ArtifactRef[];
}

/**
 * What the batch finisher decides: nothing while an item runs or when the batch is finished
 * already; else the batch's outcome and what to merge.
 */
export function decideBatchCompletion(
  batch: StatusViewEntry | undefined,
  items: ReadonlyArray<StatusViewEntry | undefined>,
): BatchCompletion | undefined {
  if (!batch?.batch || isTerminal(batch)) return undefined;
  const results: BatchItemOutcome[] = [];
  for (const [i, requestId] of batch.batch.items.entries()) {
    const outcome = batchItemOutcome(requestId, items[i]);
    if (!outcome) return undefined;
    results.push(outcome);
  }
  const mergeInputs = batch.batch.merge ? results.flatMap((r) => (r.state === 'SUCCESS' && r.artifact ? [r.artifact] : [])) : [];
  return { status: batchStatusOf(results.map((r) => r.state)), results, mergeInputs };
}

/**
 * The items as callers see them: the outcomes the batch recorded once it finished, else the
 * live entries (undefined: not seen yet, shown ONGOING).
 */
export function batchItemEntries(
  batch: StatusViewEntry,
  live: ReadonlyArray<StatusViewEntry | undefined>,
): Array<StatusViewEntry | undefined> {
  const recorded = batch.batch?.results;
  if (recorded) {
    return recorded.map((r) => ({
      requestId: r.requestId,
      tenantId: batch.tenantId,
      mode: batch.mode,
      state: r.state,
      ...(r.artifact ? { artifact: r.artifact } : {}),
      ...(r.executionMs !== undefined ? { executionMs: r.executionMs } : {}),
      ...(r.error ? { error: r.error } : {}),
    }));
  }
  return (batch.batch?.items ?? []).map((_, i) => live[i]);
}

/**
 * The batch body (the 200 of a finished sync batch, the status endpoint, the batch webhook).
 * `status` is ONGOING until the batch is finished — its merged file stored too, so an item
 * count of `completed === total` may still be ONGOING for a moment. Links are minted by the
 * caller (`itemUrls[i]`, '' for an item without a file; `mergedUrl` when there is a merged file).
 */
export function batchBody(
  batch: StatusViewEntry,
  items: ReadonlyArray<StatusViewEntry | undefined>,
  urls: { items: readonly string[]; merged?: string },
): Http.BatchResponse {
  const ids = batch.batch?.items ?? [];
  const results = ids.map((requestId, i) => {
    const entry = items[i];
    if (!entry || isWithdrawn(entry)) {
      const outcome = batchItemOutcome(requestId, entry);
      if (!outcome) return { requestId, renderStatus: 'ONGOING' as const, signedUrl: '', metadata: {} };
      return statusBody({ tenantId: batch.tenantId, mode: batch.mode, ...outcome }, '');
    }
    return statusBody(entry, urls.items[i] ?? '');
  });
  const finished = isTerminal(batch) && batch.batch?.status !== undefined;
  return {
    batchRequestId: batch.requestId,
    status: finished ? batch.batch!.status! : 'ONGOING',
    total: ids.length,
    completed: results.filter((r) => r.renderStatus !== 'ONGOING').length,
    merge: batch.batch?.merge ?? false,
    results,
    ...(finished && urls.merged ? { mergedUrl: urls.merged } : {}),
  };
}
