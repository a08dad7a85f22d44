import { describe, expect, it } from 'vitest';
import { displayPrefixOf, generateApiKey, hashApiKey, isPressroomApiKey } from './api-keys.ts';

describe('API key format', () => {
  it('is prs_live_ + 40 base62 + a 6-character checksum that a scanner can verify offline', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^prs_live_[0-9A-Za-z]{46}$/);
      expect(isPressroomApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a look-alike with a wrong checksum, a former prk_ key or a configured key is not a Pressroom key', () => {
    const key = generateApiKey();
    const flipped = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    expect(isPressroomApiKey(flipped)).toBe(false);
    expect(isPressroomApiKey('prk_abc')).toBe(false);
    expect(displayPrefixOf('my-configured-key')).toBeUndefined();
  });

  it('shows only prs_live_ and four characters, and stores a SHA-256', () => {
    const key = generateApiKey();
    expect(displayPrefixOf(key)).toBe(key.slice(0, 13));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });
});
