import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of a local file link: HMAC-SHA256, hex, over `<key>\n<expires>`. The newline
 * cannot occur in a key (control characters are refused), so no two (key, expires) pairs
 * share a signed text.
 */
export function signKey(secret: string, key: string, expires: number): string {
  return createHmac('sha256', secret).update(`${key}\n${expires}`, 'utf8').digest('hex');
}

/** Constant-time check of a presented signature; any malformed input is simply false. */
export function verifyKeySignature(secret: string, key: string, expires: number, presented: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(presented)) return false;
  const expected = Buffer.from(signKey(secret, key, expires), 'hex');
  return timingSafeEqual(expected, Buffer.from(presented, 'hex'));
}

/** `expires` as it came in a query string: whole unix seconds, or undefined. */
export function parseExpires(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw > 0 ? raw : undefined;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,11}$/.test(raw)) return undefined;
  return Number(raw);
}

/**
 * The signature of a local upload link (PUT): the same HMAC over a text of its own
 * (`PUT\n<key>\n<expires>`), so a download link can never be used to upload and back.
 */
export function signUploadKey(secret: string, key: string, expires: number): string {
  return createHmac('sha256', secret).update(`PUT\n${key}\n${expires}`, 'utf8').digest('hex');
}

export function verifyUploadSignature(secret: string, key: string, expires: number, presented: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(presented)) return false;
  return timingSafeEqual(Buffer.from(signUploadKey(secret, key, expires), 'hex'), Buffer.from(presented, 'hex'));
}
