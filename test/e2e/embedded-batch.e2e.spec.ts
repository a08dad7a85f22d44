import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfNoodle } from 'pdfnoodle';
import { waitFor } from '@pressroom/testing';
import { startEmbedded } from '../support/embedded-service.ts';
import { download } from '../support/api-client.ts';
import { pdfInfo, pdfPageText } from '../support/pdf-tools.ts';
import { ScriptedReceiver, verifyWithStandardWebhooks } from '../support/scripted-receiver.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

describe('embedded profile: batch rendering (pdf noodle batch endpoints)', () => {
  let svc: Svc;
  let good: string;
  let broken: string;
  const receiver = new ScriptedReceiver();

  beforeAll(async () => {
    await receiver.start();
    svc = await startEmbedded();
    good = (await svc.api.post('/v1/templates', { name: 'item', content: '<p>Batch item <%= it.n %></p>' })).json.templateId;
    broken = (await svc.api.post('/v1/templates', { name: 'broken', content: '<p><% throw new Error("broken on purpose") %></p>' })).json
      .templateId;
  });
  afterAll(async () => {
    await svc?.app.stop();
    await receiver.stop();
  });

  it('renders mixed items: PARTIAL_SUCCESS, one merged PDF of the good items in order, one signed webhook', async () => {
    const secret = (await svc.api.get('/v1/webhooks/secret')).json.secret as string;
    const res = await svc.api.post('/v1/pdf/batch', {
      items: [
        { templateId: good, data: { n: 'one' } },
        { templateId: broken, data: {} },
        { templateId: good, data: { n: 'three' } },
      ],
      merge: true,
      webhook: receiver.script('/batch'),
    });
    expect(res.status).toBe(200);
    const body = res.json;
    expect(body).toMatchObject({ status: 'PARTIAL_SUCCESS', total: 3, completed: 3, merge: true });
    expect(body.batchRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.results.map((r: { renderStatus: string }) => r.renderStatus)).toEqual(['SUCCESS', 'FAILED', 'SUCCESS']);
    expect(body.results[1]).toMatchObject({ signedUrl: '', metadata: {}, error: { code: 'TEMPLATE_ERROR' } });
    expect(body.results[0].metadata.fileSize).toMatch(/ kB$/);

    // Every item is a render of its own, with its own status.
    const ids = body.results.map((r: { requestId: string }) => r.requestId);
    expect(new Set(ids).size).toBe(3);
    expect((await svc.api.get(`/v1/pdf/status/${ids[2]}`)).json).toMatchObject({ requestId: ids[2], renderStatus: 'SUCCESS' });

    // The merged file: the successful items, in item order.
    const merged = await download(body.mergedUrl);
    expect(merged.status).toBe(200);
    expect((await pdfInfo(merged.bytes)).Pages).toBe('2');
    expect(await pdfPageText(merged.bytes, 1)).toContain('Batch item one');
    expect(await pdfPageText(merged.bytes, 2)).toContain('Batch item three');

    // The batch status endpoint answers the same.
    const status = await svc.api.get(`/v1/pdf/batch/status/${body.batchRequestId}`);
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ batchRequestId: body.batchRequestId, status: 'PARTIAL_SUCCESS', completed: 3, total: 3 });
    expect(status.json.mergedUrl).toEqual(expect.any(String));

    // One webhook for the batch, signed like render webhooks.
    const [call] = await receiver.waitForCalls('/batch', 1);
    expect(verifyWithStandardWebhooks(secret, call!)).toMatchObject({
      batchRequestId: body.batchRequestId,
      status: 'PARTIAL_SUCCESS',
      total: 3,
      completed: 3,
      mergedUrl: expect.any(String),
    });
    expect(call!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    const delivery = await waitFor(
      async () => {
        const r = await svc.api.get(`/v1/pdf/${body.batchRequestId}/deliveries`);
        return r.json?.state === 'DELIVERED' ? r.json : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the batch delivery to be recorded' },
    );
    expect(delivery).toMatchObject({ webhookId: call!.headers['webhook-id'], round: 0 });
  });

  it('runs an HTML batch with async: true and reports it on the batch status endpoint', async () => {
    const res = await svc.api.post('/v1/html-to-pdf/batch', {
      items: [{ html: '<p>A</p>' }, { html: '<p>B</p>' }],
      async: true,
      signedUrlExpiresIn: 120,
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      batchRequestId: expect.any(String),
      statusUrl: `${svc.baseUrl}/v1/pdf/batch/status/${res.json.batchRequestId}`,
    });
    const done = await waitFor(
      async () => {
        const s = await svc.api.get(`/v1/pdf/batch/status/${res.json.batchRequestId}`);
        return s.json?.status !== 'ONGOING' ? s.json : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, description: 'the batch to finish' },
    );
    expect(done).toMatchObject({ status: 'SUCCESS', total: 2, completed: 2, merge: false });
    expect(done.mergedUrl).toBeUndefined();
    expect(done.results.every((r: { signedUrl: string }) => r.signedUrl.startsWith('http'))).toBe(true);
    // signedUrlExpiresIn bounds the batch's links (local links carry their expiry in seconds).
    const expires = Number(new URL(done.results[0].signedUrl).searchParams.get('expires'));
    expect(expires - Date.now() / 1000).toBeGreaterThan(60);
    expect(expires - Date.now() / 1000).toBeLessThanOrEqual(121);
  });

  it('reads a no-code form: items and their JSON-typed fields as JSON text, every empty field as false/null/""', async () => {
    const res = await svc.api.post('/v1/pdf/batch', {
      items: JSON.stringify([
        {
          templateId: good,
          data: '{"n":"form"}',
          pdfParams: '{"format":"a5","margin":{"top":""}}',
          metadata: '{"title":"Form item"}',
          convertToImage: false,
          hasCover: '',
          s3_bucket: '',
          s3_key: null,
          externalId: false,
          signedUrlExpiresIn: '',
          debug: false,
          templateVersion: '',
        },
      ]),
      merge: '',
      async: 'false',
      webhook: null,
      signedUrlExpiresIn: '900',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('pressroom-ignored-fields')).toBeNull();
    expect(res.json).toMatchObject({ status: 'SUCCESS', total: 1, merge: false });
    const file = await download(res.json.results[0].signedUrl);
    expect(await pdfPageText(file.bytes, 1)).toContain('Batch item form');
    expect(await pdfInfo(file.bytes)).toMatchObject({ Title: 'Form item', 'Page size': expect.stringContaining('(A5)') });
  });

  it('refuses 21 items, invalid items (each named) and merge with PNG items, rendering nothing', async () => {
    const many = await svc.api.post('/v1/html-to-pdf/batch', { items: Array.from({ length: 21 }, () => ({ html: '<p>x</p>' })) });
    expect(many.status).toBe(400);
    expect(many.json.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'items', message: expect.stringContaining('at most 20') }],
    });

    const bad = await svc.api.post('/v1/pdf/batch', {
      items: [{ templateId: good, data: { n: 1 } }, { templateId: 'no-such-template', data: {} }, { data: {} }],
    });
    expect(bad.status).toBe(400);
    const fields = bad.json.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['items.2.templateId']));

    const unknown = await svc.api.post('/v1/pdf/batch', {
      items: [
        { templateId: good, data: { n: 1 } },
        { templateId: 'nope', data: {} },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details).toEqual([{ field: 'items.1.templateId', message: expect.stringContaining('not found') }]);

    const png = await svc.api.post('/v1/html-to-pdf/batch', { items: [{ html: '<p>x</p>', convertToImage: true }], merge: true });
    expect(png.status).toBe(400);
    expect(png.json.error.details).toEqual([{ field: 'items.0.convertToImage', message: expect.stringContaining('merge') }]);
  });

  it('refuses a body over 3 MB with 413 in the one error shape', async () => {
    const html = `<p>${'x'.repeat(3.2 * 1024 * 1024)}</p>`;
    const res = await svc.api.post('/v1/html-to-pdf/batch', { items: [{ html }] });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ message: expect.any(String), error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    expect((await svc.api.get('/v1/pdf/batch/status/00000000-0000-7000-8000-000000000000')).status).toBe(404);
  });

  it('serves the official pdfnoodle SDK (unmodified, through its own HTTP client) on the batch endpoints', async () => {
    // pdfnoodle 1.0.0 has no batch methods: its public post/get are how its users call the batch API.
    process.env.PDFNOODLE_BASE_URL = svc.baseUrl;
    const sdk = new PdfNoodle(svc.apiKey);
    const batch = await sdk.post<{ batchRequestId: string; status: string; mergedUrl?: string; results: unknown[] }>({
      path: '/v1/html-to-pdf/batch',
      body: { items: [{ html: '<p>SDK one</p>' }, { html: '<p>SDK two</p>' }], merge: true },
    });
    expect(batch.error).toBeNull();
    expect(batch.data).toMatchObject({ status: 'SUCCESS', results: [expect.anything(), expect.anything()] });
    const merged = await download(batch.data!.mergedUrl!);
    expect(await pdfPageText(merged.bytes, 2)).toContain('SDK two');

    const status = await sdk.get<{ status: string }>({ path: `/v1/pdf/batch/status/${batch.data!.batchRequestId}` });
    expect(status.data?.status).toBe('SUCCESS');

    const tooMany = await sdk.post({ path: '/v1/html-to-pdf/batch', body: { items: Array.from({ length: 21 }, () => ({ html: 'x' })) } });
    expect(tooMany.error).toMatchObject({ name: 'validation_error', statusCode: 400 });
  });
});
