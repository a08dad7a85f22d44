// The worker thread's entry: a worker does not inherit the TypeScript loader of the process
// that starts it (tsx registers it on the main thread only), so it registers one for itself.
import { register } from 'tsx/esm/api';

register();
await import('./schema-worker.ts');
