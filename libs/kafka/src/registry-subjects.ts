import { setTimeout as sleep } from 'node:timers/promises';
import { decideTransientRetry, type TransientRetryPolicy } from '@pressroom/domain';

/**
 * The compatibility level of our subjects. Not the registry's BACKWARD: Apicurio 3.3's JSON
 * Schema checker rejects even a changed description on schemas with closed lists (anyOf of
 * const), so every upgrade would fail to start. Compatibility is checked before release by
 * schemas/src/evolution.unit.spec.ts instead (see "Schema evolution" in the README).
 */
export const SUBJECT_COMPATIBILITY = 'NONE';

/** Several apps start at once against a fresh registry: races are answered by trying again. */
const REGISTRATION_RETRY: TransientRetryPolicy = { baseDelayMs: 200, maxDelayMs: 5_000, maxAttempts: 10 };
const REQUEST_TIMEOUT_MS = 10_000;

export class RegistryRequestError extends Error {
  readonly status: number | undefined;
  readonly retriable: boolean;
  constructor(message: string, status: number | undefined, retriable: boolean) {
    super(message);
    this.status = status;
    this.retriable = retriable;
    this.name = 'RegistryRequestError';
  }
}

/**
 * Makes sure `subject` has our compatibility level and holds `schema`, and returns the schema's
 * id. Idempotent and safe to run from many processes at once: setting the level that is already
 * set, or registering a schema that is already registered, succeeds; a race the registry
 * reports as a conflict (two processes creating the same rule or subject: 409) is tried again,
 * like an unreachable or failing registry, with jittered back-off.
 */
export async function registerSubject(
  url: string,
  subject: string,
  schema: string,
  opts: { policy?: TransientRetryPolicy; random?: () => number } = {},
): Promise<number> {
  const path = `${url.replace(/\/+$/, '')}/`;
  const name = encodeURIComponent(subject);
  return withRetries(async () => {
    await call('PUT', `${path}config/${name}`, { compatibility: SUBJECT_COMPATIBILITY });
    const registered = (await call('POST', `${path}subjects/${name}/versions`, { schemaType: 'JSON', schema })) as { id?: unknown };
    if (typeof registered.id !== 'number') throw new RegistryRequestError(`registry answered without an id for ${subject}`, 200, false);
    return registered.id;
  }, opts);
}

async function withRetries<T>(step: () => Promise<T>, opts: { policy?: TransientRetryPolicy; random?: () => number }): Promise<T> {
  const policy = opts.policy ?? REGISTRATION_RETRY;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const retriable = error instanceof RegistryRequestError ? error.retriable : true;
      const decision = decideTransientRetry({
        failure: { retriable, message: String(error) },
        attempt,
        policy,
        random: (opts.random ?? Math.random)(),
      });
      if (!decision.retry) throw error;
      await sleep(decision.delayMs);
    }
  }
}

async function call(method: string, url: string, body: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json', accept: 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new RegistryRequestError(`${method} ${url}: ${(error as Error).message}`, undefined, true);
  }
  const text = await res.text();
  if (!res.ok) {
    // 409: a concurrent writer created the rule or subject first; 5xx/429: the registry is struggling.
    const retriable = res.status === 409 || res.status === 429 || res.status >= 500;
    throw new RegistryRequestError(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`, res.status, retriable);
  }
  return text ? (JSON.parse(text) as unknown) : {};
}
