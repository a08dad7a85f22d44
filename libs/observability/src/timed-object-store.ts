import type { ObjectStore } from '@pressroom/core';
import type { Metrics } from './metrics.ts';

/** The same store, each call timed into `pressroom_storage_operation_duration_seconds` (operation, outcome). */
export function timedObjectStore(store: ObjectStore, metrics: Pick<Metrics, 'storageSeconds'>): ObjectStore {
  const timed =
    <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const end = metrics.storageSeconds.startTimer({ operation });
      try {
        const result = await call(...args);
        end({ outcome: 'ok' });
        return result;
      } catch (err) {
        end({ outcome: 'error' });
        throw err;
      }
    };
  return {
    put: timed('put', (key: string, bytes: Uint8Array, contentType: string) => store.put(key, bytes, contentType)),
    get: timed('get', (key: string) => store.get(key)),
    delete: timed('delete', (key: string) => store.delete(key)),
    signedGetUrl: timed('sign', (key: string, expiresInSeconds: number) => store.signedGetUrl(key, expiresInSeconds)),
    ping: timed('ping', () => store.ping()),
    // The optional capabilities pass through when the store has them (the PDF tools use them).
    ...(store.keyOfSignedUrl ? { keyOfSignedUrl: store.keyOfSignedUrl.bind(store) } : {}),
    ...(store.signedPutUrl ? { signedPutUrl: timed('sign', store.signedPutUrl.bind(store)) } : {}),
    ...(store.copy ? { copy: timed('copy', store.copy.bind(store)) } : {}),
    ...(store.size ? { size: timed('size', store.size.bind(store)) } : {}),
    ...(store.list ? { list: store.list.bind(store) } : {}),
  };
}
