import { hostname } from 'node:os';
import { decideBatchCompletion, isTerminal } from '@pressroom/domain';
import {
  IGNORED,
  type ArtifactStorage,
  type EventFactory,
  type EventLog,
  type Logger,
  type StatusView,
  type Subscription,
  type TopicNames,
} from '@pressroom/core';
import type { ArtifactRef, LogEvent } from '@pressroom/schemas';

export interface BatchFinisherDeps {
  log: EventLog;
  view: StatusView;
  storage: ArtifactStorage;
  topics: TopicNames;
  event: EventFactory;
  logger: Logger;
  group?: string;
  workerId?: string;
  /** One PDF of every page of `buffers`, in order (the PDF tools' merge: qpdf). */
  mergePdfs: (buffers: readonly Uint8Array[]) => Promise<Uint8Array>;
}

/** How long the finisher's reads may wait to gather records (ConsumeOptions.gatherMs). */
export const BATCH_FINISHER_GATHER_MS = 250;

/** The batch a render event concerns, if any (the entry the event leaves in the view says). */
function batchOf(event: LogEvent, entryBatch: string | undefined): string | undefined {
  if (event.type === 'BatchRequested') return event.requestId;
  if (event.type === 'RenderRequested') return event.data.batch?.batchRequestId;
  return entryBatch;
}

/**
 * Finishes batches: when the last item of a batch has an outcome, merges the successful PDFs
 * (if asked) and appends BatchCompleted, which ends the batch's status (and so a sync caller's
 * wait) and is what the webhook dispatcher delivers. It follows the render topics and the
 * completed topic, applying each event to the status view first (idempotent), so whichever of
 * the batch's events comes last — an item's outcome, or the BatchRequested itself — finishes it.
 * Two finishers deciding at once both append a BatchCompleted with the same merged key; the
 * first one wins in the view and in the webhook delivery.
 */
export async function startBatchFinisher(deps: BatchFinisherDeps): Promise<Subscription> {
  const worker = `batch-finisher:${deps.workerId ?? `${hostname()}:${process.pid}`}`;
  const merge = deps.mergePdfs;
  return deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.batch-finisher`,
    topics: [deps.topics.requestedSync, deps.topics.requestedAsync, deps.topics.completed],
    concurrency: 8,
    // It reads every render's events, and a batch is rare: a batch's end may wait this much longer
    // so that each read brings several records (fewer requests per render on every render's path).
    gatherMs: BATCH_FINISHER_GATHER_MS,
    handle: async ({ event }) => {
      if (!('requestId' in event)) return IGNORED;
      if (!['RenderRequested', 'RenderSucceeded', 'RenderFailed', 'RenderWithdrawn', 'BatchRequested'].includes(event.type)) return IGNORED;
      if (event.type === 'RenderRequested' && !event.data.batch) return IGNORED; // not an item of a batch
      if (event.type !== 'RenderRequested' && event.type !== 'BatchRequested') {
        const known = await deps.view.get(event.requestId);
        // An outcome of a render known to be outside any batch: a read, no write. (Until its
        // RenderRequested is in the view we cannot tell, so the outcome is applied: the
        // RenderRequested, when it comes, then finds the item finished.)
        if (known?.requestedAt && !known.batchRequestId) return IGNORED;
      }
      const entry = await deps.view.apply(event);
      const batchRequestId = batchOf(event, entry?.batchRequestId);
      if (batchRequestId) await finish(batchRequestId);
    },
  });

  async function finish(batchRequestId: string): Promise<void> {
    const batch = await deps.view.get(batchRequestId);
    if (!batch?.batch || isTerminal(batch)) return;
    const items = await Promise.all(batch.batch.items.map((id) => deps.view.get(id)));
    const decision = decideBatchCompletion(batch, items);
    if (!decision) return;
    const t0 = performance.now();
    const { tenantId } = batch;
    let merged: ArtifactRef | undefined;
    let mergeError: string | undefined;
    if (batch.batch.merge) {
      if (!decision.mergeInputs.length) mergeError = 'No item succeeded: there is nothing to merge.';
      else {
        try {
          const files = await Promise.all(decision.mergeInputs.map((a) => deps.storage.read(tenantId, a)));
          if (files.some((f) => !f)) throw new Error('the file of an item is gone');
          const bytes = await merge(files.map((f) => f!.bytes));
          const key = `${tenantId}/${batchRequestId}-merged.pdf`;
          await deps.storage.put(tenantId, { kind: 'default' }, key, bytes, 'application/pdf');
          merged = { target: { kind: 'default' }, key, contentType: 'application/pdf', bytes: bytes.byteLength };
        } catch (err) {
          mergeError = `The merge failed: ${(err as Error).message}`;
          deps.logger.warn('batch merge failed', { batchRequestId, tenantId, err });
        }
      }
    }
    const b = batch.batch;
    const completed = deps.event(
      'BatchCompleted',
      { requestId: batchRequestId, tenantId },
      {
        mode: batch.mode,
        ...(b.webhook ? { webhook: b.webhook } : {}),
        kind: b.kind,
        merge: b.merge,
        ...(b.signedUrlExpiresIn !== undefined ? { signedUrlExpiresIn: b.signedUrlExpiresIn } : {}),
        status: decision.status,
        results: decision.results,
        ...(merged ? { merged } : {}),
        ...(mergeError ? { mergeError } : {}),
        executionMs: Math.round(performance.now() - t0),
        worker,
      },
    );
    await deps.log.append(deps.topics.completed, [completed]);
    await deps.view.apply(completed);
    deps.logger.info('batch completed', {
      batchRequestId,
      tenantId,
      status: decision.status,
      items: decision.results.length,
      merged: !!merged,
    });
  }
}
