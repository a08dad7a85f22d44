import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedEnv } from '../support/distributed-service.ts';
import { download } from '../support/api-client.ts';
import { runOps } from '../support/ops-cli.ts';
import { pdfInfo, pdfText } from '../support/pdf-tools.ts';
import { ScriptedReceiver, verifyWithStandardWebhooks } from '../support/scripted-receiver.ts';

type Env = Awaited<ReturnType<typeof distributedEnv>>;

describe('distributed profile: a batch on Kafka, Redis and S3', () => {
  let env: Env;
  const receiver = new ScriptedReceiver();

  const eventTypes = async (requestId: string) => {
    const out = await runOps(env.env, ['events', '--request', requestId]);
    expect(out.code, out.stderr).toBe(0);
    return out.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
  };

  beforeAll(async () => {
    await receiver.start();
    env = await distributedEnv();
    await env.start('ingress', env.ingressPort);
    await Promise.all([env.start('webhook-dispatcher'), env.start('status-projector'), env.start('render-worker')]);
  });
  afterAll(async () => {
    await env?.stopAll();
    await receiver.stop();
  });

  it('renders the items, merges them, records the batch on the log and delivers one signed webhook', async () => {
    const secret = (await env.api.get('/v1/webhooks/secret')).json.secret as string;
    const good = (await env.api.post('/v1/templates', { name: 'item', content: '<p>Distributed item <%= it.n %></p>' })).json.templateId;
    const broken = (await env.api.post('/v1/templates', { name: 'broken', content: '<p><% throw new Error("broken on purpose") %></p>' }))
      .json.templateId;
    const res = await env.api.post('/v1/pdf/batch', {
      items: [
        { templateId: good, data: { n: 'A' } },
        { templateId: broken, data: {} },
        { templateId: good, data: { n: 'B' } },
      ],
      merge: true,
      webhook: receiver.script('/batch'),
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'PARTIAL_SUCCESS', total: 3, completed: 3, merge: true });
    const merged = await download(res.json.mergedUrl);
    expect((await pdfInfo(merged.bytes)).Pages).toBe('2');
    expect(await pdfText(merged.bytes)).toMatch(/Distributed item A[\s\S]*Distributed item B/);

    const [call] = await receiver.waitForCalls('/batch', 1);
    expect(verifyWithStandardWebhooks(secret, call!)).toMatchObject({ batchRequestId: res.json.batchRequestId, status: 'PARTIAL_SUCCESS' });

    // The batch is an entity on the log; each item a render of its own.
    const batchEvents = await eventTypes(res.json.batchRequestId);
    expect(batchEvents).toEqual(expect.arrayContaining(['BatchRequested', 'BatchCompleted']));
    expect((await env.api.get(`/v1/pdf/status/${res.json.results[1].requestId}`)).json).toMatchObject({ renderStatus: 'FAILED' });
    const status = await env.api.get(`/v1/pdf/batch/status/${res.json.batchRequestId}`);
    expect(status.json).toMatchObject({ status: 'PARTIAL_SUCCESS', mergedUrl: expect.any(String) });
  }, 120_000); // the ops CLI reads the log through Kafka: slow on a loaded machine
});
