import { createHash } from 'node:crypto';
import type { PayloadFingerprint, RenderSource } from '@pressroom/schemas';

/**
 * The SHA-256 and size of a request's `source` (HTML, or template content and data; a tool's
 * operation) as JSON: recorded on the outcome, so the log still identifies what was rendered
 * once the payload itself is dropped. One hash pass over the payload, in the worker, beside a
 * render that costs far more.
 */
export function payloadFingerprint(source: RenderSource): PayloadFingerprint {
  const json = Buffer.from(JSON.stringify(source), 'utf8');
  return { sha256: createHash('sha256').update(json).digest('hex'), bytes: json.byteLength };
}
