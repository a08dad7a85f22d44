import { decideWebhookTarget, type FieldProblem, type WebhookTargetPolicy } from '@pressroom/domain';
import { hostAddresses, type Lookup } from '@pressroom/core';

export { systemLookup, type Lookup } from '@pressroom/core';

/** The operator's webhook target rules; `allowHttp` and `allowedPorts` default to off and any. */
export type WebhookTargetOptions = Pick<WebhookTargetPolicy, 'allowPrivate'> & Partial<WebhookTargetPolicy> & { lookup?: Lookup };

export function targetPolicy(opts: WebhookTargetOptions): WebhookTargetPolicy {
  return { allowPrivate: opts.allowPrivate, allowHttp: opts.allowHttp ?? false, allowedPorts: opts.allowedPorts ?? [] };
}

/**
 * Decides whether a webhook URL may be called (the rule is `decideWebhookTarget`). Checked
 * when the request arrives (400); each attempt checks again at connect time, on the addresses
 * it actually dials (see `postWebhook`). Returns the problem, or undefined when acceptable.
 */
export async function checkWebhookTarget(url: string, opts: WebhookTargetOptions): Promise<FieldProblem | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { field: 'webhook', message: 'must be an absolute URL' };
  }
  const addresses = await hostAddresses(parsed, opts.lookup);
  if (!addresses) return { field: 'webhook', message: `host ${parsed.hostname} does not resolve` };
  return decideWebhookTarget(
    {
      protocol: parsed.protocol,
      port: parsed.port ? Number(parsed.port) : parsed.protocol === 'http:' ? 80 : 443,
      hasCredentials: Boolean(parsed.username || parsed.password),
      addresses,
    },
    targetPolicy(opts),
  );
}
