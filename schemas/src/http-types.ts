import type { Static } from 'typebox';
import type * as S from './http.ts';

export type TemplateSyncBody = Static<typeof S.TemplateSyncBody>;
export type TemplateAsyncBody = Static<typeof S.TemplateAsyncBody>;
export type HtmlSyncBody = Static<typeof S.HtmlSyncBody>;
export type HtmlAsyncBody = Static<typeof S.HtmlAsyncBody>;
export type RenderMetadata = Static<typeof S.RenderMetadata>;
export type SyncSuccessResponse = Static<typeof S.SyncSuccessResponse>;
export type QueuedResponse = Static<typeof S.QueuedResponse>;
export type StatusResponse = Static<typeof S.StatusResponse>;
export type WebhookBody = Static<typeof S.WebhookBody>;
export type ErrorBody = Static<typeof S.ErrorBody>;
export type TemplateWriteBody = Static<typeof S.TemplateWriteBody>;
export type TemplateResource = Static<typeof S.TemplateResource>;
export type TenantCreateBody = Static<typeof S.TenantCreateBody>;
export type S3ConnectionCreateBody = Static<typeof S.S3ConnectionCreateBody>;
