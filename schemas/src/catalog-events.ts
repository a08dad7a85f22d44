import Type, { type Static, type TSchema } from 'typebox';
import { TenantId } from './common.ts';

/**
 * Catalog events: the facts about a tenant (its creation and plan, API keys, S3 connections,
 * webhook signing secrets and their rotations), on the catalog topic keyed by tenantId, so
 * one tenant's facts stay in order on one partition and every catalog view can be rebuilt
 * from them. `sequence` is the event's place in its tenant's stream (1 for the first): writes
 * are appended with the stream version they were decided on, so sequences are dense.
 * Secrets appear only sealed (AES-256-GCM under the service's secret key), keys only hashed.
 */
function catalogEnvelope<T extends string, D extends TSchema>(type: T, data: D) {
  return Type.Object(
    {
      eventId: Type.String({ description: 'UUIDv7, unique per event.' }),
      type: Type.Literal(type),
      version: Type.Literal(1),
      occurredAt: Type.String({ format: 'date-time' }),
      tenantId: TenantId,
      sequence: Type.Integer({ minimum: 1, description: "The event's place in its tenant's stream (1 for the first)." }),
      data,
    },
    { additionalProperties: false, $id: `pressroom.${type}.v1` },
  );
}

export const Plan = Type.Union([Type.Literal('standard'), Type.Literal('high')]);

export const TenantCreated = catalogEnvelope(
  'TenantCreated',
  Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), plan: Plan }, { additionalProperties: false }),
);

export const ApiKeyIssued = catalogEnvelope(
  'ApiKeyIssued',
  Type.Object(
    {
      keyHash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the key, hex; the key itself is never stored.' }),
      label: Type.String({ maxLength: 200 }),
    },
    { additionalProperties: false },
  ),
);

export const S3ConnectionRegistered = catalogEnvelope(
  'S3ConnectionRegistered',
  Type.Object(
    {
      connectionId: Type.String({ minLength: 1, maxLength: 128 }),
      bucket: Type.String({ minLength: 1 }),
      region: Type.String({ minLength: 1 }),
      endpoint: Type.Optional(Type.String()),
      forcePathStyle: Type.Optional(Type.Boolean()),
      accessKeyId: Type.String({ minLength: 1 }),
      sealedSecretAccessKey: Type.String({ minLength: 1, description: 'Sealed with the service secret key.' }),
    },
    { additionalProperties: false },
  ),
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

export const CatalogEvent = Type.Union([TenantCreated, ApiKeyIssued, S3ConnectionRegistered, WebhookSecretCreated, WebhookSecretRotated]);

export type TenantCreated = Static<typeof TenantCreated>;
export type ApiKeyIssued = Static<typeof ApiKeyIssued>;
export type S3ConnectionRegistered = Static<typeof S3ConnectionRegistered>;
export type WebhookSecretCreated = Static<typeof WebhookSecretCreated>;
export type WebhookSecretRotated = Static<typeof WebhookSecretRotated>;
export type CatalogEvent = Static<typeof CatalogEvent>;
export type Plan = Static<typeof Plan>;
