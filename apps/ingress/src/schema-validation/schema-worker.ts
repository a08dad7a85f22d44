import { parentPort } from 'node:worker_threads';
import { compileProblem, dataProblems } from '@pressroom/domain';
import type { SchemaJob, SchemaJobResult } from './schema-checker.ts';

/**
 * The thread where tenant-declared schemas are compiled and data is checked against them, so
 * a costly schema costs this thread (which the checker ends at its deadline), never the event
 * loop that serves requests.
 */
const port = parentPort;
if (!port) throw new Error('schema-worker runs as a worker thread');
port.on('message', (job: SchemaJob) => {
  let result: SchemaJobResult;
  try {
    result =
      job.op === 'compile'
        ? { id: job.id, compileProblem: compileProblem(job.schema) }
        : { id: job.id, problems: dataProblems(job.schema, job.data) };
  } catch (err) {
    result = { id: job.id, failure: (err as Error).message };
  }
  port.postMessage(result);
});
// Warm up before saying ready: the first check in a fresh thread pays for compiling TypeBox's and
// RE2's code paths (tens of ms idle, several times that on a busy machine, more on Node 22), which
// must not count against the first tenant job's deadline (nor against the one after a replacement).
dataProblems({ type: 'object', properties: { s: { type: 'string', pattern: '^a+$' }, n: { type: 'integer' } } }, { s: 'aa', n: 1 });
port.postMessage({ ready: true });
