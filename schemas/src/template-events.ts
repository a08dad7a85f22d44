import Type, { type Static, type TSchema } from 'typebox';
import { eventEnvelope, TenantId } from './common.ts';
import { PdfParams, ReadySignal } from './page-setup.ts';

/** Template ids we issue: `tpl_` and 32 hex digits. */
export const TemplateId = Type.String({ minLength: 1, maxLength: 128, description: 'Identifier of a template.' });

/**
 * Template events share the render events' envelope except for the key: `templateId` takes the
 * place of `requestId`, so one template's versions stay in order on one partition.
 */
function templateEnvelope<T extends string, D extends TSchema>(type: T, data: D) {
  return eventEnvelope(type, { templateId: TemplateId, tenantId: TenantId }, data);
}

/** A JSON Schema object (checked when the template is written). */
export const DataSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: 'JSON Schema of the template `data` (an object schema).',
});

/** Everything one version of a template holds; immutable once written. */
export const TemplateVersionContent = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    content: Type.String({ minLength: 1, description: 'Eta template source of the body.' }),
    header: Type.Optional(Type.String({ description: 'Eta source of the running header.' })),
    footer: Type.Optional(Type.String({ description: 'Eta source of the running footer.' })),
    pdfParams: Type.Optional(PdfParams),
    ready: Type.Optional(ReadySignal),
    dataSchema: Type.Optional(DataSchema),
  },
  { additionalProperties: false },
);

const VersionedContent = Type.Object(
  { templateVersion: Type.Integer({ minimum: 1 }), ...TemplateVersionContent.properties },
  { additionalProperties: false },
);

export const TemplateCreated = templateEnvelope('TemplateCreated', VersionedContent);
export const TemplateRevised = templateEnvelope('TemplateRevised', VersionedContent);
export const TemplateDeleted = templateEnvelope(
  'TemplateDeleted',
  Type.Object(
    { templateVersion: Type.Integer({ minimum: 1, description: 'The last version, the one deleted with the template.' }) },
    { additionalProperties: false },
  ),
);

export const TemplateEvent = Type.Union([TemplateCreated, TemplateRevised, TemplateDeleted]);

export type TemplateCreated = Static<typeof TemplateCreated>;
export type TemplateRevised = Static<typeof TemplateRevised>;
export type TemplateDeleted = Static<typeof TemplateDeleted>;
export type TemplateEvent = Static<typeof TemplateEvent>;
export type TemplateVersionContent = Static<typeof TemplateVersionContent>;
export type DataSchema = Static<typeof DataSchema>;
