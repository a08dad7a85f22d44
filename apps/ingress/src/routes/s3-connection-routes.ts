import type { Handlers } from '../http/route-table.ts';
import { S3ConnectionCreateBody, S3ConnectionUpdateBody } from '@pressroom/schemas';
import {
  deleteS3Connection,
  getS3ConnectionSummary,
  listS3Connections,
  registerS3Connection,
  updateS3Connection,
  type S3ConnectionDeps,
} from '@pressroom/core';
import { bodyParser } from '../http/validate.ts';
import { tenantOf } from '../http/auth.ts';

const parseCreate = bodyParser(S3ConnectionCreateBody);
const parseUpdate = bodyParser(S3ConnectionUpdateBody);

/**
 * A tenant's own S3 connections (the `manage` scope, checked before these run: api-routes.ts; custom S3 is on the high plan only: 403
 * PLAN_FORBIDS_CUSTOM_S3). A registration or change is tested with a write and a delete in the
 * bucket (422 S3_CONNECTION_TEST_FAILED with the reason); secrets are never answered. Another
 * tenant's connection id answers 404 exactly like an unknown one.
 *
 *   GET    /v1/s3-connections                  S3ConnectionList
 *   POST   /v1/s3-connections                  S3ConnectionCreateBody → 201 S3ConnectionSummary
 *   GET    /v1/s3-connections/{connectionId}   S3ConnectionSummary
 *   PUT    /v1/s3-connections/{connectionId}   S3ConnectionUpdateBody → 200 S3ConnectionSummary
 *   DELETE /v1/s3-connections/{connectionId}   204
 */
export function s3ConnectionRoutes(
  deps: S3ConnectionDeps,
): Handlers<'listS3Connections' | 'createS3Connection' | 'getS3Connection' | 'updateS3Connection' | 'deleteS3Connection'> {
  return {
    listS3Connections: async (ctx) => {
      ctx.body = { connections: await listS3Connections(deps, tenantOf(ctx).tenantId) };
    },
    createS3Connection: async (ctx) => {
      const body = parseCreate(ctx.request.body);
      ctx.status = 201;
      ctx.body = await registerS3Connection(deps, tenantOf(ctx).tenantId, body, 'tenant');
    },
    getS3Connection: async (ctx) => {
      ctx.body = await getS3ConnectionSummary(deps, tenantOf(ctx).tenantId, ctx.params.connectionId ?? '');
    },
    updateS3Connection: async (ctx) => {
      const body = parseUpdate(ctx.request.body);
      ctx.body = await updateS3Connection(deps, tenantOf(ctx).tenantId, ctx.params.connectionId ?? '', body, 'tenant');
    },
    deleteS3Connection: async (ctx) => {
      await deleteS3Connection(deps, tenantOf(ctx).tenantId, ctx.params.connectionId ?? '');
      ctx.status = 204;
    },
  };
}
