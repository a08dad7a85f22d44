import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisPayloadCopies } from './redis-payload-copies.ts';
import { unlinkByPrefix } from './unlink-by-prefix.ts';

const url = inject('REDIS_URL');
const keyPrefix = `test:${randomUUID()}:`;
// Two instances, two connections: the ingress that copies, the render worker that takes.
const ingress = createRedisPayloadCopies({ url, keyPrefix, maxBytes: 1024 });
const worker = createRedisPayloadCopies({ url, keyPrefix, maxBytes: 1024 });
const shortLived = createRedisPayloadCopies({ url, keyPrefix, ttlMs: 50 });

afterAll(async () => {
  await Promise.all([ingress.close(), worker.close(), shortLived.close()]);
  const admin = new Redis(url);
  await unlinkByPrefix(admin, keyPrefix);
  await admin.quit();
});

const bytesOf = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('redis payload copies', () => {
  it('hands the bytes from one process to another once: the second take finds nothing', async () => {
    const payload = bytesOf('{"kind":"html","html":"<p>é</p>"}');
    expect(await ingress.put('tenant-a/r1.payload.json', payload)).toBe(true);
    expect(Buffer.from((await worker.take('tenant-a/r1.payload.json'))!).toString('utf8')).toBe('{"kind":"html","html":"<p>é</p>"}');
    expect(await worker.take('tenant-a/r1.payload.json')).toBeUndefined();
  });

  it('removes copies, so a removed payload is never taken; removing what is missing succeeds', async () => {
    await ingress.put('tenant-a/r2.payload.json', bytesOf('{}'));
    await ingress.remove(['tenant-a/r2.payload.json', 'tenant-a/r2.pdf', 'tenant-a/never.payload.json']);
    expect(await worker.take('tenant-a/r2.payload.json')).toBeUndefined();
    await ingress.remove([]);
  });

  it('keeps no copy of a payload larger than its limit (and says so), and none past its time to live', async () => {
    expect(await ingress.put('tenant-a/big.payload.json', new Uint8Array(1025))).toBe(false);
    expect(await worker.take('tenant-a/big.payload.json')).toBeUndefined();
    await shortLived.put('tenant-a/r3.payload.json', bytesOf('{}'));
    await new Promise((r) => setTimeout(r, 120));
    expect(await worker.take('tenant-a/r3.payload.json')).toBeUndefined();
  });

  it('keeps binary bytes exactly', async () => {
    const bytes = new Uint8Array([0, 255, 1, 254, 0x80, 0x7f]);
    await ingress.put('tenant-b/r4.payload.json', bytes.subarray(1, 5));
    expect([...(await worker.take('tenant-b/r4.payload.json'))!]).toEqual([255, 1, 254, 0x80]);
  });
});
