/** The clock difference between an ingress and the log tolerated by default when judging `acceptBy`. */
export const DEFAULT_ACCEPT_CLOCK_SKEW_MS = 2_000;

/**
 * Whether the render worker may render a request, given when the log wrote it.
 *
 * The ingress puts its give-up time in the request (`acceptBy`): past it, the caller got 503
 * ("not taken"). A producer may still write the request later (kafkajs retries a batch in flight
 * after the append timed out; a broker may come back). The log's own write time (Kafka
 * `LogAppendTime`, the embedded log's write time) tells: written after `acceptBy` means the
 * caller was refused, so the request is withdrawn, never rendered.
 *
 * `skewMs` covers the clocks of the ingress and the log disagreeing: an accepted request is
 * always written before its acknowledgement reached the ingress, so before `acceptBy` on the
 * ingress's clock; a log clock ahead by up to `skewMs` must not turn it into a refusal. The
 * request written in (acceptBy, acceptBy + skewMs] is rendered; the ingress's own withdrawal
 * (RenderWithdrawn, appended after it answered 503) wins over its outcome there.
 *
 * Requests from before this rule (no `acceptBy`), or a log that does not report write times,
 * are rendered.
 */
export function admitsRender(request: { acceptBy?: string | undefined }, writtenAtMs: number | undefined, skewMs: number): boolean {
  if (request.acceptBy === undefined || writtenAtMs === undefined) return true;
  const deadline = Date.parse(request.acceptBy);
  if (Number.isNaN(deadline)) return true;
  return writtenAtMs <= deadline + skewMs;
}
