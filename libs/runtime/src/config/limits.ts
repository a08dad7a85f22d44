import type { DoorLimits } from '@pressroom/domain';
import { Bool, Int, slice } from './setting.ts';

/** Bounds on tenant input, checked at the door (ingress), and the private-address switches. */
export const limitsSlice = slice({
  env: {
    PRESSROOM_MAX_BODY_BYTES: Int('Largest accepted request body (413 above).', 5 * 1024 * 1024, 1024),
    PRESSROOM_MAX_ASSET_BYTES: Int(
      'Largest uploaded asset (font or image), decoded; 413 above. Keep it under the body limit / 1.34 (base64).',
      3 * 1024 * 1024,
      1,
    ),
    PRESSROOM_MAX_JSON_DEPTH: Int('Deepest nesting of any JSON request body (400 above).', 100, 2),
    PRESSROOM_MAX_JSON_VALUES: Int(
      'Most values (object members and array elements) in any JSON request body, counted before it is parsed (400 above).',
      20000,
      1,
    ),
    PRESSROOM_MAX_DATA_DEPTH: Int('Deepest nesting of a render’s `data` (400 above).', 32, 1),
    PRESSROOM_MAX_DATA_KEYS: Int('Most object members plus array elements in a render’s `data` (400 above).', 10000, 1),
    PRESSROOM_MAX_DATA_BYTES: Int('Largest render `data`, as JSON (400 above).', 1024 * 1024, 2),
    PRESSROOM_MAX_TEMPLATE_BYTES: Int(
      'Longest template source: content, header and footer together, in characters (400 above).',
      256 * 1024,
      1,
    ),
    PRESSROOM_MAX_TEMPLATE_CODE_BYTES: Int(
      'Most code inside a template’s Eta tags (`<% %>`), all sources together, in characters (400 above): bounds variable inference.',
      64 * 1024,
      1,
    ),
    PRESSROOM_MAX_SCHEMA_BYTES: Int('Largest `dataSchema`, as JSON (400 above).', 64 * 1024, 2),
    PRESSROOM_MAX_SCHEMA_DEPTH: Int('Deepest nesting of a `dataSchema`, counted along every `$ref` it follows (400 above).', 64, 2),
    PRESSROOM_MAX_SCHEMA_NODES: Int(
      'Most subschemas and values of a `dataSchema` once every `$ref` is followed: bounds `anyOf`/`$ref` fan-out (400 above).',
      10000,
      1,
    ),
    PRESSROOM_VALIDATION_TIMEOUT_MS: Int(
      'Time limit of compiling a declared `dataSchema` or checking `data` against it (done off the event loop; 400 above).',
      1000,
      10,
    ),
    PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS: Bool(
      'Allow tenant S3 connection endpoints on loopback and private addresses (an S3-compatible server inside the network, tests). Metadata and link-local addresses are refused regardless.',
      false,
    ),
    PRESSROOM_IDEMPOTENCY_TTL_MS: Int('How long an Idempotency-Key of a render request is remembered (per tenant).', 24 * 3600_000, 60_000),
  },
  read(c) {
    const limits: DoorLimits = {
      jsonDepth: Number(c.PRESSROOM_MAX_JSON_DEPTH),
      jsonValues: Number(c.PRESSROOM_MAX_JSON_VALUES),
      dataDepth: Number(c.PRESSROOM_MAX_DATA_DEPTH),
      dataKeys: Number(c.PRESSROOM_MAX_DATA_KEYS),
      dataBytes: Number(c.PRESSROOM_MAX_DATA_BYTES),
      templateBytes: Number(c.PRESSROOM_MAX_TEMPLATE_BYTES),
      templateCodeBytes: Number(c.PRESSROOM_MAX_TEMPLATE_CODE_BYTES),
      schemaBytes: Number(c.PRESSROOM_MAX_SCHEMA_BYTES),
      schemaDepth: Number(c.PRESSROOM_MAX_SCHEMA_DEPTH),
      schemaNodes: Number(c.PRESSROOM_MAX_SCHEMA_NODES),
    };
    return {
      maxBodyBytes: Number(c.PRESSROOM_MAX_BODY_BYTES),
      maxAssetBytes: Number(c.PRESSROOM_MAX_ASSET_BYTES),
      /** Bounds on tenant input, checked at the door. */
      limits,
      validationTimeoutMs: Number(c.PRESSROOM_VALIDATION_TIMEOUT_MS),
      allowPrivateS3Endpoints: c.PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS === 'true',
      /** How long an Idempotency-Key is remembered. */
      idempotencyTtlMs: Number(c.PRESSROOM_IDEMPOTENCY_TTL_MS),
    };
  },
});
