import type { FieldProblem } from './errors.ts';

/**
 * The bounds every tenant input is held to before any work is done on it. Each limit has a
 * setting (`setting`) so the 400 that refuses an input names what to change, and the walk that
 * measures an input is iterative and stops at the first bound it crosses: measuring can neither
 * overflow the stack nor take longer than the bound it enforces.
 */
export interface DoorLimits {
  /** Nesting of any JSON request body (a guard against stack-deep values anywhere). */
  jsonDepth: number;
  /** Values (members and elements) in any JSON request body: bounds the cost of parsing it. */
  jsonValues: number;
  dataDepth: number;
  /** Object members plus array elements, counted over the whole `data` value. */
  dataKeys: number;
  /** `data` as JSON, in UTF-16 code units (close to bytes for the usual text). */
  dataBytes: number;
  /** content + header + footer of one template. */
  templateBytes: number;
  /** The code inside Eta tags of one template (what variable inference reads). */
  templateCodeBytes: number;
  schemaBytes: number;
  /** Nesting of a `dataSchema`, counted again along every `$ref` it follows. */
  schemaDepth: number;
  /** Values of a `dataSchema` once every `$ref` is followed (fan-out and chains). */
  schemaNodes: number;
}

export const DEFAULT_DOOR_LIMITS: DoorLimits = {
  jsonDepth: 100,
  jsonValues: 20_000,
  dataDepth: 32,
  dataKeys: 10_000,
  dataBytes: 1024 * 1024,
  templateBytes: 256 * 1024,
  templateCodeBytes: 64 * 1024,
  schemaBytes: 64 * 1024,
  schemaDepth: 64,
  schemaNodes: 10_000,
};

/** The configuration setting behind each limit, named in the message that refuses an input. */
export const DOOR_LIMIT_SETTINGS: Record<keyof DoorLimits, string> = {
  jsonDepth: 'PRESSROOM_MAX_JSON_DEPTH',
  jsonValues: 'PRESSROOM_MAX_JSON_VALUES',
  dataDepth: 'PRESSROOM_MAX_DATA_DEPTH',
  dataKeys: 'PRESSROOM_MAX_DATA_KEYS',
  dataBytes: 'PRESSROOM_MAX_DATA_BYTES',
  templateBytes: 'PRESSROOM_MAX_TEMPLATE_BYTES',
  templateCodeBytes: 'PRESSROOM_MAX_TEMPLATE_CODE_BYTES',
  schemaBytes: 'PRESSROOM_MAX_SCHEMA_BYTES',
  schemaDepth: 'PRESSROOM_MAX_SCHEMA_DEPTH',
  schemaNodes: 'PRESSROOM_MAX_SCHEMA_NODES',
};

export function limitProblem(field: string, what: string, limit: keyof DoorLimits, value: number): FieldProblem {
  return { field, message: `${what} ${value} (limit ${DOOR_LIMIT_SETTINGS[limit]})` };
}

export interface JsonMeasure {
  depth: number;
  keys: number;
  bytes: number;
  /** Which bound stopped the walk, when one did (the other figures are then partial). */
  exceeded?: 'depth' | 'keys' | 'bytes';
}

/**
 * Depth, member count and approximate JSON size of a parsed JSON value, in one iterative pass
 * that stops as soon as a bound is crossed. A scalar is depth 0, `{}` or `[]` depth 1.
 */
export function measureJson(value: unknown, bounds: { depth: number; keys?: number; bytes?: number }): JsonMeasure {
  const maxKeys = bounds.keys ?? Infinity;
  const maxBytes = bounds.bytes ?? Infinity;
  let depth = 0;
  let keys = 0;
  let bytes = 0;
  const result = (exceeded?: JsonMeasure['exceeded']): JsonMeasure => ({ depth, keys, bytes, ...(exceeded ? { exceeded } : {}) });
  const scalarBytes = (v: unknown) => (typeof v === 'string' ? v.length + 2 : 5);
  if (typeof value !== 'object' || value === null) {
    bytes = scalarBytes(value);
    return bytes > maxBytes ? result('bytes') : result();
  }
  // Two parallel stacks of containers only (scalars are counted where they are met): the
  // walk allocates nothing per value, so it costs little more than reading the value.
  const containers: object[] = [value];
  const depths: number[] = [1];
  while (containers.length) {
    const v = containers.pop() as object;
    const d = depths.pop() as number;
    if (d > depth) depth = d;
    if (d > bounds.depth) return result('depth');
    bytes += 2;
    if (Array.isArray(v)) {
      keys += v.length;
      if (keys > maxKeys) return result('keys');
      bytes += v.length;
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item === 'object' && item !== null) {
          containers.push(item);
          depths.push(d + 1);
        } else bytes += scalarBytes(item);
      }
    } else {
      const names = Object.keys(v);
      keys += names.length;
      if (keys > maxKeys) return result('keys');
      for (const name of names) {
        const item: unknown = (v as Record<string, unknown>)[name];
        bytes += name.length + 4;
        if (typeof item === 'object' && item !== null) {
          containers.push(item);
          depths.push(d + 1);
        } else bytes += scalarBytes(item);
      }
    }
    if (bytes > maxBytes) return result('bytes');
  }
  return result();
}

/**
 * Nesting and value count of a JSON text, read before it is parsed: parsing costs time in the
 * number of values (a body of 100,000 keys takes longer to parse than the event loop may be
 * held), so a body is refused on this reading first. One forward pass; strings are skipped with
 * indexOf. It does not validate the text: JSON.parse does, afterwards, on what passed.
 */
export function scanJsonText(
  text: string,
  bounds: { depth: number; values: number },
): { depth: number; values: number; exceeded?: 'depth' | 'values' } {
  let depth = 0;
  let maxDepth = 0;
  let values = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return { depth: maxDepth, values };
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      values++;
      if (depth > maxDepth) maxDepth = depth;
      if (depth > bounds.depth) return { depth: maxDepth, values, exceeded: 'depth' };
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c) {
      values++;
    }
    if (values > bounds.values) return { depth: maxDepth, values, exceeded: 'values' };
  }
  return { depth: maxDepth, values };
}

/** Why a JSON request body is refused before it is parsed: its nesting or its number of values. */
export function jsonTextProblems(text: string, limits: Pick<DoorLimits, 'jsonDepth' | 'jsonValues'>): FieldProblem[] {
  const m = scanJsonText(text, { depth: limits.jsonDepth, values: limits.jsonValues });
  if (m.exceeded === 'depth') return [limitProblem('(body)', 'is nested deeper than', 'jsonDepth', limits.jsonDepth)];
  if (m.exceeded === 'values') return [limitProblem('(body)', 'holds more values than', 'jsonValues', limits.jsonValues)];
  return [];
}

/** Why a render's `data` is too big to validate, store and render: depth, member count, size. */
export function dataLimitProblems(
  data: unknown,
  limits: Pick<DoorLimits, 'dataDepth' | 'dataKeys' | 'dataBytes'>,
  field = 'data',
): FieldProblem[] {
  const m = measureJson(data, { depth: limits.dataDepth, keys: limits.dataKeys, bytes: limits.dataBytes });
  if (m.exceeded === 'depth') return [limitProblem(field, 'is nested deeper than', 'dataDepth', limits.dataDepth)];
  if (m.exceeded === 'keys') return [limitProblem(field, 'has more members than', 'dataKeys', limits.dataKeys)];
  if (m.exceeded === 'bytes') return [limitProblem(field, 'is larger (as JSON) than', 'dataBytes', limits.dataBytes)];
  return [];
}

/** Why a template's sources are too big: their total length. */
export function templateSourceProblems(
  sources: { content?: string; header?: string; footer?: string },
  limits: Pick<DoorLimits, 'templateBytes'>,
): FieldProblem[] {
  const total = (sources.content?.length ?? 0) + (sources.header?.length ?? 0) + (sources.footer?.length ?? 0);
  return total > limits.templateBytes
    ? [limitProblem('content', 'with header and footer is longer than', 'templateBytes', limits.templateBytes)]
    : [];
}
