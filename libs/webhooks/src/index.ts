/**
 * @pressroom/webhooks — the I/O side of webhook delivery. The pure rules (retry schedule, the
 * delivery state fold, the body, the target policy) live in @pressroom/domain; this lib holds
 * what touches the network, the clock and the catalog:
 *
 * - webhook-target: the SSRF guard (resolve the host, refuse addresses the policy forbids)
 * - webhook-http: the outbound client, pinned to the address the guard checked
 * - webhook-signature: Standard Webhooks signing (HMAC-SHA256) and secret generation
 * - webhook-secrets: the tenant's signing secrets (created on first use, rotation with overlap)
 * - webhook-deliveries: replay and rebuild of the deliveries view from the log
 * - deliver-attempt: one delivery attempt, start to recorded outcome (used by the dispatcher)
 *
 * Its settings are the `webhooks` slice of the configuration (libs/runtime/src/config).
 */
export * from './webhook-target.ts';
export * from './webhook-http.ts';
export * from './webhook-signature.ts';
export * from './webhook-secrets.ts';
export * from './webhook-deliveries.ts';
export * from './deliver-attempt.ts';
