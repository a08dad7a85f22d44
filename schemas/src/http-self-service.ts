import Type, { type Static } from 'typebox';
import { ApiKeyId, ApiKeyScope, Plan } from './catalog-events.ts';

/*
 * Bodies and answers of key and S3 connection management: `/v1/keys`, `/v1/s3-connections`
 * (a key with the `manage` scope, for its own tenant) and the same under
 * `/admin/v1/tenants/{tenantId}/…` for the operator. Secrets are shown once (a new key) or
 * never (S3 secrets); the answers below have no field that could carry one.
 */

export const ApiKeyCreateBody = Type.Object(
  {
    label: Type.Optional(Type.String({ maxLength: 200 })),
    scopes: Type.Optional(Type.Array(ApiKeyScope, { minItems: 1, maxItems: 2, uniqueItems: true, description: 'Default: both.' })),
  },
  { additionalProperties: false },
);

export const ApiKeyRotateBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600, description: 'How long the old key keeps working (default 24 hours).' }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeySummary = Type.Object(
  {
    keyId: ApiKeyId,
    prefix: Type.Union([Type.String(), Type.Null()], {
      description: 'The first characters of the key; null for keys not issued by Pressroom.',
    }),
    label: Type.String(),
    scopes: Type.Array(ApiKeyScope),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'To the minute; null when never seen.' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('expiring'), Type.Literal('expired'), Type.Literal('revoked')]),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'When a rotated key stops working.' })),
    replacedBy: Type.Optional(ApiKeyId),
    revokedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const ApiKeyList = Type.Object({ keys: Type.Array(ApiKeySummary) }, { additionalProperties: false });

export const ApiKeyCreatedResponse = Type.Object(
  {
    key: ApiKeySummary,
    apiKey: Type.String({ description: 'The key itself: shown once, never again.' }),
    note: Type.String(),
  },
  { additionalProperties: false },
);

/** A rotation's answer: the new key (shown once) and the old one, now expiring. */
export const ApiKeyRotatedResponse = Type.Object(
  {
    key: ApiKeySummary,
    apiKey: Type.String({ description: 'The new key itself: shown once, never again.' }),
    previous: Type.Optional(ApiKeySummary),
    note: Type.String(),
  },
  { additionalProperties: false },
);

/** The operator's `POST /admin/v1/tenants/{tenantId}/keys`: the same, naming the tenant. */
export const AdminApiKeyCreatedResponse = Type.Object(
  {
    tenantId: Type.String(),
    key: ApiKeySummary,
    apiKey: Type.String({ description: 'The key itself: shown once, never again.' }),
    note: Type.String(),
  },
  { additionalProperties: false },
);

export const TenantPlanBody = Type.Object({ plan: Plan }, { additionalProperties: false });

const connectionFields = {
  bucket: Type.String({ minLength: 3, maxLength: 63 }),
  region: Type.String({ minLength: 1, maxLength: 64 }),
  endpoint: Type.Optional(Type.String({ format: 'uri' })),
  forcePathStyle: Type.Optional(Type.Boolean()),
  accessKeyId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  secretAccessKey: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  roleArn: Type.Optional(Type.String({ pattern: '^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$' })),
  externalId: Type.Optional(Type.String({ minLength: 2, maxLength: 1224, pattern: '^[A-Za-z0-9+=,.@:/_-]+$' })),
};

/** Static credentials (accessKeyId + secretAccessKey) or a role to assume (roleArn, optional externalId): one of the two. */
export const S3ConnectionUpdateBody = Type.Object(connectionFields, { additionalProperties: false });

export const S3ConnectionSummary = Type.Object(
  {
    connectionId: Type.String(),
    bucket: Type.String(),
    region: Type.String(),
    endpoint: Type.Optional(Type.String()),
    forcePathStyle: Type.Optional(Type.Boolean()),
    credentials: Type.Union([Type.Literal('static'), Type.Literal('role')]),
    accessKeyId: Type.Optional(Type.String()),
    roleArn: Type.Optional(Type.String()),
    externalId: Type.Optional(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const S3ConnectionList = Type.Object({ connections: Type.Array(S3ConnectionSummary) }, { additionalProperties: false });

export type ApiKeyCreateBody = Static<typeof ApiKeyCreateBody>;
export type ApiKeyRotateBody = Static<typeof ApiKeyRotateBody>;
export type ApiKeySummary = Static<typeof ApiKeySummary>;
export type TenantPlanBody = Static<typeof TenantPlanBody>;
export type S3ConnectionUpdateBody = Static<typeof S3ConnectionUpdateBody>;
export type S3ConnectionSummary = Static<typeof S3ConnectionSummary>;
