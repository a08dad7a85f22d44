import { randomBytes } from 'node:crypto';
import type { ApiClient } from './api-client.ts';
import { ledgerWebhookCalls, type LedgerSubmission, type LedgerWebhookCall } from './ledger.ts';
import type { ScriptedReceiver } from './scripted-receiver.ts';

export interface RenderSpec {
  mode: 'sync' | 'async';
  webhook?: boolean;
  png?: boolean;
  /** The page's script keeps it loading this long: a render that is surely in progress for a while. */
  slowMs?: number;
}

/** The mix of a fault scenario: async (which always has a webhook) and sync, PDF and PNG, quick and slower. */
export const MIXED: RenderSpec[] = [
  { mode: 'async', webhook: true },
  { mode: 'sync' },
  { mode: 'async', webhook: true, png: true },
  { mode: 'async', webhook: true, slowMs: 1_000 },
  { mode: 'sync', png: true },
];

/**
 * Sends renders for a fault scenario and records each answer as a ledger submission. Each
 * request's HTML carries a unique tag (so the ledger finds it on the log); a webhook points at
 * the receiver under /hook/<tag>. A connection dropped by a crash is recorded as status 0.
 */
export function faultLoad(api: ApiClient, receiver: ScriptedReceiver, name: string) {
  const submissions: LedgerSubmission[] = [];
  let n = 0;
  async function send(spec: RenderSpec): Promise<LedgerSubmission> {
    const tag = `${name}-${++n}-${randomBytes(3).toString('hex')}`;
    const webhookPath = spec.webhook ? `/hook/${tag}` : undefined;
    // A busy script holds the load event (raw HTML has no ready signal to wait on).
    const slow = spec.slowMs ? `<script>const until = Date.now() + ${spec.slowMs}; while (Date.now() < until) {}</script>` : '';
    const body = {
      html: `<h1>${tag}</h1>${slow}`,
      ...(spec.png ? { convertToImage: true } : {}),
      ...(webhookPath ? { webhook: receiver.url(webhookPath) } : {}),
    };
    const res = await api
      .call('POST', `/v1/html-to-pdf/${spec.mode}`, body)
      .catch(() => ({ status: 0, json: undefined, headers: new Headers() }));
    // A sync success carries its requestId in the X-Request-Id header only.
    const requestId = (res.json?.requestId as string | undefined) ?? res.headers.get('x-request-id') ?? undefined;
    if (res.status >= 400) console.warn(`${name}: unexpected answer`, res.status, JSON.stringify(res.json));
    const s: LedgerSubmission = {
      tag,
      status: res.status,
      ...(res.json?.error?.code ? { code: String(res.json.error.code) } : {}),
      ...((res.status === 200 || res.status === 202 || res.status === 504) && requestId ? { requestId } : {}),
      ...(webhookPath ? { webhookPath } : {}),
    };
    submissions.push(s);
    return s;
  }
  return {
    submissions,
    send,
    webhookCalls: (): LedgerWebhookCall[] => ledgerWebhookCalls(receiver.calls),
  };
}
