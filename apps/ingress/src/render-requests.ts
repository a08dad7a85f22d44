import type { Http, RenderFailed, RenderRequested, RenderSucceeded, StatusViewEntry, StorageTarget } from '@pressroom/schemas';
import { createHash } from 'node:crypto';
import {
  PressroomError,
  appendNeverSent,
  batchMergeProblems,
  canonicalJson,
  decideKeyedAttempt,
  dataProblems,
  isTerminal,
  isWithdrawn,
  logUnavailable,
  outcomeUnknown,
  type RefusalVerdict,
  pdfParamsProblems,
  validationError,
  type DoorLimits,
  type PlanLimits,
  type FieldProblem,
  planForbids,
} from '@pressroom/domain';
import {
  consumeRetryDelayMs,
  type Catalog,
  type Clock,
  type EventFactory,
  type EventLog,
  type IdempotencyKeys,
  type Ids,
  type Logger,
  type RenderHeadStart,
  type StatusView,
  type StagedPayloads,
  type StoredPayloads,
  type Tenant,
  type TopicNames,
} from '@pressroom/core';
import { checkWebhookTarget } from '@pressroom/webhooks';
import { withTimeout } from '@pressroom/observability';

import { variablesOf, type Templates } from './templates.ts';
import {
  UNSAVED_TEMPLATE_ID,
  assembleRenderRequest,
  doorProblems,
  pdfParamsOf,
  resolveSource,
  storageWanted,
  storedTemplateWanted,
  webhookOf,
  type RenderInput,
  type ResolvedSource,
} from './request-assembly.ts';
import type { SchemaChecker } from './schema-validation/schema-checker.ts';
import type { CompletedFloor, Withdrawals } from './withdrawals.ts';
import type { Admission } from './admission.ts';
import { batchPlanRefusal } from './plan-limits.ts';
import { createAcceptedEntries } from './accepted-entries.ts';

export { UNSAVED_TEMPLATE_ID, type RenderInput } from './request-assembly.ts';

export interface RenderRequestsDeps {
  log: EventLog;
  view: StatusView;
  catalog: Catalog;
  templates: Templates;
  topics: TopicNames;
  ids: Ids;
  event: EventFactory;
  allowPrivateWebhooks: boolean;
  webhookTargets?: { allowHttp: boolean; allowedPorts: number[] };
  limits: DoorLimits;
  schemas: SchemaChecker;
  clock: Clock;
  logger: Logger;
  idempotency: IdempotencyKeys;
  withdrawals: Withdrawals;
  /** How long the ingress waits for the log to take a request before it answers 503 (the request's acceptBy). */
  acceptTimeoutMs: number;
  /** How long an Idempotency-Key is remembered. */
  idempotencyTtlMs: number;
  /** Back-pressure and per-tenant concurrency (429s), decided before anything is appended. */
  admission?: Admission;
  /** Each plan's quotas (the batch size here). */
  plans?: Record<string, PlanLimits>;
  /** Request payloads go to our own storage before the append (PRESSROOM_PAYLOADS=store); absent: inline on the log. */
  payloads?: StoredPayloads;
  /** The render worker of this process, offered each sync request before its append (standalone): see RenderHeadStart. */
  headStart?: RenderHeadStart;
}

export interface Submitted {
  requestId: string;
  /** True when an earlier request with the same Idempotency-Key answered: nothing new was appended. */
  replayed: boolean;
}

/** A pending key outlives its holder's append by this much (then a dead holder's key is free again). */
const PENDING_KEY_MARGIN_MS = 5_000;
const KEY_POLL_MS = 100;
/**
 * How long past its own bound (acceptTimeoutMs from the append's start) the log adapter may take
 * to say "never sent". The adapter's bound starts when the append does, not at `acceptBy`: work
 * before the append (admission, the payload's put) may have used part of the request's time.
 */
const NEVER_SENT_GRACE_MS = 250;

/**
 * Turns a validated HTTP body into a RenderRequested event on the log. The request is
 * acknowledged only after the log has durably accepted it; the ingress then records the
 * pending entry in the view itself, so a status call right after the answer finds it.
 *
 * "Accepted" has a deadline, `acceptBy` (now + acceptTimeoutMs), carried by the request: past
 * it the caller gets 503 and the request is withdrawn (see withdrawals.ts, admitsRender).
 *
 * With an Idempotency-Key, the key is claimed (per tenant) before anything is appended: the
 * first attempt appends, any other attempt with the key and the same request (a retry,
 * concurrent or later, from any ingress process) answers the first one's requestId, and one with
 * another request is refused. A refused first attempt (503, invalid) frees the key, so the
 * client's retry is a new attempt.
 */
export function createRenderRequests(deps: RenderRequestsDeps) {
  const accepted = createAcceptedEntries({ view: deps.view, logger: deps.logger });
  /** A request's entry: the view's, else one this ingress accepted and the view has not taken yet. */
  const entryOf = async (requestId: string): Promise<StatusViewEntry | undefined> =>
    (await deps.view.get(requestId)) ?? accepted.pending(requestId);
  /** As `entryOf`, for a caller that goes on without the view (an answer it would give anyway). */
  const entryOrPending = (requestId: string) => entryOf(requestId).catch(() => accepted.pending(requestId));

  async function submit(
    tenant: Tenant,
    mode: 'sync' | 'async',
    input: RenderInput,
    opts: { idempotencyKey?: string } = {},
  ): Promise<Submitted> {
    if (opts.idempotencyKey === undefined) return { requestId: (await issue(tenant, mode, input)).requestId, replayed: false };
    return submitKeyed(tenant, mode, input, opts.idempotencyKey);
  }

  async function submitKeyed(tenant: Tenant, mode: 'sync' | 'async', input: RenderInput, key: string): Promise<Submitted> {
    const fingerprint = fingerprintOf(mode, input);
    const waitUntil = deps.clock.now().getTime() + deps.acceptTimeoutMs + PENDING_KEY_MARGIN_MS;
    for (;;) {
      const requestId = deps.ids.next();
      const claim = await deps.idempotency.claim(
        tenant.tenantId,
        key,
        { requestId, fingerprint },
        deps.acceptTimeoutMs + PENDING_KEY_MARGIN_MS,
      );
      if (claim.won) {
        const release = () => deps.idempotency.release(tenant.tenantId, key, requestId).catch(() => {});
        try {
          // Withdrawn once the log tells (after a 504): the key is free for a new attempt.
          const whenNotTaken = () => void release();
          await issue(tenant, mode, input, { requestId, idempotency: { key, fingerprint }, whenNotTaken });
        } catch (err) {
          if (err instanceof PressroomError && err.code === 'OUTCOME_UNKNOWN') {
            // It may run: the key answers this request until the log says it was not taken, so a
            // retry never starts a second render of it.
            await deps.idempotency
              .accept(tenant.tenantId, key, requestId, deps.idempotencyTtlMs, fingerprint, 'undecided')
              .catch(() => false);
          } else {
            await release();
          }
          throw err;
        }
        const kept = await deps.idempotency.accept(tenant.tenantId, key, requestId, deps.idempotencyTtlMs, fingerprint).catch(() => false);
        if (!kept) deps.logger.warn('the Idempotency-Key could not be recorded as accepted', { requestId, tenantId: tenant.tenantId });
        return { requestId, replayed: false };
      }
      // Another attempt holds the key: answer with it once the log took it, or claim again if it was refused.
      let existing: typeof claim.existing | undefined = claim.existing;
      while (existing) {
        const decision = decideKeyedAttempt(existing, fingerprint);
        if (decision.kind === 'mismatch') {
          throw new PressroomError(
            'IDEMPOTENCY_KEY_REUSED',
            'This Idempotency-Key was used with a different request (endpoint or body). Use a new key for a new request.',
          );
        }
        if (decision.kind === 'undecided') {
          // Answered 504 before: taken only once the log put its outcome first (the entry is
          // terminal and not withdrawn); withdrawn first: never taken, the key is free; until
          // then 504 again. A pending entry is not enough: its withdrawal may still come first.
          const entry = await entryOrPending(decision.requestId);
          if (isWithdrawn(entry)) {
            await deps.idempotency.release(tenant.tenantId, key, decision.requestId).catch(() => {});
            break;
          }
          if (!isTerminal(entry)) throw outcomeUnknown(decision.requestId, `/v1/pdf/status/${decision.requestId}`);
          await deps.idempotency.accept(tenant.tenantId, key, decision.requestId, deps.idempotencyTtlMs, fingerprint).catch(() => false);
          return { requestId: decision.requestId, replayed: true };
        }
        if (decision.kind === 'replay') {
          // The status view knows every request this key answered with 200/202 (the ingress records
          // it before answering). One it does not know was answered 504 and is still undecided:
          // say so again, never start a second one. One withdrawn since: never taken, the key is free.
          const entry = await entryOrPending(decision.requestId);
          if (isWithdrawn(entry)) {
            await deps.idempotency.release(tenant.tenantId, key, decision.requestId).catch(() => {});
            break;
          }
          if (!entry) throw outcomeUnknown(decision.requestId, `/v1/pdf/status/${decision.requestId}`);
          return { requestId: decision.requestId, replayed: true };
        }
        if (deps.clock.now().getTime() > waitUntil) {
          throw new PressroomError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being taken; retry later.', {
            retryable: true,
          });
        }
        await new Promise((r) => setTimeout(r, KEY_POLL_MS));
        existing = await deps.idempotency.get(tenant.tenantId, key);
      }
    }
  }

  async function issue(
    tenant: Tenant,
    mode: 'sync' | 'async',
    input: RenderInput,
    opts: { requestId?: string; idempotency?: { key: string; fingerprint: string }; whenNotTaken?: () => void } = {},
  ): Promise<RenderRequested> {
    const prepared = await prepare(tenant, mode, input, opts);
    const [requested] = await appendAccepted(mode === 'sync' ? deps.topics.requestedSync : deps.topics.requestedAsync, [prepared], {
      unknownId: prepared.requestId,
      statusPath: `/v1/pdf/status/${prepared.requestId}`,
      ...(opts.whenNotTaken ? { whenNotTaken: opts.whenNotTaken } : {}),
    });
    return requested ?? prepared;
  }

  /**
   * A batch: every item is checked first (all at once, each problem named `items.<i>.<field>`),
   * and only when all pass are the items appended (one append, on the batch's lane), then the
   * BatchRequested that lists them. Nothing is rendered for a refused batch.
   */
  async function submitBatch(
    tenant: Tenant,
    kind: 'template' | 'html',
    body: Http.TemplateBatchBody | Http.HtmlBatchBody,
  ): Promise<{ batchRequestId: string }> {
    const mode = body.async ? 'async' : 'sync';
    const refusal = batchPlanRefusal(body.items.length, deps.plans?.[tenant.plan]);
    if (refusal) throw refusal;
    const problems: FieldProblem[] = [...batchMergeProblems(body)];
    if (body.webhook) {
      const problem = await checkWebhookTarget(body.webhook, { allowPrivate: deps.allowPrivateWebhooks, ...deps.webhookTargets });
      if (problem) problems.push(problem);
    }
    const batchRequestId = deps.ids.next();
    const prepared: RenderRequested[] = [];
    for (const [index, item] of body.items.entries()) {
      const input: RenderInput =
        kind === 'template' ? { kind: 'template', body: item as Http.TemplateSyncBody } : { kind: 'html', body: item as Http.HtmlSyncBody };
      try {
        prepared.push(await prepare(tenant, mode, input, { batch: { batchRequestId, index } }));
      } catch (err) {
        if (!(err instanceof PressroomError) || !['VALIDATION_FAILED', 'NOT_FOUND'].includes(err.code)) throw err;
        const at = `items.${index}`;
        if (err.details?.length) problems.push(...err.details.map((d) => ({ field: `${at}.${d.field}`, message: d.message })));
        else problems.push({ field: err.code === 'NOT_FOUND' ? `${at}.templateId` : at, message: err.message });
      }
    }
    if (problems.length) throw validationError(problems, 'The batch is invalid; nothing was rendered. Each problem names its item.');
    const items = await appendAccepted(mode === 'sync' ? deps.topics.requestedSync : deps.topics.requestedAsync, prepared, {
      unknownId: batchRequestId,
      statusPath: `/v1/pdf/batch/status/${batchRequestId}`,
    });
    const requested = deps.event(
      'BatchRequested',
      { requestId: batchRequestId, tenantId: tenant.tenantId },
      {
        mode,
        ...(body.webhook ? { webhook: body.webhook } : {}),
        kind,
        items: items.map((i) => i.requestId),
        merge: body.merge ?? false,
        ...(body.signedUrlExpiresIn !== undefined ? { signedUrlExpiresIn: body.signedUrlExpiresIn } : {}),
      },
    );
    const floor = deps.withdrawals.floor();
    const appended = deps.log.append(deps.topics.completed, [requested]);
    try {
      await settledBy(appended, deps.clock.now().getTime() + deps.acceptTimeoutMs);
    } catch (err) {
      // The items are on the log but their batch may not be: withdraw them (first terminal event wins).
      // 503 only when the log says none of them was taken; anything else cannot be called a refusal.
      const verdicts = await Promise.all(items.map((item) => refuseTruthfully(item, floor)));
      if (verdicts.every((v) => v.kind === 'not-taken')) throw err instanceof PressroomError ? err : logUnavailable(err);
      throw outcomeUnknown(batchRequestId, `/v1/pdf/batch/status/${batchRequestId}`, err);
    }
    await accepted.record([requested]);
    return { batchRequestId };
  }

  /** A batch's entry (its status view), or undefined when it was never issued to this tenant. */
  async function batchStatus(
    tenant: Tenant,
    batchRequestId: string,
  ): Promise<{ batch: StatusViewEntry; items: Array<StatusViewEntry | undefined> } | undefined> {
    const batch = await entryOf(batchRequestId);
    if (!batch?.batch || batch.tenantId !== tenant.tenantId) return undefined;
    const items = batch.batch.results ? [] : await Promise.all(batch.batch.items.map((id) => entryOf(id)));
    return { batch, items };
  }

  /** Checks a request and builds its RenderRequested, without appending it. */
  async function prepare(
    tenant: Tenant,
    mode: 'sync' | 'async',
    input: RenderInput,
    opts: {
      requestId?: string;
      idempotency?: { key: string; fingerprint: string };
      batch?: { batchRequestId: string; index: number };
    } = {},
  ): Promise<RenderRequested> {
    // Bounded before any work is done on them: the data's size and shape, unsaved sources.
    const bounds = doorProblems(input, deps.limits);
    if (bounds.length) throw validationError(bounds);
    // Checked at the door, all at once: the template's variables and the page setup.
    const resolved = await renderSource(tenant, input);
    const pdfParams = pdfParamsOf(input, resolved);
    const problems = [...(await dataProblemsOf(resolved)), ...pdfParamsProblems(pdfParams)];
    if (problems.length) throw validationError(problems);
    const wanted = storageWanted(input);
    const storage = wanted ? await storageTarget(tenant, wanted.bucket, wanted.key) : ({ kind: 'default' } as const);
    const webhook = webhookOf(input);
    if (webhook) {
      const problem = await checkWebhookTarget(webhook, { allowPrivate: deps.allowPrivateWebhooks, ...deps.webhookTargets });
      if (problem) throw validationError([problem]);
    }
    const requestId = opts.requestId ?? deps.ids.next();
    const acceptBy = new Date(deps.clock.now().getTime() + deps.acceptTimeoutMs).toISOString();
    const data = assembleRenderRequest(input, {
      mode,
      resolved,
      pdfParams,
      storage,
      plan: tenant.plan,
      acceptBy,
      idempotency: opts.idempotency,
      batch: opts.batch,
    });
    const requested = deps.event('RenderRequested', { requestId, tenantId: tenant.tenantId }, data);
    return requested;
  }

  /**
   * Appends requests (one lane), answers only once the log took them, and records them ONGOING
   * in the view. Past `acceptBy` the answer is what the log proves:
   * - the append was never handed to the log (its adapter says so: AppendNeverSent): 503;
   * - otherwise it may be on the log: each request is withdrawn and the log decides
   *   (refuseTruthfully): all withdrawn first → 503; all rendered first → accepted after all
   *   (the caller gets the result); else → 504 OUTCOME_UNKNOWN for `unknownId`, and
   *   `whenNotTaken` runs if the log later puts the withdrawal first.
   */
  async function appendAccepted(
    topic: string,
    prepared: RenderRequested[],
    opts: { unknownId: string; statusPath: string; whenNotTaken?: () => void },
  ): Promise<RenderRequested[]> {
    const acceptBy = Math.min(
      ...prepared.map((r) => Date.parse(r.data.acceptBy ?? '') || deps.clock.now().getTime() + deps.acceptTimeoutMs),
    );
    // 429s come first: nothing of a refused request reaches the log.
    const admitted = await deps.admission?.admit(prepared);
    // The payloads go to our own storage, and the requests on the log carry only a reference
    // (hash and size). Stored beside the append when the worker can take them without the object
    // (in memory, or a sync request's copy), else before it (see StoredPayloads.stage); the answer
    // waits for both.
    // A payload stored for a request that is then refused is never rendered, and goes with the
    // render's retention.
    let staged: StagedPayloads = { requests: prepared, stored: Promise.resolve() };
    if (deps.payloads) {
      try {
        staged = await deps.payloads.stage(prepared, acceptBy);
      } catch (err) {
        await admitted?.release();
        throw err;
      }
    }
    const { requests } = staged;
    // The render worker of this process may begin a sync request now, beside its append; it
    // stores and appends nothing for it until the log delivers it (see RenderHeadStart).
    const offered = topic === deps.topics.requestedSync && deps.headStart !== undefined;
    if (offered) deps.headStart?.offer(requests);
    try {
      return await appendStaged(topic, staged, acceptBy, admitted, opts);
    } catch (err) {
      if (offered) deps.headStart?.forget(requests.map((r) => r.requestId));
      throw err;
    }
  }

  /** appendAccepted once the payloads are staged: the append, and the answer the log proves. */
  async function appendStaged(
    topic: string,
    staged: StagedPayloads,
    acceptBy: number,
    admitted: Admitted | undefined,
    opts: { unknownId: string; statusPath: string; whenNotTaken?: () => void },
  ): Promise<RenderRequested[]> {
    const { requests } = staged;
    // Taken before the send: the outcome of any of these requests lies past it.
    const floor = deps.withdrawals.floor();
    const adapterBound = deps.clock.now().getTime() + deps.acceptTimeoutMs;
    const appended = deps.log.append(topic, requests);
    let outcomes: Array<RenderSucceeded | RenderFailed> = [];
    let acknowledged = true;
    try {
      await settledBy(appended, acceptBy);
    } catch (err) {
      acknowledged = false;
      const refusal = err instanceof PressroomError ? err : logUnavailable(err);
      if (appendNeverSent(err) || (await neverSent(appended, adapterBound))) {
        await admitted?.release();
        throw refusal;
      }
      outcomes = await refuseOnTheLog(requests, refusal, floor, admitted, opts, err);
    }
    if (acknowledged) {
      // On the log: accepted only once its payload is stored too. One that could not be (after
      // the put's retries) is withdrawn, and the log decides, as for a lost acknowledgement.
      try {
        await storedBy(staged.stored, acceptBy);
      } catch (err) {
        const refusal = err instanceof PressroomError ? err : logUnavailable(err);
        outcomes = await refuseOnTheLog(requests, refusal, floor, admitted, opts, err);
      }
    }
    // Accepted now, whatever the view says. In log order: each request, then (when the log
    // already holds it) its outcome.
    await accepted.record([...requests, ...outcomes]);
    return requests;
  }

  type Admitted = { release(): Promise<void> };

  /**
   * Requests that may be on the log, yet cannot be answered as accepted (their acknowledgement is
   * late or lost, or a payload could not be stored): each is withdrawn and the log decides
   * (refuseTruthfully). All withdrawn first: `refusal` is thrown (503, nothing taken). All
   * rendered first: their outcomes are returned, and the caller answers them as accepted (a 503
   * would be a lie). Anything else: 504 OUTCOME_UNKNOWN for `opts.unknownId`.
   */
  async function refuseOnTheLog(
    requests: RenderRequested[],
    refusal: PressroomError,
    floor: CompletedFloor,
    admitted: Admitted | undefined,
    opts: { unknownId: string; statusPath: string; whenNotTaken?: () => void },
    cause: unknown,
  ): Promise<Array<RenderSucceeded | RenderFailed>> {
    const verdicts = await Promise.all(
      requests.map((requested) =>
        refuseTruthfully(requested, floor, (v) => {
          if (v.kind === 'not-taken' && requests.length === 1) opts.whenNotTaken?.();
        }),
      ),
    );
    if (verdicts.every((v) => v.kind === 'not-taken')) {
      await admitted?.release();
      throw refusal;
    }
    if (!verdicts.every((v) => v.kind === 'taken')) throw outcomeUnknown(opts.unknownId, opts.statusPath, cause);
    deps.logger.warn('a request the ingress gave up on was rendered first: answered as accepted', {
      requestIds: requests.map((r) => r.requestId),
    });
    return verdicts.flatMap((v) => (v.kind === 'taken' ? [v.outcome] : []));
  }

  /**
   * The ingress's deadline passed first: until the adapter's own bound (`adapterBound`) and a
   * moment more, for the adapter to say whether it never sent the append.
   */
  async function neverSent(appended: Promise<unknown>, adapterBound: number): Promise<boolean> {
    const wait = Math.max(0, adapterBound - deps.clock.now().getTime()) + NEVER_SENT_GRACE_MS;
    const said = appended.then(
      () => false,
      (e: unknown) => appendNeverSent(e),
    );
    return withTimeout(said, wait).catch(() => false); // silent past the wait: maybe sent
  }

  /**
   * The append may have reached the log (written, its acknowledgement late or lost; or in a batch
   * the producer still retries): the withdrawal goes on the log, and the log says whether the
   * request was taken (see withdrawals.ts). Waits at most another `acceptTimeoutMs` for it; past
   * that the verdict is `unknown` (504) and the withdrawal goes on in the background.
   */
  function refuseTruthfully(requested: RenderRequested, floor: CompletedFloor, whenDecided?: (v: RefusalVerdict) => void) {
    return deps.withdrawals.refuse(requested, {
      withinMs: deps.acceptTimeoutMs,
      floor,
      ...(whenDecided ? { whenDecided } : {}),
    });
  }

  /** Waits for the append, or rejects LOG_UNAVAILABLE at `acceptBy` on the ingress's clock, whatever the log adapter's own bound. */
  function settledBy(appended: Promise<unknown>, acceptBy: number): Promise<void> {
    return settledWithin(appended, acceptBy, () =>
      logUnavailable(new Error(`not acknowledged by the log within ${deps.acceptTimeoutMs} ms`)),
    );
  }

  /**
   * Waits for the payloads' puts, or rejects DEPENDENCY_UNAVAILABLE at `acceptBy`: a put that
   * hangs (storage accepting, never answering) must not hold the answer past the request's time;
   * its request is then withdrawn like one whose put failed.
   */
  function storedBy(stored: Promise<unknown>, acceptBy: number): Promise<void> {
    return settledWithin(
      stored,
      acceptBy,
      () =>
        new PressroomError(
          'DEPENDENCY_UNAVAILABLE',
          "The request's payload could not be stored in time; nothing was accepted. Try again.",
          {
            retryable: true,
          },
        ),
    );
  }

  /** Waits for `work`, or rejects with `late()` at `acceptBy` on the ingress's clock. */
  async function settledWithin(work: Promise<unknown>, acceptBy: number, late: () => Error): Promise<void> {
    work.catch(() => {}); // settled after the deadline: the withdrawal covers it
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), Math.max(0, acceptBy - deps.clock.now().getTime()));
    });
    try {
      await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** What an Idempotency-Key is bound to: the endpoint and the body, member order aside. */
  function fingerprintOf(mode: 'sync' | 'async', input: RenderInput): string {
    const what = {
      endpoint: `${input.kind === 'tool' ? `tool:${input.tool.name}` : input.kind}:${mode}`,
      ...(input.kind === 'preview' ? { templateId: input.templateId } : {}),
      body: input.body,
    };
    return createHash('sha256').update(canonicalJson(what)).digest('hex');
  }

  async function storageTarget(tenant: Tenant, bucket: string | undefined, key: string | undefined): Promise<StorageTarget> {
    if (key !== undefined && bucket === undefined) {
      throw validationError([{ field: 's3_key', message: 'is valid only together with s3_bucket' }]);
    }
    if (bucket === undefined) return { kind: 'default' };
    const refused = planForbids(tenant.plan, 'custom-s3');
    if (refused) throw refused;
    const connection = await deps.catalog.getS3Connection(tenant.tenantId, bucket);
    if (!connection) throw validationError([{ field: 's3_bucket', message: 'is not one of your S3 connections' }]);
    return { kind: 's3-connection', connectionId: connection.connectionId, ...(key !== undefined ? { key } : {}) };
  }

  /** The source a request renders: a stored template is read (a pinned version, else the latest; 404 for an unknown one). */
  async function renderSource(tenant: Tenant, input: RenderInput): Promise<ResolvedSource> {
    const wanted = storedTemplateWanted(input);
    if (!wanted) return resolveSource(input);
    const { version } = await deps.templates.read(tenant.tenantId, wanted.templateId, wanted.templateVersion);
    return resolveSource(input, version);
  }

  /**
   * One problem per missing or mistyped variable (`data.<path>`). A declared schema (the
   * tenant's) is checked on the validation worker under its deadline; an inferred one is ours,
   * linear to check, and checked here.
   */
  async function dataProblemsOf(resolved: ResolvedSource): Promise<FieldProblem[]> {
    if (resolved.source.kind !== 'template') return [];
    if (resolved.dataSchema) return deps.schemas.dataProblems(resolved.dataSchema, resolved.source.data);
    const { templateId, templateVersion } = resolved.source;
    const stored = templateId === UNSAVED_TEMPLATE_ID ? undefined : { templateId, version: templateVersion };
    return dataProblems(variablesOf(resolved.source, stored).schema, resolved.source.data);
  }

  /** The view entry of a request, or undefined when it was never issued to this tenant. */
  async function status(tenant: Tenant, requestId: string): Promise<StatusViewEntry | undefined> {
    const entry = await entryOf(requestId);
    // A withdrawn request (refused with 503) was never issued, as far as the caller knows.
    // A batch's own entry is not a render: its id answers on the batch status endpoint only.
    return entry && entry.tenantId === tenant.tenantId && !isWithdrawn(entry) && !entry.batch ? entry : undefined;
  }

  /**
   * The entry once terminal, or as it stands after `timeoutMs`. The request was taken, so a view
   * that cannot be read (Redis away) does not end the wait with an error, which would read as
   * "not taken": it looks again after a pause until the view answers or the time is up (then the
   * caller's own fallback: 202 and the status URL for a sync render).
   */
  async function waitForTerminal(requestId: string, timeoutMs: number): Promise<StatusViewEntry | undefined> {
    const deadline = deps.clock.now().getTime() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const entry = await deps.view.waitForTerminal(requestId, Math.max(0, deadline - deps.clock.now().getTime()));
        return entry ?? accepted.pending(requestId);
      } catch (error) {
        if (!(error instanceof PressroomError && error.retryable)) throw error;
        const pause = Math.min(consumeRetryDelayMs(attempt), deadline - deps.clock.now().getTime());
        if (attempt === 1) deps.logger.warn('the status view cannot be read; waiting for it', { requestId, error: error.message });
        if (pause <= 0) return accepted.pending(requestId);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  return { submit, submitBatch, batchStatus, status, waitForTerminal };
}
export type RenderRequests = ReturnType<typeof createRenderRequests>;
