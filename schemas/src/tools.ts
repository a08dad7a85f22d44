import Type, { type Static } from 'typebox';
import { PdfMetadata } from './common.ts';

/**
 * The PDF tools (`/v1/tools/*`, as the real API and its SDK define them): request bodies, the
 * operation a tool request carries on the log, and the answers.
 */

export const PdfToolName = Type.Union([
  Type.Literal('merge-pdfs'),
  Type.Literal('split-pdf'),
  Type.Literal('compress-pdf'),
  Type.Literal('update-pdf-metadata'),
  Type.Literal('convert-markdown-to-pdf'),
]);

const MarginSide = Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Number({ minimum: 0 })]));
const Margin = Type.Object({ top: MarginSide, right: MarginSide, bottom: MarginSide, left: MarginSide }, { additionalProperties: false });

const DocumentUrl = Type.String({ minLength: 1, maxLength: 4096, description: 'An https URL of a PDF, or a link Pressroom handed out.' });
export const CompressLevel = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]);
export const SplitMode = Type.Union([Type.Literal('ranges'), Type.Literal('intervals')]);

/** Most documents one merge takes. */
export const MAX_MERGE_DOCUMENTS = 20;

/** The render's PDF metadata fields and the rest of the document information update-pdf-metadata sets. */
export const ToolMetadata = Type.Object(
  {
    ...PdfMetadata.properties,
    copyright: Type.Optional(Type.String({ maxLength: 1000 })),
    createDate: Type.Optional(Type.String({ maxLength: 64 })),
    modDate: Type.Optional(Type.String({ maxLength: 64 })),
    pdfVersion: Type.Optional(Type.Number()),
    marked: Type.Optional(Type.Boolean()),
    trapped: Type.Optional(Type.Union([Type.Literal('Unknown'), Type.Literal('True'), Type.Literal('False')])),
  },
  { additionalProperties: false },
);

/** What a PDF tool request does, as it travels on the log (inputs by URL, read by the worker). */
export const ToolOperation = Type.Union([
  Type.Object(
    { tool: Type.Literal('merge-pdfs'), urls: Type.Array(Type.String(), { minItems: 2, maxItems: MAX_MERGE_DOCUMENTS }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      tool: Type.Literal('split-pdf'),
      url: Type.String(),
      splitMode: SplitMode,
      ranges: Type.Optional(Type.String()),
      interval: Type.Optional(Type.Integer({ minimum: 1 })),
    },
    { additionalProperties: false },
  ),
  Type.Object({ tool: Type.Literal('compress-pdf'), url: Type.String(), compressLevel: CompressLevel }, { additionalProperties: false }),
  Type.Object({ tool: Type.Literal('update-pdf-metadata'), url: Type.String(), metadata: ToolMetadata }, { additionalProperties: false }),
]);

/** Carried by every tool request (Markdown → PDF included): how its result is named and linked. */
export const ToolRequestInfo = Type.Object(
  {
    name: PdfToolName,
    fileName: Type.String({ minLength: 1, maxLength: 255 }),
    expiresIn: Type.Integer({ minimum: 60, maximum: 604_800, description: 'Lifetime of the result links, seconds.' }),
  },
  { additionalProperties: false },
);

/** What a tool produced beyond its main file: the parts of a split, the size before compression. */
export const ToolResultInfo = Type.Object(
  {
    parts: Type.Optional(
      Type.Array(
        Type.Object(
          { key: Type.String(), bytes: Type.Integer({ minimum: 0 }) },
          { additionalProperties: false, description: 'Further files in the same storage target as the main artifact.' },
        ),
      ),
    ),
    originalBytes: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

// --- HTTP bodies -------------------------------------------------------------------------------

const common = {
  finalFilename: Type.Optional(Type.String({ maxLength: 255, description: 'Name of the result; sanitised, ends in .pdf.' })),
  expiration: Type.Optional(
    Type.Integer({ minimum: 60, maximum: 604_800, description: 'Lifetime of the link(s), seconds; default 3600.' }),
  ),
  async: Type.Optional(Type.Boolean({ description: 'Answer at once with requestId and statusUrl.' })),
  webhook: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, format: 'uri', description: 'POSTed the tool status when done.' })),
};

export const MergePdfsBody = Type.Object(
  { urls: Type.Array(DocumentUrl, { minItems: 2, maxItems: MAX_MERGE_DOCUMENTS }), ...common },
  { additionalProperties: false },
);
export const SplitPdfBody = Type.Object(
  {
    url: DocumentUrl,
    splitMode: Type.Optional(SplitMode),
    ranges: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    ...common,
  },
  { additionalProperties: false },
);
export const CompressPdfBody = Type.Object(
  { url: DocumentUrl, compressLevel: Type.Optional(CompressLevel), ...common },
  { additionalProperties: false },
);
export const UpdatePdfMetadataBody = Type.Object({ url: DocumentUrl, metadata: ToolMetadata, ...common }, { additionalProperties: false });
export const MarkdownToPdfBody = Type.Object(
  {
    markdown: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    customCss: Type.Optional(Type.String({ maxLength: 200_000 })),
    pdfOptions: Type.Optional(
      Type.Object(
        {
          format: Type.Optional(Type.String({ maxLength: 16 })),
          landscape: Type.Optional(Type.Boolean()),
          scale: Type.Optional(Type.Number()),
          printBackground: Type.Optional(Type.Boolean()),
          pageRanges: Type.Optional(Type.String({ maxLength: 200 })),
          margin: Type.Optional(Margin),
        },
        { additionalProperties: false },
      ),
    ),
    ...common,
  },
  { additionalProperties: false },
);

export const ToolSuccessResponse = Type.Object(
  {
    status: Type.Literal('SUCCESS'),
    url: Type.String(),
    fileName: Type.String(),
    urlValidUntil: Type.String({ format: 'date-time' }),
    metadata: Type.Optional(Type.Object({ originalSize: Type.String(), compressedSize: Type.String(), reduction: Type.String() })),
  },
  { additionalProperties: false },
);
export const SplitPdfResponse = Type.Object(
  {
    status: Type.Literal('SUCCESS'),
    totalParts: Type.Integer({ minimum: 1 }),
    fileName: Type.String(),
    urlValidUntil: Type.String({ format: 'date-time' }),
    urls: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
export const ToolQueuedResponse = Type.Object(
  { requestId: Type.String(), statusUrl: Type.String(), message: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export const ToolStatusResponse = Type.Object(
  {
    requestId: Type.String(),
    status: Type.Union([Type.Literal('ONGOING'), Type.Literal('SUCCESS'), Type.Literal('FAILED')]),
    result: Type.Union([ToolSuccessResponse, SplitPdfResponse, Type.Null()]),
    metadata: Type.Object(
      { errorMessage: Type.Optional(Type.String()), errorCode: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export const SignedUploadUrlResponse = Type.Object(
  {
    presignedUploadUrl: Type.String(),
    presignedGetUrl: Type.String(),
    status: Type.Literal('SUCCESS'),
    fileName: Type.String(),
    uploadUrlValidUntil: Type.String({ format: 'date-time' }),
    getUrlValidUntil: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export type ToolOperation = Static<typeof ToolOperation>;
export type ToolRequestInfo = Static<typeof ToolRequestInfo>;
export type ToolResultInfo = Static<typeof ToolResultInfo>;
export type ToolMetadata = Static<typeof ToolMetadata>;
export type MergePdfsBody = Static<typeof MergePdfsBody>;
export type SplitPdfBody = Static<typeof SplitPdfBody>;
export type CompressPdfBody = Static<typeof CompressPdfBody>;
export type UpdatePdfMetadataBody = Static<typeof UpdatePdfMetadataBody>;
export type MarkdownToPdfBody = Static<typeof MarkdownToPdfBody>;
export type ToolSuccessResponse = Static<typeof ToolSuccessResponse>;
export type SplitPdfResponse = Static<typeof SplitPdfResponse>;
export type ToolStatusResponse = Static<typeof ToolStatusResponse>;
export type SignedUploadUrlResponse = Static<typeof SignedUploadUrlResponse>;
