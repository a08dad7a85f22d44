/**
 * Errors that cross a port carry a stable code and whether retrying can help.
 * HTTP statuses are assigned only at the edge (apps/ingress/src/http/error-mapper.ts).
 */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'MALFORMED_JSON'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  /** The tenant's plan does not include custom S3 storage (high plan only). */
  | 'PLAN_FORBIDS_CUSTOM_S3'
  /** The test write (and delete) Pressroom makes to a new or changed S3 connection failed; details say why. */
  | 'S3_CONNECTION_TEST_FAILED'
  | 'NOT_FOUND'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'CONFLICT'
  /** An Idempotency-Key sent again with a different request. */
  | 'IDEMPOTENCY_KEY_REUSED'
  /** An Idempotency-Key whose first request is still being taken, past the wait for it. */
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'LOG_UNAVAILABLE'
  /** The ingress gave up on a request and cannot tell whether the log took it (it may or may not run). */
  | 'OUTCOME_UNKNOWN'
  | 'DEPENDENCY_UNAVAILABLE'
  /** The API key sent more requests than its plan's rate (token bucket per key). */
  | 'RATE_LIMITED'
  /** The tenant has as many renders accepted and unfinished as its plan allows. */
  | 'CONCURRENCY_LIMITED'
  /** The async lane's backlog is past its configured depth (back-pressure). */
  | 'BACKLOG_FULL'
  /** The tenant has as many history reads (which read the log) under way or waiting as one ingress allows. */
  | 'HISTORY_BUSY'
  /** A request beyond a quota of the tenant's plan (batch size, PNG size). */
  | 'PLAN_LIMIT_EXCEEDED'
  | 'INTERNAL';

export interface FieldProblem {
  field: string;
  message: string;
}

export class PressroomError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: FieldProblem[] | undefined;
  /** Named facts for the caller (e.g. the `requestId` of an OUTCOME_UNKNOWN), when there are no field problems. */
  readonly facts: Record<string, string> | undefined;
  /** When to try again, in seconds (the edge sends it as Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: {
      retryable?: boolean;
      details?: FieldProblem[];
      facts?: Record<string, string>;
      cause?: unknown;
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'PressroomError';
    this.code = code;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
    this.facts = opts.facts;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** ValidationError happens when input fails its schema or a business rule; it names each bad field. */
export function validationError(details: FieldProblem[], message = 'The request is invalid.'): PressroomError {
  return new PressroomError('VALIDATION_FAILED', message, { details });
}

/** NotFound happens when a resource does not exist for the calling tenant (another tenant's resource included). */
export function notFound(what: string): PressroomError {
  return new PressroomError('NOT_FOUND', `${what} not found.`);
}

/**
 * The cause of a LOG_UNAVAILABLE for an append the log adapter never sent (it expired while
 * queued, or the log was closed): it can never be written. Any other LOG_UNAVAILABLE of an
 * append means "maybe written" (a send in flight can still land, or landed without an answer).
 */
export class AppendNeverSent extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AppendNeverSent';
  }
}

/** Whether a failed append can never reach the log (see AppendNeverSent). */
export function appendNeverSent(err: unknown): boolean {
  return err instanceof PressroomError && err.cause instanceof AppendNeverSent;
}

/** LogUnavailable happens when the event log cannot durably accept a write; the caller may retry later. */
export function logUnavailable(cause: unknown): PressroomError {
  return new PressroomError('LOG_UNAVAILABLE', 'The service cannot accept requests right now; retry later.', {
    retryable: true,
    cause,
  });
}

/**
 * OutcomeUnknown happens when the ingress gave up on a request that may have reached the log and
 * could not get its withdrawal on the log in time: the request may or may not run. A retry with
 * the same Idempotency-Key is safe (it answers this request, or a new one once this one is
 * withdrawn). `statusPath` is where its status answers (the edge makes it a `statusUrl`).
 */
export function outcomeUnknown(requestId: string, statusPath: string, cause?: unknown): PressroomError {
  return new PressroomError(
    'OUTCOME_UNKNOWN',
    'The service could not confirm whether your request was taken: it may or may not run. Check its status URL (404 means it was not taken), or retry with the same Idempotency-Key, which is safe.',
    { retryable: true, facts: { requestId, statusPath }, cause },
  );
}

/** A history read refused (429): the tenant has `perTenant` of them under way or waiting already. */
export function historyBusy(perTenant: number): PressroomError {
  return new PressroomError(
    'HISTORY_BUSY',
    `You have ${perTenant} history reads under way or waiting already: each reads the log, so they are taken a few at a time. Retry after Retry-After, or poll the status endpoint instead.`,
    { retryable: true, retryAfterSeconds: 1 },
  );
}

/** A quota refusal (429): retryable, after `retryAfterSeconds`. */
export function quotaRefusal(
  code: 'RATE_LIMITED' | 'CONCURRENCY_LIMITED' | 'BACKLOG_FULL',
  message: string,
  retryAfterSeconds: number,
): PressroomError {
  return new PressroomError(code, message, { retryable: true, retryAfterSeconds });
}
