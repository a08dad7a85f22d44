import { createHash, randomBytes } from 'node:crypto';

/** Keys look like `prk_<43 chars>`: 256 random bits, so SHA-256 without salt is safe to store. */
export function generateApiKey(): string {
  return `prk_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
