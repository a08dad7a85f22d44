import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { unlinkByPrefix } from '../unlink-by-prefix.ts';

/**
 * A contract suite's space on the real Redis: a fresh key prefix; every open() a new adapter
 * instance with its own connections, as another process would have; dispose closes them and
 * removes the prefix.
 */
export function redisSpace<V extends { close(): Promise<void> }>(url: string, openAdapter: (keyPrefix: string) => V) {
  return async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const opened: V[] = [];
    return {
      async open() {
        const adapter = openAdapter(keyPrefix);
        opened.push(adapter);
        return adapter;
      },
      async dispose() {
        await Promise.all(opened.map((a) => a.close()));
        const admin = new Redis(url);
        await unlinkByPrefix(admin, keyPrefix);
        await admin.quit();
      },
    };
  };
}
