import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { EventLog } from '@pressroom/core';
import { progress, withReplayProgress } from './output.ts';

/** A terminal, as far as the bar can tell: keeps what was drawn. */
function terminal(isTTY = true) {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    }),
    { isTTY },
  );
  return { stream, text: () => chunks.join('') };
}

/** A log of `records` records in one topic, as the rebuilds read it. */
function fakeLog(records: number) {
  return {
    pinged: 0,
    async readAll(_topics: string[], visit: (r: never) => void | Promise<void>): Promise<number> {
      for (let i = 0; i < records; i++) await visit({ offset: String(i) } as never);
      return records;
    },
    async endOffsets(_topic: string) {
      return [{ partition: 0, end: String(records) }];
    },
    async ping() {
      this.pinged++;
    },
  };
}

describe('ops CLI progress', () => {
  it('draws a bar with count, rate and ETA on a terminal', () => {
    const t = terminal();
    const bar = progress('replaying  ', 4, true, t.stream);
    bar.tick(2);
    bar.tick(2);
    bar.stop();
    expect(t.text()).toMatch(/replaying +\[[^\]]*\] 100% \| 4\/4 events \| \d+ events\/s \| ETA \d+s/);
  });

  it('draws nothing for scripts: --json, or stderr not a terminal', () => {
    for (const [enabled, tty] of [
      [false, true],
      [true, false],
    ] as const) {
      const t = terminal(tty);
      const bar = progress('replaying  ', 4, enabled, t.stream);
      bar.tick(4);
      bar.stop();
      expect(t.text()).toBe('');
    }
  });

  it('every rebuild and replay reading the whole log shows one, out of the topics’ end offsets', async () => {
    const t = terminal();
    const fake = fakeLog(3);
    const log = withReplayProgress(fake as unknown as EventLog, 'replaying  ', true, t.stream);
    const seen: string[] = [];
    const n = await log.readAll(['t'], (r) => {
      seen.push(r.offset);
    });
    expect(n).toBe(3);
    expect(seen).toEqual(['0', '1', '2']);
    expect(t.text()).toContain('3/3 events');
    await log.ping(); // the rest of the log is the log itself
    expect(fake.pinged).toBe(1);
  });
});
