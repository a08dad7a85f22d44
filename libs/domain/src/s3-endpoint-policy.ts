import { addressPermitted, isPublicAddress, judgeAddress } from './address-policy.ts';
import type { FieldProblem } from './errors.ts';

/** The operator's rule for S3 endpoints registered for tenants. */
export interface S3EndpointPolicy {
  /** Loopback and private endpoints allowed (an S3-compatible server inside the network, tests). */
  allowPrivate: boolean;
}

export interface S3EndpointTarget {
  protocol: string;
  hasCredentials: boolean;
  /** Every address the endpoint's host resolved to (the literal itself for an IP host). */
  addresses: string[];
}

const problem = (message: string): FieldProblem => ({ field: 'endpoint', message });

/**
 * Decides whether a tenant's S3 connection may use this endpoint; undefined when it may. The
 * endpoint receives signed requests and the tenant's documents, from our network: it is held to
 * the same address policy as webhooks and render fetches (global unicast, or private and loopback
 * when the operator opens them; metadata and link-local never). Plain http only inside the
 * network the operator opened: over the internet the documents would travel in clear.
 */
export function decideS3Endpoint(target: S3EndpointTarget, policy: S3EndpointPolicy): FieldProblem | undefined {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return problem('must use https');
  if (target.hasCredentials) return problem('must not carry credentials');
  if (target.addresses.length === 0) return problem('host does not resolve');
  const refused = target.addresses.find((a) => !addressPermitted(a, { private: policy.allowPrivate, loopback: policy.allowPrivate }));
  if (refused !== undefined) {
    return problem(`must not point to a loopback, private, link-local or metadata address (${judgeAddress(refused).why})`);
  }
  if (target.protocol === 'http:' && target.addresses.some((a) => isPublicAddress(a))) return problem('must use https');
  return undefined;
}
