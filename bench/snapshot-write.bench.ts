// What one status view snapshot costs to write with a long history: a whole base (every entry,
// merged with what changed) against a delta (only the entries changed since the base), in
// alternating rounds on the same data dir. Each round first adds --changes renders to the log
// and restores the view (snapshot + that tail), as a start does, then times one save.
//
//   npx tsx bench/snapshot-write.bench.ts --data-dir /tmp/startup-1m   # a dir bench/startup.bench.ts wrote
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { silentLogger } from '@pressroom/core';
import { loadConfig, openParts } from '@pressroom/runtime';
import { writePastRenders } from '@pressroom/testing';

const { values: flags } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    changes: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '4' },
  },
});
const dataDir = flags['data-dir'];
if (!dataDir) throw new Error('--data-dir: a data dir with a history and its snapshot (bench/startup.bench.ts --data-dir)');
const config = loadConfig({ PRESSROOM_PROFILE: 'embedded', PRESSROOM_DATA_DIR: dataDir });
const size = (name: string) =>
  stat(join(dataDir, 'snapshots', name)).then(
    (s) => `${(s.size / 1e6).toFixed(1)} MB`,
    () => 'none',
  );

for (let round = 0; round < Number(flags.rounds); round++) {
  const whole = round % 2 === 0;
  const rt = await openParts(config, 'bench', ['log', 'view', 'templates'], { logger: silentLogger });
  const status = rt.snapshots?.get('status');
  if (!status) throw new Error('no status snapshot in this profile');
  await writePastRenders(rt.log, rt.topics, Number(flags.changes));
  const { replayed, fromSnapshot } = await status.restore();
  const started = performance.now();
  await status.save({ whole });
  const ms = performance.now() - started;
  console.log(
    `${whole ? 'whole base' : 'delta     '}: ${(ms / 1000).toFixed(2)} s (restored ${fromSnapshot ? 'from the snapshot' : 'from the whole log'}, ${replayed} records replayed; ` +
      `base ${await size('status.snapshot')}, delta ${await size('status.delta.snapshot')})`,
  );
  await status.close();
  await rt.close();
}
