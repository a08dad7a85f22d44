import { Worker } from 'node:worker_threads';
import type { DataSchema } from '@pressroom/schemas';
import { PressroomError, validationError, type FieldProblem } from '@pressroom/domain';

export type SchemaJob = { id: number; op: 'compile'; schema: DataSchema } | { id: number; op: 'check'; schema: DataSchema; data: unknown };
export type SchemaJobResult =
  { id: number; compileProblem: string | undefined } | { id: number; problems: FieldProblem[] } | { id: number; failure: string };

/**
 * The worker thread's entry. A worker does not inherit the TypeScript loader of the process
 * that starts it (tsx registers it on the main thread only), so it registers one for itself
 * before it loads the worker module.
 */
const WORKER_BOOTSTRAP = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
  .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./schema-worker.ts', import.meta.url).href)}); });`;

interface Pending {
  job: SchemaJob;
  field: string;
  resolve: (r: SchemaJobResult) => void;
  reject: (e: unknown) => void;
}

/**
 * Compiles tenant-declared data schemas and checks data against them on a worker thread with a
 * deadline. The schemas are vetted first (libs/domain dataSchemaProblems: size, nesting,
 * acyclic `$ref`s, bounded fan-out, RE2 patterns), which bounds their cost in theory; the
 * worker makes that bound hold in practice whatever TypeBox does with them: the event loop only
 * posts a message, and a job that outlives its deadline ends the worker (it is replaced) and is
 * refused with a 400 naming PRESSROOM_VALIDATION_TIMEOUT_MS. Jobs run one at a time.
 */
export function createSchemaChecker(opts: { timeoutMs: number }) {
  const queue: Pending[] = [];
  let worker: Worker | undefined;
  let ready: Promise<Worker> | undefined;
  let running: Pending | undefined;
  let nextId = 1;

  function spawn(): Promise<Worker> {
    if (ready) return ready;
    const starting = new Promise<Worker>((resolve, reject) => {
      // resourceLimits: a schema that makes TypeBox allocate without bound ends this thread only.
      const w = new Worker(WORKER_BOOTSTRAP, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 256 } });
      w.unref(); // never what keeps the process alive
      w.once('message', () => {
        worker = w;
        resolve(w);
      });
      w.on('error', reject); // always listened to: an unhandled 'error' would end the process
      w.once('exit', () => {
        if (worker === w) worker = undefined;
        if (ready === starting) ready = undefined;
        reject(new Error('schema worker exited before it was ready'));
      });
    });
    ready = starting;
    return starting;
  }

  async function pump(): Promise<void> {
    if (running) return;
    const next = queue.shift();
    if (!next) return;
    running = next;
    let w: Worker;
    try {
      w = await spawn();
    } catch (err) {
      running = undefined;
      next.reject(new PressroomError('INTERNAL', 'Schema validation is unavailable.', { cause: err }));
      return void pump();
    }
    const done = (settle: () => void) => {
      clearTimeout(timer);
      w.off('message', onMessage);
      w.off('exit', onExit);
      running = undefined;
      settle();
      void pump();
    };
    const onMessage = (r: SchemaJobResult) => {
      if (r.id === next.job.id) done(() => next.resolve(r));
    };
    const onExit = () =>
      done(() => next.reject(validationError([{ field: next.field, message: 'could not be validated (the check ran out of resources)' }])));
    const timer = setTimeout(() => {
      w.off('exit', onExit);
      worker = undefined;
      ready = undefined;
      void w.terminate();
      done(() =>
        next.reject(
          validationError([
            { field: next.field, message: `took longer than ${opts.timeoutMs} ms to validate (limit PRESSROOM_VALIDATION_TIMEOUT_MS)` },
          ]),
        ),
      );
    }, opts.timeoutMs);
    w.on('message', onMessage);
    w.once('exit', onExit);
    w.postMessage(next.job);
  }

  // Started now, so the first check does not wait for the thread to load its modules.
  void spawn().catch(() => undefined);

  function run(job: SchemaJob, field: string): Promise<SchemaJobResult> {
    return new Promise((resolve, reject) => {
      queue.push({ job, field, resolve, reject });
      void pump();
    });
  }

  return {
    /** Why a vetted schema does not compile (undefined when it does). */
    async compileProblem(schema: DataSchema, field = 'dataSchema'): Promise<string | undefined> {
      const r = await run({ id: nextId++, op: 'compile', schema }, field);
      if ('failure' in r) return r.failure;
      return 'compileProblem' in r ? r.compileProblem : undefined;
    },
    /** One problem per missing or mistyped variable of `data` under a declared schema. */
    async dataProblems(schema: DataSchema, data: unknown): Promise<FieldProblem[]> {
      const r = await run({ id: nextId++, op: 'check', schema, data }, 'data');
      if ('failure' in r) return [{ field: 'dataSchema', message: `is not a usable JSON Schema: ${r.failure}` }];
      return 'problems' in r ? r.problems : [];
    },
    async close(): Promise<void> {
      await worker?.terminate();
    },
  };
}
export type SchemaChecker = ReturnType<typeof createSchemaChecker>;
