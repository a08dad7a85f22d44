/** A command-line option read as a whole number of at least 1; throws naming the option otherwise. */
export function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return n;
}
