import Type from 'typebox';
import { Bool, Int, optional, slice, Str } from './setting.ts';

/** Our own bucket for rendered files and assets (distributed profile). */
export const storageSlice = slice({
  env: {
    S3_ENDPOINT: Str('S3 endpoint for our own bucket (omit for AWS).'),
    S3_REGION: Str('Region of our own bucket.', 'us-east-1'),
    S3_ACCESS_KEY_ID: Str('Access key of our own bucket.'),
    S3_SECRET_ACCESS_KEY: Str('Secret key of our own bucket.'),
    S3_FORCE_PATH_STYLE: Bool('Path-style S3 addressing (S3Proxy, MinIO).', true),
    PRESSROOM_S3_BUCKET: Str('Our own bucket for rendered files (distributed profile).', 'pressroom-artifacts'),
    PRESSROOM_S3_REQUEST_TIMEOUT_MS: Int(
      'How long an S3 request may go without an answer before it counts as failed (and is retried): bounds a hanging storage server.',
      30000,
      100,
    ),
    PRESSROOM_S3_STS_ENDPOINT: Str(
      "STS endpoint where tenant S3 connections with a role (roleArn) assume it, with the service's own AWS credentials (omit for AWS STS of the connection's region; set for an STS-compatible server or a private endpoint).",
    ),
    PRESSROOM_PAYLOADS: Type.Union([Type.Literal('store'), Type.Literal('inline')], {
      default: 'store',
      description:
        "Where a render request's payload (HTML, template data and sources) goes: store: in our own storage under the request id (one retried write; beside the request's append when its worker can take the payload meanwhile (in memory in the standalone process, a sync request's Redis copy), before it otherwise; answered once both are done), the log keeps only its SHA-256 and size, and it expires with the render's files (plan retention) or goes on DELETE; inline: on the RenderRequested event itself (kept as long as the log).",
    }),
    PRESSROOM_PAYLOAD_COPY_TTL_MS: Int(
      "Distributed profile, PRESSROOM_PAYLOADS=store: how long a copy of a sync request's stored payload (up to 256 KiB) waits in Redis for its render worker, which takes it (read once, then gone) instead of reading the object back from our storage. The object stays the record: a copy missing, expired or lost is read from storage; DELETE and retention remove the copy with the object. Async requests get no copy (a backlog would sit in Redis's memory). 0: no copies.",
      60000,
      0,
    ),
  },
  read(c) {
    return {
      /** Request payloads in our own storage (store) or on the log (inline). */
      payloads: c.PRESSROOM_PAYLOADS,
      /** How long a stored payload's copy waits in Redis for its render (0: none); see PayloadCopies. */
      payloadCopyTtlMs: Number(c.PRESSROOM_PAYLOAD_COPY_TTL_MS),
      s3: {
        endpoint: optional(c.S3_ENDPOINT),
        region: c.S3_REGION,
        accessKeyId: optional(c.S3_ACCESS_KEY_ID),
        secretAccessKey: optional(c.S3_SECRET_ACCESS_KEY),
        forcePathStyle: c.S3_FORCE_PATH_STYLE === 'true',
        bucket: c.PRESSROOM_S3_BUCKET,
        requestTimeoutMs: Number(c.PRESSROOM_S3_REQUEST_TIMEOUT_MS),
        stsEndpoint: optional(c.PRESSROOM_S3_STS_ENDPOINT),
      },
    };
  },
});
