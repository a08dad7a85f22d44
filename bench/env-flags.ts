/** `--env NAME=value` flags (repeatable): a setting of the service under test each. */
export function envFlags(list: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    list.map((kv) => {
      const at = kv.indexOf('=');
      if (at < 1) throw new Error(`--env NAME=value, got ${kv}`);
      return [kv.slice(0, at), kv.slice(at + 1)];
    }),
  );
}
