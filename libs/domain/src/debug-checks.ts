import type { VariableInfo } from './template-variables.ts';

export interface VariableCheck extends VariableInfo {
  /** Whether `data` holds a value there (for a field of array elements: in at least one element). */
  provided: boolean;
}

/**
 * The variable checks of a `debug` render: each variable of the template with whether `data`
 * provides it, and the top-level members of `data` that no variable uses (a typo, often).
 */
export function debugChecks(
  variables: VariableInfo[],
  data: Record<string, unknown>,
): { variables: VariableCheck[]; unusedData: string[] } {
  const used = new Set(variables.map((v) => (v.name.split('.')[0] ?? '').replace(/\[\]$/, '')));
  return {
    variables: variables.map((v) => ({ ...v, provided: provides(data, v.name.split('.')) })),
    unusedData: Object.keys(data).filter((k) => !used.has(k)),
  };
}

function provides(value: unknown, path: string[]): boolean {
  const [head, ...rest] = path;
  if (head === undefined) return value !== undefined && value !== null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const array = head.endsWith('[]');
  const key = array ? head.slice(0, -2) : head;
  if (!Object.hasOwn(value, key)) return false;
  const child = (value as Record<string, unknown>)[key];
  if (!array) return provides(child, rest);
  if (!Array.isArray(child)) return false;
  return rest.length === 0 || child.some((el) => provides(el, rest));
}
