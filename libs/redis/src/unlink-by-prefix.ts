import type { Redis } from 'ioredis';

/** Escapes the glob characters of SCAN MATCH, so a prefix matches only itself. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * Deletes every key that starts with `prefix` (SCAN + UNLINK, in batches, never KEYS), and
 * nothing else. Resolves with the number of keys removed. Keys written during the scan may
 * survive it: stop the writers first when that matters.
 */
export async function unlinkByPrefix(redis: Redis, prefix: string): Promise<number> {
  if (prefix.length === 0) throw new Error('unlinkByPrefix refuses an empty prefix: it would empty the database');
  const match = `${escapeGlob(prefix)}*`;
  let cursor = '0';
  let removed = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) removed += await redis.unlink(...keys);
  } while (cursor !== '0');
  return removed;
}
