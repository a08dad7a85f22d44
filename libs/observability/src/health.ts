/** A named dependency check for /readyz; it rejects when the dependency is unreachable. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export async function runReadiness(checks: ReadinessCheck[], timeoutMs = 2000): Promise<{ ok: boolean; checks: Record<string, string> }> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(c.check(), timeoutMs);
        return [c.name, 'ok'] as const;
      } catch (e) {
        return [c.name, (e as Error).message || 'failed'] as const;
      }
    }),
  );
  return { ok: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
