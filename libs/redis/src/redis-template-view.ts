import { templateViewOn, type Logger, type TemplateView } from '@pressroom/core';
import { createRedisDocumentStore } from './redis-document-store.ts';

export interface RedisTemplateViewOptions {
  url: string;
  /** Every key starts with it, e.g. `pressroom:`; tests use a unique one. */
  keyPrefix: string;
  logger?: Logger;
}

/**
 * The distributed profile's template view: the template projections' documents in a Redis
 * document store (see redis-document-store.ts). Layout:
 *
 *   <prefix>templates:heads:<tenantId>                    hash templateId → TemplateHead JSON
 *   <prefix>templates:versions:<tenantId>:<templateId>    hash version → TemplateVersionRecord JSON
 *   <prefix>templates:built                               set once a rebuild from the log completed
 *
 * A version is written once (a replay finds it and writes nothing); the head moves with
 * `evolveTemplateHead` through the store's compare-and-set, retried when another writer got there
 * first: the ingress and the projector apply the same events concurrently without losing either.
 * Everything lives under `<prefix>templates:`, so `clear` (before a rebuild) touches nothing else.
 */
export function createRedisTemplateView(options: RedisTemplateViewOptions): TemplateView {
  const store = createRedisDocumentStore({ ...options, name: 'template view', connection: 'templates' });
  return templateViewOn(store, { copies: false });
}
