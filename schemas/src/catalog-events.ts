import Type, { type Static, type TSchema } from 'typebox';
import { eventEnvelope, TenantId } from './common.ts';

/**
 * Catalog events: the facts about a tenant (its creation and plan, API keys, S3 connections,
 * webhook signing secrets and their rotations), on the catalog topic keyed by tenantId, so
 * one tenant's facts stay in order on one partition and every catalog view can be rebuilt
 * from them. `sequence` is the event's place in its tenant's stream (1 for the first): writes
 * are appended with the stream version they were decided on, so sequences are dense.
 * Secrets appear only sealed (AES-256-GCM under the service's secret key), keys only hashed.
 */
function catalogEnvelope<T extends string, D extends TSchema>(type: T, data: D) {
  return eventEnvelope(
    type,
    {
      tenantId: TenantId,
      sequence: Type.Integer({ minimum: 1, description: "The event's place in its tenant's stream (1 for the first)." }),
    },
    data,
  );
}

export const Plan = Type.Union([Type.Literal('standard'), Type.Literal('high')]);

export const TenantCreated = catalogEnvelope(
  'TenantCreated',
  Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), plan: Plan }, { additionalProperties: false }),
);

/** What a key may do: `render` (renders, templates, assets, history) and `manage` (keys, S3 connections). */
export const ApiKeyScope = Type.Union([Type.Literal('render'), Type.Literal('manage')]);
export const ApiKeyId = Type.String({ pattern: '^key_[A-Za-z0-9]{1,64}$', description: 'The public id of a key (`key_…`).' });

export const ApiKeyIssued = catalogEnvelope(
  'ApiKeyIssued',
  Type.Object(
    {
      keyHash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the key, hex; the key itself is never stored.' }),
      label: Type.String({ maxLength: 200 }),
      // Absent on keys issued before ids: their id is derived from the eventId (see apiKeyOf).
      keyId: Type.Optional(ApiKeyId),
      prefix: Type.Optional(
        Type.String({ maxLength: 32, description: 'The first characters of the key (`prs_live_` and four more), to recognise it.' }),
      ),
      scopes: Type.Optional(Type.Array(ApiKeyScope, { minItems: 1, maxItems: 2, description: 'Absent: every scope.' })),
    },
    { additionalProperties: false },
  ),
);

/** The key stops authenticating now. */
export const ApiKeyRevoked = catalogEnvelope('ApiKeyRevoked', Type.Object({ keyId: ApiKeyId }, { additionalProperties: false }));

/** The key was replaced by `replacedBy` (issued just before, in the same decision); it keeps working until `expiresAt`. */
export const ApiKeyRotated = catalogEnvelope(
  'ApiKeyRotated',
  Type.Object({ keyId: ApiKeyId, replacedBy: ApiKeyId, expiresAt: Type.String({ format: 'date-time' }) }, { additionalProperties: false }),
);

/** The operator moved the tenant to another plan. */
export const TenantPlanChanged = catalogEnvelope('TenantPlanChanged', Type.Object({ plan: Plan }, { additionalProperties: false }));

export const S3ConnectionRegistered = catalogEnvelope(
  'S3ConnectionRegistered',
  Type.Object(
    {
      connectionId: Type.String({ minLength: 1, maxLength: 128 }),
      bucket: Type.String({ minLength: 1 }),
      region: Type.String({ minLength: 1 }),
      endpoint: Type.Optional(Type.String()),
      forcePathStyle: Type.Optional(Type.Boolean()),
      accessKeyId: Type.Optional(Type.String({ minLength: 1, description: 'Static credentials (absent when a role is assumed).' })),
      sealedSecretAccessKey: Type.Optional(Type.String({ minLength: 1, description: 'Sealed with the service secret key.' })),
      roleArn: Type.Optional(
        Type.String({ minLength: 20, maxLength: 2048, description: 'A role to assume instead of static credentials.' }),
      ),
      externalId: Type.Optional(Type.String({ minLength: 2, maxLength: 1224, description: 'The external id the role requires.' })),
    },
    { additionalProperties: false },
  ),
);

/** The connection is gone: renders can no longer name it. */
export const S3ConnectionDeleted = catalogEnvelope(
  'S3ConnectionDeleted',
  Type.Object({ connectionId: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
);

export const WebhookSecretCreated = catalogEnvelope(
  'WebhookSecretCreated',
  Type.Object({ sealedSecret: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
);

export const WebhookSecretRotated = catalogEnvelope(
  'WebhookSecretRotated',
  Type.Object(
    {
      sealedSecret: Type.String({ minLength: 1, description: 'The new current secret, sealed.' }),
      previousSealedSecret: Type.String({
        minLength: 1,
        description: 'The secret it replaces, sealed; it keeps signing until previousExpiresAt.',
      }),
      previousExpiresAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
);

export const CatalogEvent = Type.Union([
  TenantCreated,
  TenantPlanChanged,
  ApiKeyIssued,
  ApiKeyRevoked,
  ApiKeyRotated,
  S3ConnectionRegistered,
  S3ConnectionDeleted,
  WebhookSecretCreated,
  WebhookSecretRotated,
]);

export type TenantCreated = Static<typeof TenantCreated>;
export type ApiKeyIssued = Static<typeof ApiKeyIssued>;
export type ApiKeyRevoked = Static<typeof ApiKeyRevoked>;
export type ApiKeyRotated = Static<typeof ApiKeyRotated>;
export type TenantPlanChanged = Static<typeof TenantPlanChanged>;
export type S3ConnectionDeleted = Static<typeof S3ConnectionDeleted>;
export type ApiKeyScope = Static<typeof ApiKeyScope>;
export type S3ConnectionRegistered = Static<typeof S3ConnectionRegistered>;
export type WebhookSecretCreated = Static<typeof WebhookSecretCreated>;
export type WebhookSecretRotated = Static<typeof WebhookSecretRotated>;
export type CatalogEvent = Static<typeof CatalogEvent>;
export type Plan = Static<typeof Plan>;
