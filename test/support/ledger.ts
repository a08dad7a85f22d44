/**
 * The ledger check: after a fault scenario, do the client's answers, the log, the status API and
 * the webhooks a receiver got tell one story? Reusable by every fault test (broker stopped,
 * Redis flushed, S3 down, processes killed...). It only reads; it decides nothing about timing:
 * call `settleLedger` first (or wait your own way) so the system has finished what it will do.
 *
 * What the scenario records per logical request (one `LedgerSubmission` per HTTP answer, so a
 * retry is a second submission with the same `tag`):
 * - `tag`: a marker unique to the logical request that its document carries (in the HTML or the
 *   template data), so its RenderRequested events can be found on the log even when the answer
 *   carried no requestId (a 503);
 * - the HTTP status and, when accepted (200/202), the requestId of the answer;
 * - the receiver path of its webhook, when it has one; its Idempotency-Key, when sent.
 *
 * Rules checked (each broken one is one line in `violations`):
 * 1. Every accepted request reaches exactly one terminal state: its status answers SUCCESS or
 *    FAILED, and the log holds exactly one render outcome for it (a redelivered request is not
 *    rendered again); a SUCCESS's file opens (PDF or PNG bytes). A request whose client got no
 *    answer at all (status 0: the connection died with the process) may or may not have been
 *    taken: if it reached the log, it is held to this rule like an accepted one.
 * 2. A request answered 503 (or any other refusal) is never rendered: every requestId on the log
 *    carrying a tag, other than the tag's accepted (and 504) requestIds, ends withdrawn (no render
 *    outcome is its first terminal event) and its status answers 404. A refused attempt retried
 *    with its Idempotency-Key counts as the accepted retry's requestId only (a new attempt).
 *    A request answered `504 OUTCOME_UNKNOWN` (its requestId in the answer) may or may not have
 *    run, but its story is one: at most one render outcome; its status answers what its first
 *    terminal event says (the result, or 404 when withdrawn or never written); a webhook only if
 *    its outcome came first (and then it must arrive).
 * 3. Attempts sharing an Idempotency-Key that were accepted got the same requestId, and of all the
 *    requests sent with one key at most one was rendered (its outcome first).
 * 4. Webhooks: a tag with no accepted answer gets no call; every call is for an accepted
 *    requestId of its tag; one result has one `webhook-id`; every delivered `webhook-id` is on the
 *    log (a WebhookAttempted or WebhookDelivered event with that id); every accepted request with
 *    a webhook whose outcome came first reached the receiver (at least once: a delivery cut short
 *    by a crash is sent again with the same `webhook-id`).
 */
import type { LogEvent } from '@pressroom/schemas';

export interface LedgerSubmission {
  tag: string;
  /** The HTTP status the client got. */
  status: number;
  /** The error code of a refusal (e.g. `OUTCOME_UNKNOWN` with a 504). */
  code?: string;
  /** The requestId of an accepted answer (200 / 202), or of a 504 OUTCOME_UNKNOWN. */
  requestId?: string;
  /** The receiver path its webhook points at, for async requests with a webhook. */
  webhookPath?: string;
  idempotencyKey?: string;
}

export interface LedgerWebhookCall {
  path: string;
  webhookId: string;
  /** The requestId in the delivered body. */
  requestId: string;
}

export interface LedgerInput {
  submissions: LedgerSubmission[];
  /** Every render and webhook event on the log, in log order per request. */
  events: LogEvent[];
  webhookCalls: LedgerWebhookCall[];
  /** `GET /v1/pdf/status/{id}` of the tenant that sent the requests. */
  status(requestId: string): Promise<{ status: number; json: any }>;
  /** Fetches a signed URL; resolves with the file's bytes. */
  download(url: string): Promise<Uint8Array>;
}

export interface LedgerReport {
  violations: string[];
  /** Counts, for the test's log and the report. */
  figures: {
    submissions: number;
    accepted: number;
    refused: number;
    refusedWrittenLater: number;
    refusedRendered: number;
    /** Answered 504 OUTCOME_UNKNOWN, and of those, rendered after all (outcome first). */
    unknown: number;
    unknownTaken: number;
    webhookCalls: number;
  };
}

const RENDER_OUTCOMES = new Set(['RenderSucceeded', 'RenderFailed']);
const TERMINAL = new Set(['RenderSucceeded', 'RenderFailed', 'RenderWithdrawn']);
const accepted = (s: LedgerSubmission) => s.status === 200 || s.status === 202;
/** No answer at all (the process died with the connection): taken or not, the client cannot tell. */
const unanswered = (s: LedgerSubmission) => s.status === 0;
/** The ingress could not tell whether it was taken, and said so (504 OUTCOME_UNKNOWN, with its requestId). */
const outcomeUnknown = (s: LedgerSubmission) => s.status === 504 && s.code === 'OUTCOME_UNKNOWN';

/** Checks the rules above; never throws for a broken rule, it lists it. */
export async function checkLedger(input: LedgerInput): Promise<LedgerReport> {
  const violations: string[] = [];
  const byTag = groupBy(input.submissions, (s) => s.tag);

  // requestIds per tag, from the RenderRequested events that carry it; first terminal event per request.
  const idsByTag = new Map<string, Set<string>>();
  const firstTerminal = new Map<string, string>();
  // Distinct outcome events per request: a record written twice (an append retried after its
  // acknowledgement was lost) is one fact, the same eventId; a second render is a second event.
  const outcomes = new Map<string, Map<string, string>>();
  const loggedWebhookIds = new Set<string>();
  for (const e of input.events) {
    if (!('requestId' in e)) continue;
    if (e.type === 'RenderRequested') {
      const text = JSON.stringify(e.data.source);
      for (const tag of byTag.keys()) if (text.includes(tag)) getOr(idsByTag, tag, () => new Set()).add(e.requestId);
    }
    if (TERMINAL.has(e.type) && !firstTerminal.has(e.requestId)) firstTerminal.set(e.requestId, e.type);
    if (RENDER_OUTCOMES.has(e.type))
      getOr(outcomes, e.requestId, () => new Map<string, string>()).set(
        e.eventId,
        `${e.type} by ${'worker' in e.data ? String(e.data.worker) : '?'} at ${e.occurredAt}`,
      );
    if ((e.type === 'WebhookAttempted' || e.type === 'WebhookDelivered') && e.data.webhookId) loggedWebhookIds.add(e.data.webhookId);
  }

  let refused = 0;
  let refusedWrittenLater = 0;
  let refusedRendered = 0;
  let unknown = 0;
  let unknownTaken = 0;
  for (const [tag, subs] of byTag) {
    const acceptedIds = new Set(subs.filter(accepted).map((s) => s.requestId ?? ''));
    if (acceptedIds.has('')) violations.push(`${tag}: accepted without a requestId`);
    // Unanswered and never answered otherwise: whatever of it reached the log was taken.
    if (acceptedIds.size === 0 && subs.every(unanswered)) for (const id of idsByTag.get(tag) ?? []) acceptedIds.add(id);
    refused += subs.filter((s) => !accepted(s) && !unanswered(s) && !outcomeUnknown(s)).length;
    const unknownIds = new Set(subs.filter(outcomeUnknown).map((s) => s.requestId ?? ''));
    unknown += unknownIds.size;
    if (unknownIds.has('')) violations.push(`${tag}: answered 504 OUTCOME_UNKNOWN without a requestId`);
    for (const id of acceptedIds) unknownIds.delete(id); // a retry with its key was answered with it: held as accepted
    /** Whether this request was taken after all: its render's outcome is its first terminal event. */
    const taken = (id: string) => RENDER_OUTCOMES.has(firstTerminal.get(id) ?? '');

    // Rule 3: one key, one requestId.
    for (const [key, keyed] of groupBy(
      subs.filter((s) => s.idempotencyKey !== undefined && accepted(s)),
      (s) => s.idempotencyKey ?? '',
    )) {
      const ids = new Set(keyed.map((s) => s.requestId));
      if (ids.size > 1) violations.push(`${tag}: Idempotency-Key ${key} answered ${ids.size} requestIds (${[...ids].join(', ')})`);
    }
    for (const [key, keyed] of groupBy(
      subs.filter((s) => s.idempotencyKey !== undefined),
      (s) => s.idempotencyKey ?? '',
    )) {
      const rendered = new Set(keyed.map((s) => s.requestId ?? '').filter((id) => id && taken(id)));
      if (rendered.size > 1)
        violations.push(`${tag}: Idempotency-Key ${key} was rendered ${rendered.size} times (${[...rendered].join(', ')})`);
    }

    // Rule 2, for 504 OUTCOME_UNKNOWN: one story, whichever it is.
    for (const requestId of unknownIds) {
      if (!requestId) continue;
      const rendered = outcomes.get(requestId)?.size ?? 0;
      if (rendered > 1)
        violations.push(
          `${tag}: 504 ${requestId} has ${rendered} render outcomes on the log: ${[...(outcomes.get(requestId)?.values() ?? [])].join('; ')}`,
        );
      const res = await input.status(requestId);
      if (taken(requestId)) {
        unknownTaken += 1;
        const want = firstTerminal.get(requestId) === 'RenderSucceeded' ? 'SUCCESS' : 'FAILED';
        if (res.status !== 200 || res.json?.renderStatus !== want)
          violations.push(
            `${tag}: 504 ${requestId} was rendered (${want}) but its status answers ${res.status} ${JSON.stringify(res.json)}`,
          );
      } else if (res.status !== 404) {
        violations.push(`${tag}: 504 ${requestId} was not rendered but its status answers ${res.status}, not 404`);
      }
    }

    // Rule 1.
    for (const requestId of acceptedIds) {
      if (!requestId) continue;
      const rendered = outcomes.get(requestId)?.size ?? 0;
      if (rendered === 0) violations.push(`${tag}: accepted ${requestId} has no render outcome on the log`);
      if (rendered > 1)
        violations.push(
          `${tag}: accepted ${requestId} has ${rendered} render outcomes on the log (rendered more than once): ${[...(outcomes.get(requestId)?.values() ?? [])].join('; ')}`,
        );
      if (firstTerminal.get(requestId) === 'RenderWithdrawn') violations.push(`${tag}: accepted ${requestId} was withdrawn`);
      const res = await input.status(requestId);
      if (res.status !== 200 || (res.json?.renderStatus !== 'SUCCESS' && res.json?.renderStatus !== 'FAILED')) {
        violations.push(`${tag}: accepted ${requestId} is not terminal (status ${res.status} ${JSON.stringify(res.json)})`);
      } else if (res.json.renderStatus === 'SUCCESS') {
        const bytes = await input.download(res.json.signedUrl);
        const head = Buffer.from(bytes.slice(0, 4)).toString('latin1');
        if (head !== '%PDF' && head !== '\x89PNG')
          violations.push(`${tag}: the file of ${requestId} does not open (${JSON.stringify(head)})`);
      }
    }

    // Rule 2.
    const others = [...(idsByTag.get(tag) ?? [])].filter((id) => !acceptedIds.has(id) && !unknownIds.has(id));
    if (acceptedIds.size === 0 || subs.some((s) => !accepted(s) && !unanswered(s))) refusedWrittenLater += others.length;
    for (const requestId of others) {
      const first = firstTerminal.get(requestId);
      if (first !== 'RenderWithdrawn') {
        refusedRendered += first ? 1 : 0;
        violations.push(
          `${tag}: refused request ${requestId} was written to the log and ${first ? `ended ${first}` : 'has no terminal event'}`,
        );
      }
      const res = await input.status(requestId);
      if (res.status !== 404) violations.push(`${tag}: refused request ${requestId} answers status ${res.status}, not 404`);
    }

    // Rule 4.
    const paths = new Set(subs.map((s) => s.webhookPath).filter((p): p is string => p !== undefined));
    const calls = input.webhookCalls.filter((c) => paths.has(c.path));
    for (const c of calls) {
      if (!acceptedIds.has(c.requestId) && !(unknownIds.has(c.requestId) && taken(c.requestId)))
        violations.push(`${tag}: webhook ${c.webhookId} delivered for ${c.requestId}, which was not accepted`);
      if (!loggedWebhookIds.has(c.webhookId)) violations.push(`${tag}: webhook ${c.webhookId} reached the receiver but is not on the log`);
    }
    const webhookExpected = subs.some((s) => s.webhookPath !== undefined);
    for (const requestId of [...acceptedIds, ...unknownIds]) {
      const first = firstTerminal.get(requestId);
      if (webhookExpected && first && RENDER_OUTCOMES.has(first) && !calls.some((c) => c.requestId === requestId))
        violations.push(`${tag}: accepted ${requestId} ended ${first} but its webhook never reached the receiver`);
    }
    for (const [requestId, forRequest] of groupBy(calls, (c) => c.requestId)) {
      const ids = new Set(forRequest.map((c) => c.webhookId));
      if (ids.size > 1) violations.push(`${tag}: ${requestId} was delivered with ${ids.size} webhook-ids`);
    }
  }

  return {
    violations,
    figures: {
      submissions: input.submissions.length,
      accepted: input.submissions.filter(accepted).length,
      refused,
      refusedWrittenLater,
      refusedRendered,
      unknown,
      unknownTaken,
      webhookCalls: input.webhookCalls.length,
    },
  };
}

/**
 * True when the log has decided every request it holds for these submissions: each
 * RenderRequested carrying a tag, and each accepted requestId, has a terminal event (an outcome or
 * a withdrawal), and each first outcome that names a webhook has its delivery ended
 * (WebhookDelivered or WebhookFailed). A scenario polls this (`settleLedger`) before `checkLedger`.
 */
export function ledgerDecided(submissions: LedgerSubmission[], events: LogEvent[]): boolean {
  return undecidedRequests(submissions, events).length === 0;
}

/** The requests the ledger still waits for: taken (on the log or answered as accepted) but not ended, or their webhook not ended. */
export function undecidedRequests(submissions: LedgerSubmission[], events: LogEvent[]): string[] {
  const tags = [...new Set(submissions.map((s) => s.tag))];
  const requested = new Set<string>();
  const first = new Map<string, LogEvent>();
  const deliveryEnded = new Set<string>();
  for (const e of events) {
    if (!('requestId' in e)) continue;
    if (e.type === 'RenderRequested' && tags.some((t) => JSON.stringify(e.data.source).includes(t))) requested.add(e.requestId);
    if (TERMINAL.has(e.type) && !first.has(e.requestId)) first.set(e.requestId, e);
    if (e.type === 'WebhookDelivered' || e.type === 'WebhookFailed') deliveryEnded.add(e.requestId);
  }
  for (const s of submissions) if (s.requestId && accepted(s)) requested.add(s.requestId);
  return [...requested].filter((id) => {
    const e = first.get(id);
    if (!e) return true;
    const webhook = (e.type === 'RenderSucceeded' || e.type === 'RenderFailed') && e.data.webhook;
    return Boolean(webhook) && !deliveryEnded.has(id);
  });
}

/** What the log holds for each undecided request (the first few), for a failure message. */
function describeUndecided(submissions: LedgerSubmission[], events: LogEvent[]): string {
  const ids = undecidedRequests(submissions, events);
  const lines = ids.slice(0, 5).map((id) => {
    const types = events.filter((e) => 'requestId' in e && e.requestId === id).map((e) => e.type);
    const answered = submissions.filter((s) => s.requestId === id).map((s) => s.status);
    return `${id}: answered ${JSON.stringify(answered)}, on the log ${JSON.stringify(types)}`;
  });
  return `${ids.length} undecided${lines.length ? `:\n${lines.join('\n')}` : ''}`;
}

/**
 * Waits until `ledgerDecided` holds on two reads of the log in a row (a request written late by
 * a retrying producer shows up between them), then returns the events of the last read.
 */
export async function settleLedger(
  submissions: LedgerSubmission[],
  readEvents: () => Promise<LogEvent[]>,
  opts: { timeoutMs: number; pauseMs?: number },
): Promise<LogEvent[]> {
  const until = Date.now() + opts.timeoutMs;
  let previous = -1;
  for (;;) {
    const events = await readEvents();
    const decided = ledgerDecided(submissions, events);
    if (decided && events.length === previous) return events;
    previous = decided ? events.length : -1;
    if (Date.now() > until)
      throw new Error(
        `the log did not settle within ${opts.timeoutMs} ms (${events.length} events; ${describeUndecided(submissions, events)})`,
      );
    await new Promise((r) => setTimeout(r, opts.pauseMs ?? 2_000));
  }
}

/** The calls a receiver got, as the ledger reads them (its `webhook-id` header, the requestId of its body). */
export function ledgerWebhookCalls(
  calls: readonly { path: string; headers: Record<string, string | string[] | undefined>; body?: unknown }[],
): LedgerWebhookCall[] {
  return calls.map((c) => ({
    path: c.path,
    webhookId: String(c.headers['webhook-id']),
    requestId: String((c.body as { requestId?: unknown } | undefined)?.requestId),
  }));
}

/**
 * How every fault scenario ends: wait until the log has settled (`settleLedger`), then check the
 * ledger on those events. Answers both, for the scenario's own assertions on the events. The
 * receiver's calls are read after the settle (a thunk): read before it, webhooks still on their
 * way would count as never delivered.
 */
export async function settleAndCheckLedger(
  input: Omit<LedgerInput, 'events' | 'webhookCalls'> & {
    readEvents: () => Promise<LogEvent[]>;
    settle: { timeoutMs: number; pauseMs?: number };
    webhookCalls: () => LedgerWebhookCall[];
  },
): Promise<{ events: LogEvent[]; report: LedgerReport }> {
  const { readEvents, settle, webhookCalls, ...rest } = input;
  const events = await settleLedger(input.submissions, readEvents, settle);
  return { events, report: await checkLedger({ ...rest, events, webhookCalls: webhookCalls() }) };
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const item of items) getOr(m, key(item), () => []).push(item);
  return m;
}

function getOr<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) {
    v = make();
    m.set(k, v);
  }
  return v;
}
