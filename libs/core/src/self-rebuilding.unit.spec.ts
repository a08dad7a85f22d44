import { describe, expect, it } from 'vitest';
import { healingRead, isEmpty, rebuilder } from './self-rebuilding.ts';

/** A view whose data and marker live in memory; `rebuild` counts its runs and can be told to fail once. */
function fakeView(opts: { failFirst?: boolean } = {}) {
  let built = false;
  let data: string[] = [];
  let runs = 0;
  let fail = opts.failFirst ?? false;
  const view = { isBuilt: () => Promise.resolve(built) };
  const rebuild = async () => {
    runs++;
    await new Promise((r) => setTimeout(r, 5));
    if (fail) {
      fail = false;
      throw new Error('log unreadable');
    }
    data = ['a'];
    built = true;
  };
  return {
    view,
    rebuild,
    read: (name: string) => Promise.resolve(data.find((d) => d === name)),
    list: () => Promise.resolve(data),
    runs: () => runs,
  };
}

describe('the self-rebuilding view pattern', () => {
  it('a miss on a view not built rebuilds it once, however many readers miss at the same time, then answers again', async () => {
    const v = fakeView();
    const get = healingRead(rebuilder(v.view, v.rebuild), v.read);
    expect(await Promise.all([get('a'), get('a'), get('a')])).toEqual(['a', 'a', 'a']);
    expect(v.runs()).toBe(1);
  });

  it('a miss on a built view stands: no rebuild', async () => {
    const v = fakeView();
    const ensureBuilt = rebuilder(v.view, v.rebuild);
    await ensureBuilt();
    expect(await healingRead(ensureBuilt, v.read)('b')).toBeUndefined();
    expect(await healingRead(ensureBuilt, v.list, isEmpty)()).toEqual(['a']);
    expect(v.runs()).toBe(1);
  });

  it("a miss read before a rebuild finished (another process's, after a FLUSHALL) is read again once the marker says built", async () => {
    // The first read misses; before the marker check, another process's replay writes the data
    // and then its marker. The check finds the view built (no rebuild here), so the miss was
    // stale: answering it was a 404 for a request the view held.
    const v = fakeView();
    let raced = false;
    const racingRead = async (name: string) => {
      const found = await v.read(name);
      if (!raced) {
        raced = true;
        await v.rebuild(); // the other process's replay: data first, then the marker
      }
      return found;
    };
    const get = healingRead(
      rebuilder(v.view, () => Promise.reject(new Error('no rebuild should run here'))),
      racingRead,
    );
    expect(await get('a')).toBe('a');
  });

  it('a failed rebuild fails its callers (as rebuildFailed says) and the next miss tries again', async () => {
    const v = fakeView({ failFirst: true });
    const get = healingRead(
      rebuilder(v.view, v.rebuild, (err) => new Error(`unavailable: ${(err as Error).message}`)),
      v.read,
    );
    await expect(get('a')).rejects.toThrow('unavailable: log unreadable');
    expect(await get('a')).toBe('a');
    expect(v.runs()).toBe(2);
  });
});
