import { addressPermitted, isPublicAddress, judgeAddress } from './address-policy.ts';
import type { FieldProblem } from './errors.ts';

/** The operator's rules for webhook targets. */
export interface WebhookTargetPolicy {
  /**
   * Loopback, private (RFC 1918, CGNAT, unique-local) addresses allowed (tests, private networks).
   * Metadata, link-local, multicast, reserved and documentation addresses stay refused.
   */
  allowPrivate: boolean;
  /** Plain http allowed to any target; otherwise only to targets that `allowPrivate` admits. */
  allowHttp: boolean;
  /** Ports a target may use; empty allows any. */
  allowedPorts: number[];
}

export interface WebhookTarget {
  protocol: string;
  /** Port in effect (explicit or the scheme's default). */
  port: number;
  hasCredentials: boolean;
  /** Every address the host resolved to (the literal itself for an IP host). */
  addresses: string[];
}

const problem = (message: string): FieldProblem => ({ field: 'webhook', message });

/**
 * Decides whether a webhook target may be called; undefined when it may. Used when the request
 * arrives and again when each attempt connects, with the addresses resolved at that moment.
 */
export function decideWebhookTarget(target: WebhookTarget, policy: WebhookTargetPolicy): FieldProblem | undefined {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return problem('must use https');
  if (target.hasCredentials) return problem('must not carry credentials');
  if (policy.allowedPorts.length > 0 && !policy.allowedPorts.includes(target.port)) {
    return problem(`must use one of the ports ${policy.allowedPorts.join(', ')}`);
  }
  if (target.addresses.length === 0) return problem('host does not resolve');
  const refused = target.addresses.find((a) => !addressAllowed(a, policy));
  if (refused !== undefined) {
    return problem(`must not point to a loopback, private, link-local or metadata address (${judgeAddress(refused).why})`);
  }
  const allPublic = target.addresses.every((a) => isPublicAddress(a));
  if (target.protocol === 'http:' && !policy.allowHttp && allPublic) return problem('must use https');
  return undefined;
}

/**
 * The rule for one address, at registration and again at connect time on the address the socket
 * dials (DNS may have changed since the request): the shared address policy, with loopback and
 * private ranges opened by the operator's private-webhooks setting.
 */
export function addressAllowed(address: string, policy: Pick<WebhookTargetPolicy, 'allowPrivate'>): boolean {
  return addressPermitted(address, { private: policy.allowPrivate, loopback: policy.allowPrivate });
}
