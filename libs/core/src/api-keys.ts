import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Pressroom API keys look like `prs_live_<40 base62 random><6 base62 checksum>` (55 characters):
 * the `prs_live_` prefix lets logs, people and secret scanners recognise one; the checksum (CRC32
 * of everything before it) lets a scanner tell a real key from a look-alike without asking us.
 * 40 base62 characters are 238 random bits, so SHA-256 without salt is safe to store. Keys of
 * the former format (`prk_…`) and operator-configured keys (PRESSROOM_API_KEY) keep working:
 * only the hash is ever looked up.
 */
export const API_KEY_PREFIX = 'prs_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 40;
/** How much of a key its listing shows (`prs_live_` and four random characters). */
const DISPLAY_CHARS = API_KEY_PREFIX.length + 4;

function base62Random(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const byte of randomBytes(n * 2)) {
      if (byte < 248 && out.length < n) out += BASE62[byte % 62]; // 248 = 4 × 62: no modulo bias
    }
  }
  return out;
}

function checksumOf(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const body = `${API_KEY_PREFIX}${base62Random(RANDOM_CHARS)}`;
  return `${body}${checksumOf(body)}`;
}

/** Whether `key` has the shape and checksum of a key Pressroom generates (what a secret scanner checks). */
export function isPressroomApiKey(key: string): boolean {
  const m = new RegExp(`^(${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS}})([0-9A-Za-z]{6})$`).exec(key);
  return m !== null && checksumOf(m[1]!) === m[2];
}

/** What a key's listing shows of it; undefined for keys of another format (only Pressroom keys have a public part). */
export function displayPrefixOf(key: string): string | undefined {
  return isPressroomApiKey(key) ? key.slice(0, DISPLAY_CHARS) : undefined;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
