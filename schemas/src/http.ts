import Type from 'typebox';
import { PdfMetadata, RenderError } from './common.ts';
import { PdfParams, ReadySignal } from './page-setup.ts';
import { DataSchema } from './template-events.ts';
import { S3ConnectionUpdateBody } from './http-self-service.ts';

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

const TemplateVersionField = Type.Integer({ minimum: 1, description: 'Render this version of the template; default: the latest.' });
const PdfParamsField = Type.Optional(PdfParams);

const common = {
  convertToImage: Type.Optional(Type.Boolean({ default: false })),
  s3_bucket: Type.Optional(S3Bucket),
  s3_key: Type.Optional(S3Key),
  pdfParams: PdfParamsField,
  metadata: Type.Optional(PdfMetadata),
  hasCover: Type.Optional(Type.Boolean({ description: 'No header or footer on the first page (same as pdfParams.hasCover).' })),
  signedUrlExpiresIn: Type.Optional(
    Type.Integer({
      minimum: 60,
      maximum: 604_800,
      description: 'Lifetime of every link handed out for this render, in seconds (60 to 604800); default 3600.',
    }),
  ),
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Your own reference for this render.' })),
  cache: Type.Optional(
    Type.Boolean({
      description: 'false: render afresh even when your plan serves identical renders from the render cache; default true.',
    }),
  ),
};

const templateFields = {
  templateId: TemplateIdField,
  templateVersion: Type.Optional(TemplateVersionField),
  data: Type.Optional(DataField),
  debug: Type.Optional(
    Type.Boolean({ description: 'Also keep diagnostics: the rendered HTML and the variable checks (link in Pressroom-Debug-Url).' }),
  ),
};

export const TemplateSyncBody = Type.Object({ ...templateFields, ...common }, { additionalProperties: false });
export const TemplateAsyncBody = Type.Object({ ...templateFields, webhook: Webhook, ...common }, { additionalProperties: false });
export const HtmlSyncBody = Type.Object({ html: Html, ...common }, { additionalProperties: false });
export const HtmlAsyncBody = Type.Object({ html: Html, webhook: Webhook, ...common }, { additionalProperties: false });

export const RenderMetadata = Type.Object(
  {
    executionTime: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)? seconds$' }),
    fileSize: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)? kB$' }),
    /** Present (true) when the file is a copy of an identical earlier render of yours (the render cache). */
    cached: Type.Optional(Type.Boolean()),
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
    /** The request's externalId, when it carried one. */
    externalId: Type.Optional(Type.String()),
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
    /** The request's externalId, when it carried one. */
    externalId: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/**
 * Batch rendering (`POST /v1/pdf/batch`, `POST /v1/html-to-pdf/batch`): 1 to 20 items, each a
 * render body of the sync endpoint, and options for the whole batch.
 */
const batchOptions = {
  merge: Type.Optional(Type.Boolean({ default: false, description: 'Also merge every successful PDF, in item order, into one file.' })),
  async: Type.Optional(Type.Boolean({ default: false, description: 'Answer at once with batchRequestId and statusUrl.' })),
  webhook: Type.Optional(Webhook),
  signedUrlExpiresIn: Type.Optional(
    Type.Integer({ minimum: 60, maximum: 604800, description: 'Lifetime of the batch links in seconds (default 3600).' }),
  ),
};
export const BATCH_MAX_ITEMS = 20;
export const TemplateBatchBody = Type.Object(
  { items: Type.Array(TemplateSyncBody, { minItems: 1, maxItems: BATCH_MAX_ITEMS }), ...batchOptions },
  { additionalProperties: false },
);
export const HtmlBatchBody = Type.Object(
  { items: Type.Array(HtmlSyncBody, { minItems: 1, maxItems: BATCH_MAX_ITEMS }), ...batchOptions },
  { additionalProperties: false },
);

/** The batch's state, in the 200 of a batch that finished in time, the status endpoint and the batch webhook. */
export const BatchResponse = Type.Object(
  {
    batchRequestId: Type.String(),
    status: Type.Union([Type.Literal('ONGOING'), Type.Literal('SUCCESS'), Type.Literal('PARTIAL_SUCCESS'), Type.Literal('FAILED')]),
    total: Type.Integer({ minimum: 1 }),
    /** Items that have finished (succeeded or failed). */
    completed: Type.Integer({ minimum: 0 }),
    merge: Type.Boolean(),
    results: Type.Array(StatusResponse),
    mergedUrl: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** A batch sent with `async: true` (200), or one still running after the sync wait (202, with `message`). */
export const BatchAcceptedResponse = Type.Object(
  { batchRequestId: Type.String(), statusUrl: Type.String(), message: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const ErrorBody = Type.Object(
  {
    /** error.message again, at the top: where the official SDK of this API family reads an error's message. */
    message: Type.String(),
    error: Type.Object(
      {
        code: Type.String(),
        message: Type.String(),
        details: Type.Optional(
          Type.Union(
            [
              Type.Array(Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: false }), {
                description: 'Which fields are wrong and why (VALIDATION_FAILED and other refusals of a request).',
              }),
              Type.Record(Type.String(), Type.Unknown(), {
                description:
                  'The context of the error, e.g. `requestId` and `statusUrl` (504 OUTCOME_UNKNOWN), `requestId` and `removedAt` (410 EXPIRED, DELETED).',
              }),
            ],
            { description: 'A list of field problems, or the context of the error.' },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const EtaSource = (description: string) => Type.String({ minLength: 1, maxLength: 1_000_000, description });

export const TemplateWriteBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    content: EtaSource('Eta template source of the body.'),
    header: Type.Optional(EtaSource('Eta source of the running header: same data and assets, plus page number and count.')),
    footer: Type.Optional(EtaSource('Eta source of the running footer.')),
    pdfParams: PdfParamsField,
    ready: Type.Optional(ReadySignal),
    dataSchema: Type.Optional(DataSchema),
  },
  { additionalProperties: false },
);

/** The variables a template expects: its declared dataSchema, or one inferred from its sources. */
export const TemplateVariables = Type.Object(
  {
    source: Type.Union([Type.Literal('declared'), Type.Literal('inferred')]),
    schema: DataSchema,
    /** Dotted paths of every variable (`items[]` marks an array, `items[].name` a field of its elements). */
    names: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);

export const TemplateResource = Type.Object(
  {
    templateId: Type.String(),
    name: Type.String(),
    content: Type.String(),
    header: Type.Optional(Type.String()),
    footer: Type.Optional(Type.String()),
    pdfParams: Type.Optional(PdfParams),
    ready: Type.Optional(ReadySignal),
    dataSchema: Type.Optional(DataSchema),
    variables: TemplateVariables,
    version: Type.Integer({ minimum: 1 }),
    latestVersion: Type.Integer({ minimum: 1 }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time', description: 'When this version was written.' }),
  },
  { additionalProperties: false },
);

export const TemplateVersionSummary = Type.Object(
  {
    version: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time', description: 'When this version was written.' }),
  },
  { additionalProperties: false },
);
export const TemplateVersionList = Type.Object(
  { templateId: Type.String(), latestVersion: Type.Integer({ minimum: 1 }), versions: Type.Array(TemplateVersionSummary) },
  { additionalProperties: false },
);

/** `POST /v1/templates/{id}/preview`: the stored template (a version may be pinned) with this data. */
export const TemplatePreviewBody = Type.Object(
  {
    templateVersion: Type.Optional(TemplateVersionField),
    data: Type.Optional(DataField),
    pdfParams: PdfParamsField,
    convertToImage: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
/** `POST /v1/templates/preview`: unsaved sources, as an editor holds them. */
export const UnsavedPreviewBody = Type.Object(
  {
    content: EtaSource('Eta template source of the body.'),
    header: Type.Optional(EtaSource('Eta source of the running header.')),
    footer: Type.Optional(EtaSource('Eta source of the running footer.')),
    ready: Type.Optional(ReadySignal),
    dataSchema: Type.Optional(DataSchema),
    data: Type.Optional(DataField),
    pdfParams: PdfParamsField,
    convertToImage: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

/** Compatibility with clients of this API family: `GET /v1/integration/templates`. */
export const IntegrationTemplateList = Type.Object(
  {
    templates: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          displayName: Type.String(),
          /** Same as displayName: the item's name before the list took the real API's shape. */
          name: Type.String(),
          createdAt: Type.String({ format: 'date-time' }),
          updatedAt: Type.String({ format: 'date-time' }),
          version: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
/** `GET /v1/integration/templates/{id}`: the latest version, in the real API's shape. */
export const IntegrationTemplate = Type.Object(
  {
    template: Type.Object(
      {
        id: Type.String(),
        displayName: Type.String(),
        createdAt: Type.String({ format: 'date-time' }),
        updatedAt: Type.String({ format: 'date-time' }),
        style: Type.Object(
          {
            headerTemplate: Type.Optional(Type.String()),
            footerTemplate: Type.Optional(Type.String()),
            displayHeaderFooter: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        type: Type.Union([Type.Literal('HTML'), Type.Literal('NO_CODE')]),
        htmlTemplate: Type.String(),
        version: Type.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
/** `GET /v1/integration/templates/{id}/variables`. */
export const IntegrationTemplateVariables = Type.Object(
  {
    id: Type.String(),
    version: Type.Integer({ minimum: 1 }),
    variables: Type.Array(
      Type.Object({ name: Type.String(), type: Type.String(), required: Type.Boolean() }, { additionalProperties: false }),
    ),
    schema: DataSchema,
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
/** A new S3 connection (tenant or operator): the fields of S3ConnectionUpdateBody and an optional id. */
export const S3ConnectionCreateBody = Type.Object(
  {
    connectionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' })),
    ...S3ConnectionUpdateBody.properties,
  },
  { additionalProperties: false },
);
