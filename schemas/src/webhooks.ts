import Type, { type Static } from 'typebox';
import { TenantId } from './common.ts';
/**
 * What one attempt led to, as the deliveries view shows it: the recorded outcomes, and
 * `unknown` for an attempt that started (it may have reached the receiver) but whose end was
 * never recorded: the dispatcher stopped during it, or it is still in flight.
 */
export const DeliveryAttemptOutcome = Type.Union([
  Type.Literal('delivered'),
  Type.Literal('retrying'),
  Type.Literal('failed'),
  Type.Literal('unknown'),
]);

/** One attempt, as the deliveries endpoint shows it. */
export const DeliveryAttempt = Type.Object(
  {
    round: Type.Integer({ minimum: 0 }),
    attempt: Type.Integer({ minimum: 1 }),
    startedAt: Type.String({ format: 'date-time' }),
    statusCode: Type.Optional(Type.Integer()),
    durationMs: Type.Optional(Type.Number({ description: 'Absent when the outcome is unknown.' })),
    error: Type.Optional(Type.String()),
    outcome: DeliveryAttemptOutcome,
    nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

/**
 * The deliveries view of one async render's result, built only from events (the completion
 * and the webhook events), so it can be rebuilt from the log. Also the body of
 * `GET /v1/pdf/{requestId}/deliveries`.
 */
export const DeliveryView = Type.Object(
  {
    requestId: Type.String(),
    tenantId: TenantId,
    webhookId: Type.String(),
    url: Type.Optional(Type.String()),
    renderStatus: Type.Optional(Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAILED')])),
    state: Type.Union([Type.Literal('PENDING'), Type.Literal('DELIVERED'), Type.Literal('FAILED')], {
      description: 'PENDING while attempts go on; DELIVERED or FAILED when the current round ended.',
    }),
    completedAt: Type.Optional(Type.String({ format: 'date-time' })),
    round: Type.Integer({ minimum: 0, description: '0, then +1 for every replay.' }),
    nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
    attempts: Type.Array(DeliveryAttempt),
    outcomes: Type.Array(
      Type.Object(
        {
          round: Type.Integer({ minimum: 0 }),
          outcome: Type.Union([Type.Literal('DELIVERED'), Type.Literal('FAILED')]),
          at: Type.String({ format: 'date-time' }),
          statusCode: Type.Optional(Type.Integer()),
          reason: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: 'The final outcome of each round.' },
    ),
    replays: Type.Array(
      Type.Object(
        { at: Type.String({ format: 'date-time' }), requestedBy: Type.String(), replayId: Type.String() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const WebhookSecretResponse = Type.Object(
  {
    secret: Type.String({ description: 'The current signing secret (`whsec_…`).' }),
    createdAt: Type.String({ format: 'date-time' }),
    previous: Type.Optional(
      Type.Object(
        {
          secret: Type.String(),
          expiresAt: Type.String({ format: 'date-time', description: 'Until then deliveries carry a signature with it too.' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const WebhookReplayBody = Type.Union(
  [
    Type.Object({ requestId: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
    Type.Object(
      {
        from: Type.String({ format: 'date-time', description: 'Results completed at or after this instant…' }),
        to: Type.String({ format: 'date-time', description: '…and before this one.' }),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'One request, or every result of the tenant completed in [from, to).' },
);

export const WebhookReplayResponse = Type.Object(
  { replayId: Type.String(), requestIds: Type.Array(Type.String()) },
  { additionalProperties: false },
);

export type DeliveryAttempt = Static<typeof DeliveryAttempt>;
export type DeliveryView = Static<typeof DeliveryView>;
export type WebhookSecretResponse = Static<typeof WebhookSecretResponse>;
export type WebhookReplayBody = Static<typeof WebhookReplayBody>;
export type WebhookReplayResponse = Static<typeof WebhookReplayResponse>;
