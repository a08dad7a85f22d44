import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '@pressroom/schemas';
import { download } from '../support/api-client.ts';
import { readEmbeddedLogLines, startEmbedded } from '../support/embedded-service.ts';
import { faultLoad, MIXED } from '../support/fault-load.ts';
import { pdfText } from '../support/pdf-tools.ts';
import { settleAndCheckLedger, type LedgerSubmission } from '../support/ledger.ts';
import { ScriptedReceiver } from '../support/scripted-receiver.ts';
import { AppProcess } from '../support/service-process.ts';

type Svc = Awaited<ReturnType<typeof startEmbedded>>;

const LOAD = 50;

/**
 * Issue 8, embedded profile: the whole service (`npm start`'s process group) SIGKILLed under
 * ~50 mixed sync/async renders with webhooks, then started again on the same data dir. Every
 * request that reached the log completes exactly once (one outcome, its file opens, its
 * webhook delivered under one `webhook-id`); a sync caller cut off by the crash gets its answer
 * from the status API. An Idempotency-Key answered before the crash still answers its request
 * after it (the keys are rebuilt from the log), and 422 with another body.
 */
describe('embedded profile: process-group SIGKILL under load, restart on the same data dir', () => {
  const receiver = new ScriptedReceiver();
  let svc: Svc;
  let restarted: AppProcess | undefined;

  /** The embedded log's files: one JSON line per record (the running service owns the log). */
  const readEvents = async (): Promise<LogEvent[]> => {
    const events: LogEvent[] = [];
    for (const line of await readEmbeddedLogLines(svc.dataDir)) {
      try {
        events.push((JSON.parse(line) as { event: LogEvent }).event);
      } catch {
        /* a line torn by the kill; the log's reader skips it too */
      }
    }
    return events;
  };

  beforeAll(async () => {
    await receiver.start();
    svc = await startEmbedded({
      PRESSROOM_RENDER_PAGES: '2',
      PRESSROOM_SYNC_TIMEOUT_MS: '15000',
      PRESSROOM_WEBHOOK_RETRY_BASE_MS: '300',
      PRESSROOM_WEBHOOK_RETRY_MAX_MS: '2000',
    });
  }, 120_000);
  afterAll(async () => {
    await restarted?.stop();
    await svc?.app.stop();
    await receiver.stop();
  }, 60_000);

  it(`completes every one of ${LOAD} mixed renders exactly once after the crash`, async () => {
    const load = faultLoad(svc.api, receiver, 'embedded-kill');
    // A keyed request answered before the crash: its key must survive it (the keys are rebuilt from the log).
    const keyed = (html: string) => svc.api.call('POST', '/v1/html-to-pdf/sync', { html }, { 'idempotency-key': 'crash-key-1' });
    const before = await keyed('<p>keyed before the crash</p>');
    expect(before.status).toBe(200);
    // Given a mixed load in progress, some renders done and some not
    const inFlight: Promise<LedgerSubmission>[] = [];
    for (let i = 0; i < LOAD; i++) inFlight.push(load.send(MIXED[i % MIXED.length]!));
    await svc.app.waitForLog(
      (l) => l.msg === 'render finished' && svc.app.output.filter((o) => o.includes('"render finished"')).length >= 8,
      120_000,
    );

    // When the whole service is killed (process group, SIGKILL) and started again on its data dir
    await svc.app.kill();
    const cutOff = (await Promise.all(inFlight)).filter((s) => s.status === 0).length;
    restarted = await new AppProcess('standalone', svc.app.env, svc.app.port).start();

    // Then every request that reached the log ends exactly once, with its file and its webhook
    const { report } = await settleAndCheckLedger({
      submissions: load.submissions,
      readEvents,
      settle: { timeoutMs: 150_000 },
      webhookCalls: () => load.webhookCalls(),
      status: (id) => svc.api.get(`/v1/pdf/status/${id}`),
      download: async (url) => (await download(url)).bytes,
    });
    const ids = load.webhookCalls().map((c) => c.webhookId);
    const notRenderedAgain = restarted.output.filter((l) => l.includes('already decided on the log')).length;
    console.info('embedded kill ledger', {
      ...report.figures,
      cutOff,
      notRenderedAgain,
      repeatedWebhookIds: ids.length - new Set(ids).size,
    });
    expect(cutOff).toBeGreaterThan(0); // the kill came while requests were open
    expect(report.violations).toEqual([]);

    // And a retry with the key answered before the crash gets the same request and file, rendered once;
    // the key with another body is still refused
    const retried = await keyed('<p>keyed before the crash</p>');
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotency-replayed')).toBe('true');
    expect(retried.headers.get('x-request-id')).toBe(before.headers.get('x-request-id'));
    expect(await pdfText((await download(retried.json.signedUrl)).bytes)).toContain('keyed before the crash');
    expect((await keyed('<p>another body</p>')).status).toBe(422);
    const keyedOnLog = (await readEvents()).filter((e) => e.type === 'RenderRequested' && e.data.idempotencyKey === 'crash-key-1');
    expect(keyedOnLog.map((e) => ('requestId' in e ? e.requestId : ''))).toEqual([before.headers.get('x-request-id')]);
  }, 360_000);
});
