import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../support/embedded-service.ts';
import { apiClient, download, type ApiClient } from '../support/api-client.ts';
import { pdfInfo } from '../support/pdf-tools.ts';
import { runOps } from '../support/ops-cli.ts';
import { slowHtml } from '../support/fixtures.ts';
import { unlimitedPlans } from '../support/service-process.ts';
import { waitFor } from '@pressroom/testing';

// Issue 11, points 5 and 6 on the embedded profile, with two tenants: files expire by plan
// (high keeps them 2 seconds here, standard its default 30 days), DELETE removes a render now (another
// tenant's id is unknown), and usage counts what was sent. Issue 13: the render cache (on for
// both plans here) serves an identical render of the same tenant as a copy, never across tenants.

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

async function tenant(svc: Svc, tenantId: string, plan: 'standard' | 'high'): Promise<ApiClient> {
  expect((await svc.admin.post('/admin/v1/tenants', { tenantId, name: tenantId, plan })).status).toBe(201);
  const key = await svc.admin.post(`/admin/v1/tenants/${tenantId}/keys`, { label: 'e2e' });
  expect(key.status).toBe(201);
  return apiClient(svc.baseUrl, key.json.apiKey as string);
}

const TWO_PAGES = '<div style="page-break-after:always">one</div><div>two</div>';

/** A sync HTML render: its request id, its link and its file. */
async function render(api: ApiClient, html: string): Promise<{ requestId: string; signedUrl: string; bytes: Uint8Array }> {
  const res = await api.post('/v1/html-to-pdf/sync', { html });
  expect(res.status, res.text).toBe(200);
  const file = await download(res.json.signedUrl as string);
  expect(file.status).toBe(200);
  return { requestId: res.headers.get('x-request-id') ?? '', signedUrl: res.json.signedUrl as string, bytes: file.bytes };
}

/** Where the embedded profile keeps a render's stored payload (our own storage, local disk). */
const payloadFile = (svc: Svc, tenantId: string, requestId: string) =>
  join(svc.dataDir, 'files', 'objects', tenantId, `${requestId}.payload.json`);

/** The raw log of one render, as `ops events` prints it. */
async function rawEvents(
  svc: Svc,
  requestId: string,
): Promise<{ text: string; events: { type: string; data: Record<string, unknown> }[] }> {
  const out = await runOps(svc.app.env, ['events', '--request', requestId]);
  expect(out.code, out.stderr).toBe(0);
  const events = out.stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { event: { type: string; data: Record<string, unknown> } }).event);
  return { text: out.stdout, events };
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('embedded profile: retention, DELETE and usage, with two tenants', () => {
  let svc: Svc;
  let acme: ApiClient; // plan high: files kept 2 seconds
  let globex: ApiClient; // plan standard: files kept 30 days (the default)
  const sent = { acme: { ok: 0, failed: 0, pages: 0, bytes: 0 }, globex: { ok: 0, failed: 0, pages: 0, bytes: 0 } };

  beforeAll(async () => {
    svc = await startEmbedded({
      // Both plans have the render cache (issue 13): identical renders of a tenant are copies.
      PRESSROOM_PLANS: unlimitedPlans({ standard: { renderCache: true }, high: { retention: '2s', renderCache: true } }),
      PRESSROOM_RETENTION_SWEEP_INTERVAL_MS: '300',
    });
    acme = await tenant(svc, 'acme', 'high');
    globex = await tenant(svc, 'globex', 'standard');
  });
  afterAll(async () => {
    await svc?.app.stop();
  });

  it("expires a high tenant's file after its retention (status and link answer 410 EXPIRED); a standard tenant's stays", async () => {
    // Given a file of each tenant, globex's the older one
    const kept = await render(globex, '<p>kept</p>');
    const expiring = await render(acme, TWO_PAGES);
    // Its payload is in our storage, not on the log: the log holds its hash and size, never the HTML
    expect(existsSync(payloadFile(svc, 'acme', expiring.requestId))).toBe(true);
    const raw = await rawEvents(svc, expiring.requestId);
    expect(raw.text).not.toContain('page-break-after');
    const source = Buffer.from(JSON.stringify({ kind: 'html', html: TWO_PAGES }));
    const fingerprint = { sha256: createHash('sha256').update(source).digest('hex'), bytes: source.byteLength };
    expect(raw.events.find((e) => e.type === 'RenderRequested')?.data.source).toEqual({
      kind: 'stored',
      of: 'html',
      payload: { key: `acme/${expiring.requestId}.payload.json`, ...fingerprint },
    });
    sent.globex.ok++;
    sent.globex.bytes += kept.bytes.byteLength;
    sent.globex.pages += Number((await pdfInfo(kept.bytes)).Pages);
    sent.acme.ok++;
    sent.acme.bytes += expiring.bytes.byteLength;
    sent.acme.pages += Number((await pdfInfo(expiring.bytes)).Pages);

    // When acme's plan retention (2 s) has passed, the sweeper removes its file
    await waitFor(async () => (await acme.get(`/v1/pdf/status/${expiring.requestId}`)).status === 410, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: 'the file to expire',
    });

    // Then its status says so, in the error shape, and so does the link it was given
    const status = await acme.get(`/v1/pdf/status/${expiring.requestId}`);
    expect(status.json.error.code).toBe('EXPIRED');
    const link = await fetch(expiring.signedUrl);
    expect(link.status).toBe(410);
    expect(((await link.json()) as { error: { code: string } }).error.code).toBe('EXPIRED');
    // And the history records the removal, and the outcome identifies the payload by hash and size
    const history = await acme.get(`/v1/pdf/${expiring.requestId}/events`);
    const events = history.json.events as { type: string; data: Record<string, unknown> }[];
    expect(events.map((e) => e.type)).toContain('ArtifactRemoved');
    expect(events.find((e) => e.type === 'RenderSucceeded')?.data.payload).toEqual(fingerprint);
    expect(events.find((e) => e.type === 'RenderRequested')?.data.source).toEqual({ kind: 'html', payload: fingerprint });
    expect(history.text).not.toContain('page-break-after');
    // And the payload expired with the file
    expect(existsSync(payloadFile(svc, 'acme', expiring.requestId))).toBe(false);
    expect(events.find((e) => e.type === 'ArtifactRemoved')?.data.keys).toContain(`acme/${expiring.requestId}.payload.json`);

    // While globex's older file (standard keeps files) still downloads
    expect((await download(kept.signedUrl)).status).toBe(200);
    expect((await globex.get(`/v1/pdf/status/${kept.requestId}`)).json.renderStatus).toBe('SUCCESS');
  });

  it("renders a request that waited longer than its plan's retention: the retention counts from the render's outcome, not from the accepted payload", async () => {
    // Given both pages busy for 3.5 s with acme's slow renders (retention 2 s), and one more queued behind them
    const slow = [1, 2].map((n) => acme.post('/v1/html-to-pdf/sync', { html: slowHtml(3500, `slow ${n}`) }));
    await new Promise((r) => setTimeout(r, 300));
    const queued = acme.post('/v1/html-to-pdf/sync', { html: '<p>queued past the retention</p>' });

    // When the sweeper runs (every 300 ms) while their payloads are older than the retention and
    // none of them has an outcome yet; each file is fetched as soon as its answer comes (it expires
    // 2 s after its render)
    const rendered = await Promise.all(
      [...slow, queued].map(async (answer) => {
        const res = await answer;
        expect(res.status, res.text).toBe(200);
        return { res, file: await download(res.json.signedUrl as string) };
      }),
    );

    // Then every one of them rendered, and its file was there to download
    for (const { file } of rendered) {
      expect(file.status).toBe(200);
      expect(Buffer.from(file.bytes.subarray(0, 5)).toString()).toBe('%PDF-');
      sent.acme.ok++;
      sent.acme.bytes += file.bytes.byteLength;
      sent.acme.pages += Number((await pdfInfo(file.bytes)).Pages);
    }
    // And the removal that does come later is recorded once per render, after its outcome
    const id = rendered[2]!.res.headers.get('x-request-id') ?? '';
    await waitFor(async () => (await acme.get(`/v1/pdf/status/${id}`)).status === 410, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: 'the queued render to expire after its outcome',
    });
    const types = ((await acme.get(`/v1/pdf/${id}/events`)).json.events as { type: string }[]).map((e) => e.type);
    expect(types.indexOf('ArtifactRemoved')).toBeGreaterThan(types.indexOf('RenderSucceeded'));
  });

  it('DELETE removes a render now: 204, file gone, status 410 DELETED; another tenant gets 404', async () => {
    // Given a render of globex
    const r = await render(globex, TWO_PAGES);
    sent.globex.ok++;
    sent.globex.bytes += r.bytes.byteLength;
    sent.globex.pages += Number((await pdfInfo(r.bytes)).Pages);

    // When acme deletes it: unknown to acme, nothing removed
    const foreign = await acme.del(`/v1/pdf/${r.requestId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('NOT_FOUND');
    expect((await download(r.signedUrl)).status).toBe(200);

    // When globex deletes it
    expect(existsSync(payloadFile(svc, 'globex', r.requestId))).toBe(true);
    expect((await globex.del(`/v1/pdf/${r.requestId}`)).status).toBe(204);

    // Then its stored payload is gone too, recorded in the removal
    expect(existsSync(payloadFile(svc, 'globex', r.requestId))).toBe(false);
    const removed = (await rawEvents(svc, r.requestId)).events.find((e) => e.type === 'ArtifactRemoved');
    expect(removed?.data).toMatchObject({ reason: 'DELETED', keys: expect.arrayContaining([`globex/${r.requestId}.payload.json`]) });

    // Then the file is gone and the status says it was deleted
    expect((await download(r.signedUrl)).status).toBe(410);
    const status = await globex.get(`/v1/pdf/status/${r.requestId}`);
    expect(status.status).toBe(410);
    expect(status.json.error.code).toBe('DELETED');
    // Deleting again is fine; an unknown id is 404
    expect((await globex.del(`/v1/pdf/${r.requestId}`)).status).toBe(204);
    expect((await globex.del('/v1/pdf/0190d2c4-0000-7000-8000-000000000000')).status).toBe(404);
  });

  it('serves an identical render of the same tenant from the cache, never to another tenant; opt-out and DELETE keep working', async () => {
    type Ev = { type: string; data: Record<string, unknown> };
    const eventsOf = async (api: ApiClient, requestId: string) => (await api.get(`/v1/pdf/${requestId}/events`)).json.events as Ev[];
    const succeeded = (events: Ev[]) => events.find((e) => e.type === 'RenderSucceeded')?.data;
    const html = `<h1>Invoice</h1><p>${'cached line '.repeat(40)}</p>`;
    const count = (t: keyof typeof sent, r: { bytes: Uint8Array }) => {
      sent[t].ok++;
      sent[t].bytes += r.bytes.byteLength;
      sent[t].pages += 1;
    };

    // Given a render of globex
    const first = await render(globex, html);
    count('globex', first);
    const firstEvents = await eventsOf(globex, first.requestId);
    expect(succeeded(firstEvents)?.cache).toMatchObject({ hit: false });

    // When globex sends the identical render again
    const res = await globex.post('/v1/html-to-pdf/sync', { html });
    expect(res.status, res.text).toBe(200);
    const second = { requestId: res.headers.get('x-request-id') ?? '', bytes: (await download(res.json.signedUrl as string)).bytes };
    count('globex', second);

    // Then it is a copy of the first file, served without Chromium, and says so
    expect(res.json.metadata.cached).toBe(true);
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    const secondEvents = await eventsOf(globex, second.requestId);
    expect(succeeded(secondEvents)?.cache).toEqual({
      key: (succeeded(firstEvents)?.cache as { key: string }).key,
      hit: true,
      from: first.requestId,
    });
    expect(secondEvents.map((e) => e.type)).not.toContain('RenderAttemptStarted');
    expect((await globex.get(`/v1/pdf/status/${second.requestId}`)).json.metadata.cached).toBe(true);

    // And another tenant sending the identical input gets its own render, never globex's file
    const foreign = await acme.post('/v1/html-to-pdf/sync', { html });
    expect(foreign.status, foreign.text).toBe(200);
    expect(foreign.json.metadata.cached).toBeUndefined();
    const foreignId = foreign.headers.get('x-request-id') ?? '';
    count('acme', await download(foreign.json.signedUrl as string));
    const foreignEvents = await eventsOf(acme, foreignId);
    expect(succeeded(foreignEvents)?.cache).toMatchObject({ hit: false });
    expect(foreignEvents.map((e) => e.type)).toContain('RenderAttemptStarted');

    // And a request with cache: false is rendered afresh, and not recorded in the cache
    const fresh = await globex.post('/v1/html-to-pdf/sync', { html, cache: false });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.json.metadata.cached).toBeUndefined();
    const freshId = fresh.headers.get('x-request-id') ?? '';
    count('globex', await download(fresh.json.signedUrl as string));
    const freshEvents = await eventsOf(globex, freshId);
    expect(succeeded(freshEvents)?.cache).toBeUndefined();
    expect(freshEvents.map((e) => e.type)).toContain('RenderAttemptStarted');

    // When the first render is deleted, the copy still downloads
    expect((await globex.del(`/v1/pdf/${first.requestId}`)).status).toBe(204);
    const copy = await download(res.json.signedUrl as string);
    expect(copy.status).toBe(200);
    expect(Buffer.from(copy.bytes).equals(Buffer.from(first.bytes))).toBe(true);

    // And when every cached file is gone, the next identical render is rendered again (no broken file)
    expect((await globex.del(`/v1/pdf/${second.requestId}`)).status).toBe(204);
    const again = await render(globex, html);
    count('globex', again);
    expect(succeeded(await eventsOf(globex, again.requestId))?.cache).toMatchObject({ hit: false });
    expect(Number((await pdfInfo(again.bytes)).Pages)).toBe(1);
  });

  it('usage counts renders by outcome, pages and bytes per tenant, through the API and the ops CLI', async () => {
    // Given a failed render of acme (a page range the document does not have)
    const failed = await acme.post('/v1/html-to-pdf/sync', { html: '<p>one page</p>', pdfParams: { pageRanges: '5' } });
    expect(failed.status, failed.text).toBeGreaterThanOrEqual(400);
    sent.acme.failed++;

    // When each tenant asks for its usage (a range around today: a render may cross midnight UTC)
    const range = `from=${day(-1)}&to=${day(1)}`;
    const total = (days: { renders: { succeeded: number; failed: number }; pages: number; bytes: number; tenantId: string }[]) => ({
      ok: days.reduce((n, d) => n + d.renders.succeeded, 0),
      failed: days.reduce((n, d) => n + d.renders.failed, 0),
      pages: days.reduce((n, d) => n + d.pages, 0),
      bytes: days.reduce((n, d) => n + d.bytes, 0),
    });
    const acmeUsage = await acme.get(`/v1/usage?${range}`);
    const globexUsage = await globex.get(`/v1/usage?${range}`);

    // Then each sees exactly what it sent, and only its own days
    expect(acmeUsage.status, acmeUsage.text).toBe(200);
    expect(acmeUsage.json.days.every((d: { tenantId: string }) => d.tenantId === 'acme')).toBe(true);
    expect(total(acmeUsage.json.days)).toEqual(sent.acme);
    expect(total(globexUsage.json.days)).toEqual(sent.globex);
    expect(acmeUsage.json.days[0].renderSeconds).toBeGreaterThan(0);

    // And the operator sees both tenants (the CLI goes through the admin API: the service holds the data dir)
    const ops = await runOps(svc.app.env, ['usage', '--from', day(-1), '--to', day(1)]);
    expect(ops.code, ops.stderr).toBe(0);
    const all = JSON.parse(ops.stdout) as { days: Parameters<typeof total>[0] };
    expect(total(all.days.filter((d) => d.tenantId === 'acme'))).toEqual(sent.acme);
    expect(total(all.days.filter((d) => d.tenantId === 'globex'))).toEqual(sent.globex);

    // A bad range is a 400 in the error shape
    const bad = await acme.get('/v1/usage?from=2026-13-01&to=2026-01-01');
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('VALIDATION_FAILED');
  });
});
