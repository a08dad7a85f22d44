// The cost of the hop to the renderer host alone: a job-sized message out and a PDF-sized
// Uint8Array back over the same channel the supervisor uses (fork IPC, `advanced` serialization),
// without Chromium, so the figure does not drown in render-time noise. Compare it with a render's
// p50 from `npm run bench` (~90 ms in process at concurrency 1 on the 2-core machine).
//
//   npx tsx bench/ipc-hop.bench.ts [--n 2000] [--bytes 61000]
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '2000' }, bytes: { type: 'string', default: '61000' }, child: { type: 'boolean' } },
});

if (values.child) {
  const pdf = new Uint8Array(Number(values.bytes)).fill(7);
  process.on('message', (m: { id: number }) => process.send?.({ t: 'rendered', id: m.id, bytes: pdf, contentType: 'application/pdf' }));
} else {
  const child = fork(import.meta.filename, ['--child', '--bytes', values.bytes], { serialization: 'advanced', execArgv: process.execArgv });
  const job = { t: 'render', job: { source: { kind: 'html', html: 'x'.repeat(8000) }, output: 'pdf', timeoutMs: 60000 } };
  const roundTrip = (id: number) =>
    new Promise<number>((resolve) => {
      const t = performance.now();
      child.once('message', () => resolve(performance.now() - t));
      child.send({ ...job, id });
    });
  for (let i = 0; i < 100; i++) await roundTrip(i);
  const n = Number(values.n);
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await roundTrip(i));
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(n - 1, Math.floor(p * n))]!.toFixed(3);
  console.log(`IPC round trip, 8 kB job out, ${values.bytes} B file back, n=${n}: p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, p99 ${q(0.99)} ms`);
  child.kill();
}
