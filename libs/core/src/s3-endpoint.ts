import { decideS3Endpoint, type FieldProblem, type S3EndpointPolicy } from '@pressroom/domain';
import { hostAddresses, type Lookup } from './url-host.ts';

/**
 * Decides whether a tenant S3 connection may use `endpoint` (the rule is `decideS3Endpoint`),
 * checked where an operator registers the connection. Returns the problem, or undefined.
 */
export async function checkS3Endpoint(endpoint: string, opts: S3EndpointPolicy & { lookup?: Lookup }): Promise<FieldProblem | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(endpoint);
  } catch {
    return { field: 'endpoint', message: 'must be an absolute URL' };
  }
  const addresses = await hostAddresses(parsed, opts.lookup);
  if (!addresses) return { field: 'endpoint', message: `host ${parsed.hostname} does not resolve` };
  return decideS3Endpoint(
    { protocol: parsed.protocol, hasCredentials: Boolean(parsed.username || parsed.password), addresses },
    { allowPrivate: opts.allowPrivate },
  );
}
