import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfNoodle } from 'pdfnoodle';
import { distributedEnv } from '../support/distributed-service.ts';
import { download } from '../support/api-client.ts';
import { runOps } from '../support/ops-cli.ts';
import { textPdf } from '../support/pdf-fixtures.ts';
import { pdfInfo, pdfPageText } from '../support/pdf-tools.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

/**
 * A PDF tool on the distributed profile: uploads through S3 presigned PUTs (our bucket on the
 * S3 server), an async merge with a webhook through Kafka (render worker with qpdf), Redis
 * (status) and the dispatcher, and its events on the log (ops CLI).
 */
describe('distributed profile: async merge-pdfs with a webhook, inputs uploaded to S3', () => {
  let env: Env;
  let sdk: PdfNoodle;
  const hook = new WebhookReceiver();

  beforeAll(async () => {
    await hook.start();
    env = await distributedEnv();
    await env.start('ingress', env.ingressPort);
    await Promise.all([env.start('webhook-dispatcher'), env.start('status-projector'), env.start('render-worker')]);
    process.env.PDFNOODLE_BASE_URL = `http://127.0.0.1:${env.ingressPort}`;
    sdk = new PdfNoodle(env.apiKey);
  });
  afterAll(async () => {
    await env?.stopAll();
    await hook.stop();
  });

  it('merges S3 uploads, POSTs the tool status to the webhook, and records it all on the log', async () => {
    const urls: string[] = [];
    for (const [label, pages] of [
      ['A', 2],
      ['B', 1],
    ] as const) {
      const { data, error } = await sdk.tools.getSignedUploadUrl(`${label}.pdf`);
      expect(error).toBeNull();
      expect(data!.presignedUploadUrl).toContain('X-Amz-Signature');
      const put = await fetch(data!.presignedUploadUrl, { method: 'PUT', body: Buffer.from(await textPdf(label, pages)) });
      expect(put.status).toBe(200);
      urls.push(data!.presignedGetUrl);
    }

    const res = await env.api.post('/v1/tools/merge-pdfs', { urls, async: true, webhook: hook.url('/merged'), finalFilename: 'both.pdf' });
    expect(res.status).toBe(200);
    const requestId = res.json.requestId as string;
    // Shorter than the test's own limit, so a webhook that never comes fails naming what it waited
    // for (a clean-clone CI once timed the whole test out here, the step unknown; not seen again).
    const call = await hook.waitForCall('/merged', 45_000);
    expect(call.body).toMatchObject({ requestId, status: 'SUCCESS', result: { status: 'SUCCESS', fileName: 'both.pdf' } });
    const file = await download((call.body as { result: { url: string } }).result.url);
    expect(file.status).toBe(200);
    expect((await pdfInfo(file.bytes)).Pages).toBe('3');
    expect(await pdfPageText(file.bytes, 3)).toContain('Page 1 of B');

    const status = await env.api.get(`/v1/tools/status/${requestId}`);
    expect(status.json).toMatchObject({ requestId, status: 'SUCCESS', result: { fileName: 'both.pdf' } });

    const out = await runOps(env.env, ['events', '--request', requestId]);
    expect(out.code, out.stderr).toBe(0);
    const events = out.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string; data: Record<string, unknown> } }).event);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['RenderRequested', 'RenderSucceeded', 'WebhookDelivered']));
    expect(events.find((e) => e.type === 'RenderRequested')?.data).toMatchObject({
      source: { kind: 'pdf-tool', operation: { tool: 'merge-pdfs' } },
      tool: { name: 'merge-pdfs', fileName: 'both.pdf', expiresIn: 3600 },
    });
  }, 90_000);
});
