import { describe, expect, it } from 'vitest';
import type { ArtifactRef, BatchCompleted, BatchRequested, StatusViewEntry } from '@pressroom/schemas';
import {
  BATCH_MAX_ITEMS,
  batchBody,
  batchItemEntries,
  batchItemsProblems,
  batchMergeProblems,
  batchStatusOf,
  decideBatchCompletion,
} from './batch.ts';
import { evolveStatus, isTerminal } from './status.ts';
import { deliversWebhook, foldDelivery, webhookIdFor } from './delivery.ts';

const batchId = '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0b00';
const itemIds = ['019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0b10', '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0b11', '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0b12'];
const file = (key: string): ArtifactRef => ({ target: { kind: 'default' }, key, contentType: 'application/pdf', bytes: 2000 });

const batchRequested: BatchRequested = {
  eventId: 'b1',
  type: 'BatchRequested',
  version: 1,
  occurredAt: '2026-11-22T10:00:00.000Z',
  requestId: batchId,
  tenantId: 't1',
  data: { mode: 'sync', kind: 'template', items: itemIds, merge: true, webhook: 'https://hooks.example.com/b' },
};
const batchEntry = evolveStatus(undefined, batchRequested)!;

const item = (i: number, state: StatusViewEntry['state'], extra: Partial<StatusViewEntry> = {}): StatusViewEntry => ({
  requestId: itemIds[i]!,
  tenantId: 't1',
  mode: 'sync',
  state,
  batchRequestId: batchId,
  ...(state === 'SUCCESS' ? { artifact: file(`t1/${i}.pdf`), executionMs: 1000 } : {}),
  ...(state === 'FAILED' ? { error: { code: 'TEMPLATE_ERROR', message: 'boom' }, executionMs: 10 } : {}),
  ...extra,
});

describe('batch limits', () => {
  it('takes 1 to 20 items, and says so for 0, 21 or no array', () => {
    expect(BATCH_MAX_ITEMS).toBe(20);
    expect(batchItemsProblems({ items: Array.from({ length: 20 }, () => ({})) })).toEqual([]);
    expect(batchItemsProblems({ items: Array.from({ length: 21 }, () => ({})) })).toEqual([
      { field: 'items', message: 'has 21 items; a batch takes at most 20' },
    ]);
    expect(batchItemsProblems({ items: [] })).toEqual([{ field: 'items', message: 'must have at least 1 item' }]);
    expect(batchItemsProblems({ items: 'x' })[0]?.field).toBe('items');
    expect(batchItemsProblems({})[0]?.field).toBe('items');
  });

  it('refuses merge with PNG items, naming each', () => {
    expect(batchMergeProblems({ merge: true, items: [{}, { convertToImage: true }] })).toEqual([
      { field: 'items.1.convertToImage', message: 'cannot be true when merge is true (only PDFs are merged)' },
    ]);
    expect(batchMergeProblems({ merge: false, items: [{ convertToImage: true }] })).toEqual([]);
  });
});

describe('batch status', () => {
  it('is SUCCESS when all succeed, FAILED when none does, PARTIAL_SUCCESS otherwise', () => {
    expect(batchStatusOf(['SUCCESS', 'SUCCESS'])).toBe('SUCCESS');
    expect(batchStatusOf(['SUCCESS', 'FAILED'])).toBe('PARTIAL_SUCCESS');
    expect(batchStatusOf(['FAILED', 'FAILED'])).toBe('FAILED');
    expect(batchStatusOf(['FAILED'])).toBe('FAILED');
  });

  it('decides nothing while an item runs or has not been seen', () => {
    expect(decideBatchCompletion(batchEntry, [item(0, 'SUCCESS'), item(1, 'ONGOING'), item(2, 'SUCCESS')])).toBeUndefined();
    expect(decideBatchCompletion(batchEntry, [item(0, 'SUCCESS'), undefined, item(2, 'SUCCESS')])).toBeUndefined();
    expect(decideBatchCompletion(undefined, [])).toBeUndefined();
  });

  it('decides the outcome and what to merge (successes, in item order) once every item has one', () => {
    const d = decideBatchCompletion(batchEntry, [item(0, 'SUCCESS'), item(1, 'FAILED'), item(2, 'SUCCESS')]);
    expect(d?.status).toBe('PARTIAL_SUCCESS');
    expect(d?.mergeInputs.map((a) => a.key)).toEqual(['t1/0.pdf', 't1/2.pdf']);
    expect(d?.results.map((r) => r.state)).toEqual(['SUCCESS', 'FAILED', 'SUCCESS']);
  });

  it('counts a withdrawn item as failed', () => {
    const d = decideBatchCompletion(batchEntry, [item(0, 'SUCCESS'), item(1, 'ONGOING', { withdrawnAt: 'now' }), item(2, 'SUCCESS')]);
    expect(d?.status).toBe('PARTIAL_SUCCESS');
    expect(d?.results[1]).toMatchObject({ state: 'FAILED' });
  });

  it('decides nothing for a finished batch (a second finisher appends nothing)', () => {
    const done = evolveStatus(batchEntry, completedWith('SUCCESS'));
    expect(isTerminal(done)).toBe(true);
    expect(decideBatchCompletion(done, [item(0, 'SUCCESS'), item(1, 'SUCCESS'), item(2, 'SUCCESS')])).toBeUndefined();
  });
});

function completedWith(status: BatchCompleted['data']['status']): BatchCompleted {
  return {
    eventId: `c-${status}`,
    type: 'BatchCompleted',
    version: 1,
    occurredAt: '2026-11-22T10:00:03.000Z',
    requestId: batchId,
    tenantId: 't1',
    data: {
      mode: 'sync',
      webhook: 'https://hooks.example.com/b',
      kind: 'template',
      merge: true,
      status,
      results: [
        { requestId: itemIds[0]!, state: 'SUCCESS', artifact: file('t1/0.pdf'), executionMs: 1000 },
        { requestId: itemIds[1]!, state: 'FAILED', error: { code: 'TEMPLATE_ERROR', message: 'boom' }, executionMs: 10 },
        { requestId: itemIds[2]!, state: 'SUCCESS', artifact: file('t1/2.pdf'), executionMs: 1000 },
      ],
      merged: file(`t1/${batchId}-merged.pdf`),
      executionMs: 50,
      worker: 'w',
    },
  };
}

describe('the batch view (evolveStatus)', () => {
  it('is ONGOING after BatchRequested, finished after BatchCompleted, in either order, first completion wins', () => {
    expect(batchEntry).toMatchObject({ requestId: batchId, state: 'ONGOING', batch: { items: itemIds, merge: true } });
    const done = evolveStatus(batchEntry, completedWith('PARTIAL_SUCCESS'))!;
    expect(done).toMatchObject({ state: 'SUCCESS', artifact: { key: `t1/${batchId}-merged.pdf` }, batch: { status: 'PARTIAL_SUCCESS' } });
    const reversed = evolveStatus(evolveStatus(undefined, completedWith('PARTIAL_SUCCESS')), batchRequested)!;
    expect(reversed.batch).toEqual(done.batch);
    expect(reversed.state).toBe('SUCCESS');
    expect(evolveStatus(done, completedWith('FAILED'))).toBe(done);
    expect(evolveStatus(undefined, completedWith('FAILED'))?.state).toBe('FAILED');
  });

  it('marks an item with its batch', () => {
    const entry = evolveStatus(undefined, {
      eventId: 'r1',
      type: 'RenderRequested',
      version: 1,
      occurredAt: '2026-11-22T10:00:00.000Z',
      requestId: itemIds[0]!,
      tenantId: 't1',
      data: {
        mode: 'sync',
        source: { kind: 'html', html: '<p>x</p>' },
        output: 'pdf',
        storage: { kind: 'default' },
        batch: { batchRequestId: batchId, index: 0 },
      },
    });
    expect(entry?.batchRequestId).toBe(batchId);
  });
});

describe('the batch body', () => {
  it('shows live items while the batch runs (ONGOING, completed counts finished items, no mergedUrl)', () => {
    const items = batchItemEntries(batchEntry, [item(0, 'SUCCESS'), item(1, 'FAILED'), undefined]);
    const body = batchBody(batchEntry, items, { items: ['https://f/0', '', ''], merged: 'https://f/m' });
    expect(body).toEqual({
      batchRequestId: batchId,
      status: 'ONGOING',
      total: 3,
      completed: 2,
      merge: true,
      results: [
        {
          requestId: itemIds[0],
          renderStatus: 'SUCCESS',
          signedUrl: 'https://f/0',
          metadata: { executionTime: '1 seconds', fileSize: '2 kB' },
        },
        { requestId: itemIds[1], renderStatus: 'FAILED', signedUrl: '', metadata: {}, error: { code: 'TEMPLATE_ERROR', message: 'boom' } },
        { requestId: itemIds[2], renderStatus: 'ONGOING', signedUrl: '', metadata: {} },
      ],
    });
  });

  it('shows the recorded outcomes and the merged link once finished', () => {
    const done = evolveStatus(batchEntry, completedWith('PARTIAL_SUCCESS'))!;
    const items = batchItemEntries(done, []);
    const body = batchBody(done, items, { items: ['https://f/0', '', 'https://f/2'], merged: 'https://f/m' });
    expect(body).toMatchObject({ status: 'PARTIAL_SUCCESS', completed: 3, total: 3, mergedUrl: 'https://f/m' });
    expect(body.results.map((r) => r.signedUrl)).toEqual(['https://f/0', '', 'https://f/2']);
  });
});

describe('the batch webhook', () => {
  it('is one delivery per batch, keyed by the batchRequestId, only when the batch named a webhook', () => {
    const done = completedWith('PARTIAL_SUCCESS');
    expect(deliversWebhook(done)).toBe(true);
    const noWebhook = structuredClone(done);
    delete noWebhook.data.webhook;
    expect(deliversWebhook(noWebhook)).toBe(false);
    const state = foldDelivery({ requestId: batchId, tenantId: 't1', completion: done, events: [] });
    expect(state.view).toMatchObject({ webhookId: webhookIdFor(batchId), url: 'https://hooks.example.com/b', state: 'PENDING' });
    expect(state.result?.batch?.status).toBe('PARTIAL_SUCCESS');
  });
});
