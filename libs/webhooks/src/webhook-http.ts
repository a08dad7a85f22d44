import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { addressAllowed, type AttemptResult, type WebhookTargetPolicy } from '@pressroom/domain';
import { checkWebhookTarget, systemLookup, type Lookup } from './webhook-target.ts';

export interface PostWebhookOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  policy: WebhookTargetPolicy;
  lookup?: Lookup;
}

/** TargetRefusedError happens when, at connect time, the host resolves to an address the policy refuses. */
class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/**
 * One webhook attempt: a POST that never follows redirects, ends within `timeoutMs` (connect,
 * headers and all), and reads no more of the answer than its status and headers.
 *
 * The target is decided twice: by `checkWebhookTarget` on the URL, and at connect time by the
 * lookup the socket uses, which resolves the host itself and refuses any address the policy
 * does not admit. The socket dials only the vetted address, so DNS rebinding between the
 * check and the connect cannot reach a private address.
 */
export async function postWebhook(opts: PostWebhookOptions): Promise<AttemptResult> {
  const problem = await checkWebhookTarget(opts.url, { ...opts.policy, ...(opts.lookup ? { lookup: opts.lookup } : {}) });
  if (problem) return { kind: 'refused', message: problem.message };
  const url = new URL(opts.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !addressAllowed(host, opts.policy)) return { kind: 'refused', message: `address ${host} is not allowed` };
  const lookup = vettedLookup(opts.policy, opts.lookup ?? systemLookup);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(opts.body)) },
    lookup,
    agent: false,
  };
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = request(url, options, (res) => {
      const retryAfter = res.headers['retry-after'];
      finish({ kind: 'response', statusCode: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
      res.destroy();
    });
    const timer = setTimeout(() => {
      finish({ kind: 'timeout' });
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof TargetRefusedError) finish({ kind: 'refused', message: err.message });
      else finish({ kind: 'connection-error', message: err.code ?? err.message });
    });
    req.end(opts.body);
  });
}

/** A socket lookup that resolves with our resolver and hands back only addresses the policy admits. */
function vettedLookup(policy: WebhookTargetPolicy, resolve: Lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const refused = all.find((a) => !addressAllowed(a.address, policy));
        if (all.length === 0 || refused) {
          callback(new TargetRefusedError(`${hostname} resolves to ${refused?.address ?? 'nothing'}, which is not allowed`), '', 0);
          return;
        }
        const family = (a: string) => isIP(a);
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => family(a.address) === options.family) : all;
        const list = (wanted.length ? wanted : all).map((a) => ({ address: a.address, family: family(a.address) }));
        if (options.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
