import Type from 'typebox';
import { DEFAULT_RETRY_POLICY } from '@pressroom/domain';
import { Bool, Int, slice, splitList } from './setting.ts';

/** Webhook delivery: the target rules, the retry schedule (defaults from the domain's policy), secrets. */
export const webhooksSlice = slice({
  env: {
    PRESSROOM_ALLOW_PRIVATE_WEBHOOKS: Bool(
      'Allow webhook targets on loopback and private addresses (tests, private networks). Metadata and link-local addresses are refused regardless.',
      false,
    ),
    PRESSROOM_WEBHOOK_TIMEOUT_MS: Int('Time limit of one webhook delivery attempt.', 15000, 1),
    PRESSROOM_WEBHOOK_ALLOW_HTTP: Bool(
      'Allow plain http webhook targets on public addresses (https is required otherwise; private targets allowed by PRESSROOM_ALLOW_PRIVATE_WEBHOOKS may use http).',
      false,
    ),
    PRESSROOM_WEBHOOK_ALLOWED_PORTS: Type.String({
      default: '',
      pattern: '^[0-9, ]*$',
      description: 'Comma-separated ports webhook targets may use (any when empty).',
    }),
    PRESSROOM_WEBHOOK_RETRY_BASE_MS: Int(
      'Delay before the 2nd webhook attempt; it doubles per attempt (with jitter).',
      DEFAULT_RETRY_POLICY.baseDelayMs,
      1,
    ),
    PRESSROOM_WEBHOOK_RETRY_MAX_MS: Int(
      'Longest delay between two webhook attempts; also caps a receiver’s Retry-After.',
      DEFAULT_RETRY_POLICY.maxDelayMs,
      1,
    ),
    PRESSROOM_WEBHOOK_MAX_ATTEMPTS: Int(
      'Webhook attempts per delivery (or per replay) before it is recorded as failed.',
      DEFAULT_RETRY_POLICY.maxAttempts,
      1,
    ),
    PRESSROOM_WEBHOOK_SECRET_OVERLAP_MS: Int(
      'After a signing-secret rotation, how long the previous secret keeps signing too.',
      86400_000,
      0,
    ),
    PRESSROOM_WEBHOOK_CONCURRENCY: Int('Webhook attempts in flight at once per dispatcher.', 32, 1),
  },
  read(c) {
    return {
      allowPrivateWebhooks: c.PRESSROOM_ALLOW_PRIVATE_WEBHOOKS === 'true',
      webhookTimeoutMs: Number(c.PRESSROOM_WEBHOOK_TIMEOUT_MS),
      webhooks: {
        allowHttp: c.PRESSROOM_WEBHOOK_ALLOW_HTTP === 'true',
        allowedPorts: splitList(c.PRESSROOM_WEBHOOK_ALLOWED_PORTS).map(Number),
        retry: {
          baseDelayMs: Number(c.PRESSROOM_WEBHOOK_RETRY_BASE_MS),
          maxDelayMs: Number(c.PRESSROOM_WEBHOOK_RETRY_MAX_MS),
          maxAttempts: Number(c.PRESSROOM_WEBHOOK_MAX_ATTEMPTS),
        },
        secretOverlapMs: Number(c.PRESSROOM_WEBHOOK_SECRET_OVERLAP_MS),
        concurrency: Number(c.PRESSROOM_WEBHOOK_CONCURRENCY),
      },
    };
  },
});
