import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU ticks of every Chromium process under this one (any depth, read from /proc), with those of
 * its exited (reaped) children, which /proc/<pid>/stat counts in cutime/cstime. `seen`, when
 * given, collects the pids counted (a bench that wants to know how many processes a variant spawned).
 */
export function chromiumTicks(seen?: Set<number>): number {
  const procs = new Map<number, { ppid: number; ticks: number; chrome: boolean }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(name), {
        ppid: Number(f[1]),
        ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
        chrome: /chrom|headless/i.test(comm),
      });
    } catch {
      /* gone */
    }
  }
  let sum = 0;
  for (const [pid, p] of procs) {
    if (!p.chrome) continue;
    let up = p.ppid;
    while (up > 1 && up !== process.pid) up = procs.get(up)?.ppid ?? 0;
    if (up === process.pid || pid === process.pid) {
      sum += p.ticks;
      seen?.add(pid);
    }
  }
  return sum;
}
