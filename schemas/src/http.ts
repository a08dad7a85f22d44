import Type from 'typebox';
import { PdfMetadata, RenderError } from './common.ts';

// s3_key: a relative path without extension: no "..", no leading "/", no control characters.
const S3Key = Type.String({
  minLength: 1,
  maxLength: 900,
  pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$))[^\\u0000-\\u001f\\u007f]+$',
  description: 'Path inside the custom bucket, without extension.',
});
const S3Bucket = Type.String({ minLength: 1, maxLength: 128, description: 'Id of one of the tenant S3 connections.' });
const Webhook = Type.String({ minLength: 1, maxLength: 2048, format: 'uri', description: 'URL that receives the result by POST.' });
const TemplateIdField = Type.String({ minLength: 1, maxLength: 128 });
const DataField = Type.Record(Type.String(), Type.Unknown(), { description: 'Variables of the template.' });
const Html = Type.String({ minLength: 1, description: 'HTML content to render.' });

const common = {
  convertToImage: Type.Optional(Type.Boolean({ default: false })),
  s3_bucket: Type.Optional(S3Bucket),
  s3_key: Type.Optional(S3Key),
};

export const TemplateSyncBody = Type.Object(
  { templateId: TemplateIdField, data: Type.Optional(DataField), metadata: Type.Optional(PdfMetadata), ...common },
  { additionalProperties: false },
);
export const TemplateAsyncBody = Type.Object(
  { templateId: TemplateIdField, data: Type.Optional(DataField), webhook: Webhook, ...common },
  { additionalProperties: false },
);
export const HtmlSyncBody = Type.Object({ html: Html, metadata: Type.Optional(PdfMetadata), ...common }, { additionalProperties: false });
export const HtmlAsyncBody = Type.Object({ html: Html, webhook: Webhook, ...common }, { additionalProperties: false });

export const RenderMetadata = Type.Object(
  {
    executionTime: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)? seconds$' }),
    fileSize: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)? kB$' }),
  },
  { additionalProperties: false },
);

export const SyncSuccessResponse = Type.Object({ signedUrl: Type.String(), metadata: RenderMetadata }, { additionalProperties: false });
export const QueuedResponse = Type.Object(
  { requestId: Type.String(), statusUrl: Type.String(), message: Type.String() },
  { additionalProperties: false },
);
export const AsyncAcceptedResponse = Type.Object({ requestId: Type.String() }, { additionalProperties: false });

export const StatusResponse = Type.Object(
  {
    requestId: Type.String(),
    renderStatus: Type.Union([Type.Literal('ONGOING'), Type.Literal('SUCCESS'), Type.Literal('FAILED')]),
    signedUrl: Type.String(),
    metadata: Type.Union([RenderMetadata, Type.Object({}, { additionalProperties: false })]),
    error: Type.Optional(RenderError),
  },
  { additionalProperties: false },
);

/** Body POSTed to the caller's webhook. */
export const WebhookBody = Type.Object(
  {
    requestId: Type.String(),
    renderStatus: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAILED')]),
    signedUrl: Type.String(),
    metadata: Type.Union([RenderMetadata, Type.Object({}, { additionalProperties: false })]),
    error: Type.Optional(RenderError),
  },
  { additionalProperties: false },
);

export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String(),
        message: Type.String(),
        details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: false }))),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const TemplateWriteBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    content: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'Eta template source.' }),
  },
  { additionalProperties: false },
);
export const TemplateResource = Type.Object(
  {
    templateId: Type.String(),
    name: Type.String(),
    content: Type.String(),
    version: Type.Integer({ minimum: 1 }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

/** Operator-only bodies (admin API). */
export const TenantCreateBody = Type.Object(
  {
    tenantId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    plan: Type.Union([Type.Literal('standard'), Type.Literal('high')]),
  },
  { additionalProperties: false },
);
export const S3ConnectionCreateBody = Type.Object(
  {
    connectionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' })),
    bucket: Type.String({ minLength: 3, maxLength: 63 }),
    region: Type.String({ minLength: 1, maxLength: 64 }),
    endpoint: Type.Optional(Type.String({ format: 'uri' })),
    forcePathStyle: Type.Optional(Type.Boolean()),
    accessKeyId: Type.String({ minLength: 1 }),
    secretAccessKey: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);
