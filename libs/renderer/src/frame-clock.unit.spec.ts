import { describe, expect, it } from 'vitest';
import { FrameLine, frameLineOf } from './frame-clock.ts';

describe('FrameLine', () => {
  it('runs one frame at a time, in the order asked, and goes on after one that failed', async () => {
    // Given a line and three frames asked for at once, the second of which fails
    const line = new FrameLine();
    const log: string[] = [];
    const frame =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name} begun`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`${name} done`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      };

    // When they run
    const results = await Promise.allSettled([line.run(frame('a')), line.run(frame('b', true)), line.run(frame('c'))]);

    // Then each began only after the one before it ended, the failure reached its own caller only
    expect(log).toEqual(['a begun', 'a done', 'b begun', 'b done', 'c begun', 'c done']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('tells a frame that holds the line past its limit while another waits, and only then', async () => {
    // Given a line with a 30 ms limit, and a frame that runs until it is told
    const line = new FrameLine(30);
    let release = () => {};
    const told: string[] = [];
    const stuck = line.run(
      () => new Promise<string>((resolve) => (release = () => resolve('stuck ended'))),
      () => {
        told.push('stuck');
        release();
      },
    );

    // When nobody waits, 60 ms pass without a word
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(told).toEqual([]);

    // When another frame asks for the line, the stuck one is told at once (its page then ends it) and the other runs
    const next = line.run(
      async () => 'next ran',
      () => told.push('next'),
    );
    expect(await stuck).toBe('stuck ended');
    expect(await next).toBe('next ran');
    expect(told).toEqual(['stuck']);
  });

  it('is one line per browser', () => {
    const browser = {};
    expect(frameLineOf(browser)).toBe(frameLineOf(browser));
    expect(frameLineOf(browser)).not.toBe(frameLineOf({}));
  });
});
