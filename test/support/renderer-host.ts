import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { ApiClient } from './api-client.ts';
import type { AppProcess } from './service-process.ts';

/** The pids of every renderer host the app started, oldest first (from its 'renderer host started' log lines). */
export function rendererHostPids(app: AppProcess): number[] {
  const pids: number[] = [];
  for (const line of app.output) {
    if (!line.includes('"renderer host started"')) continue;
    try {
      const pid = (JSON.parse(line) as { pid?: unknown }).pid;
      if (typeof pid === 'number') pids.push(pid);
    } catch {
      /* not a log line */
    }
  }
  return pids;
}

/**
 * Plays the OOM killer: SIGKILLs the app's current renderer host every `everyMs` until `done`
 * returns a value (which it then returns). Kills land whenever they land, mid-render or not, as
 * a real kill would; a render that is in the host at every kill ends as RENDER_CRASHED.
 */
export async function killRendererHostUntil<T>(
  app: AppProcess,
  done: () => Promise<T | undefined>,
  opts: { everyMs?: number; timeoutMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    const result = await done();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error('the condition did not hold while the renderer host was being killed');
    const pid = rendererHostPids(app).at(-1);
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone; the next one is starting */
      }
    }
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 1_500));
  }
}

/**
 * Submits an async render that keeps its page busy forever (so it is in the renderer whenever the
 * renderer dies) and kills `app`'s renderer host on every attempt until the render's status is
 * FAILED; `stillUp` runs before each look (the process that must survive the kills). Returns the
 * render's requestId and its final status body.
 */
export async function crashOnEveryAttempt(
  api: ApiClient,
  app: AppProcess,
  stillUp: () => Promise<void>,
): Promise<{ requestId: string; final: Record<string, unknown> }> {
  const accepted = await api.post('/v1/html-to-pdf/async', {
    html: '<p>doomed</p><script>while (true) {}</script>',
    webhook: 'http://127.0.0.1:9/unused',
  });
  expect(accepted.status).toBe(200);
  const requestId = accepted.json.requestId as string;
  const final = await killRendererHostUntil(app, async () => {
    await stillUp();
    const res = await api.get(`/v1/pdf/status/${requestId}`);
    return res.json?.renderStatus === 'FAILED' ? (res.json as Record<string, unknown>) : undefined;
  });
  return { requestId, final };
}

/** The pids of every process below `pid` (children, their children...), from /proc. */
export function descendantPids(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/**
 * Kills the Chromium of the app's current renderer host (every process under the host, by pid),
 * leaving the host itself alive: a browser crash, not a host crash. Returns the pids killed.
 */
export function killChromiumOf(app: AppProcess): number[] {
  const host = rendererHostPids(app).at(-1);
  if (host === undefined) throw new Error(`${app.app} has no renderer host`);
  const pids = descendantPids(host);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  return pids;
}
