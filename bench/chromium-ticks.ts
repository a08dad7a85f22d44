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
    const stat = procStat(Number(name));
    if (stat) procs.set(Number(name), { ppid: stat.ppid, ticks: stat.ticks, chrome: /chrom|headless/i.test(stat.comm) });
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

/**
 * A process's name, parent and CPU ticks (user + system, with its reaped children's cutime and
 * cstime) from /proc/<pid>/stat; undefined when it is gone. The name may hold spaces and
 * parentheses: the fields start after the last ')'.
 */
export function procStat(pid: number): { comm: string; ppid: number; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      ppid: Number(f[1]),
      ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
    };
  } catch {
    return undefined; // gone
  }
}
