/**
 * Infers the JSON Schema of a template's `data` from its Eta sources (body, header, footer).
 *
 * What counts as a variable: every `it.a.b` chain inside an Eta tag (`<% %>`, `<%= %>`,
 * `<%~ %>`). A chain followed by `.forEach(`, `.map(`, `.filter(`… or iterated by
 * `for (const x of it.list)` is an array; its loop variable's own chains (`x.name`) describe
 * the elements. A chain that continues (`it.a.b`) makes `it.a` an object. A chain that is only
 * ever tested (`if (it.x)`, `it.x ?`, `it.x &&`, `it.x ||`, `it.x ??`, `typeof it.x`,
 * `it.x?.y`, `!it.x`) is optional; every other variable is required. Leaves accept any type.
 * It is a heuristic on purpose (no JavaScript parser runs on tenant code here): a template
 * that needs more declares `dataSchema`.
 */

import type { FieldProblem } from './errors.ts';

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  [k: string]: unknown;
}

interface Node {
  kind: 'any' | 'object' | 'array';
  required: boolean;
  props: Map<string, Node>;
  items?: Node;
}

const ARRAY_METHODS = new Set(['forEach', 'map', 'filter', 'reduce', 'some', 'every', 'find', 'findIndex', 'flatMap', 'join', 'slice']);
/** Members that say nothing about the data (`it.name.toUpperCase()` is still just `it.name`). */
/**
 * Names that are never data the caller sends: `$…` is supplied by the renderer (`$page` and
 * `$pages` in headers and footers), and the members every object inherits are not variables.
 */
const NOT_DATA = new Set([
  'constructor',
  '__proto__',
  'prototype',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'valueOf',
]);
const isNotData = (name: string) => name.startsWith('$') || NOT_DATA.has(name);

const STOP_MEMBERS = new Set([
  'length',
  'toString',
  'toFixed',
  'toUpperCase',
  'toLowerCase',
  'trim',
  'replace',
  'split',
  'includes',
  'indexOf',
  'padStart',
  'padEnd',
  'toLocaleString',
  'valueOf',
]);
const IDENT = '[A-Za-z_$][\\w$]*';
/** The order of localeCompare, without building a collator per comparison (slow with thousands of names). */
const byName = new Intl.Collator();

/**
 * Built once: V8 runs a RegExp in its interpreter until it has compiled it, so fresh ones per
 * call are slow. Each is linear in the code: a chain is matched only where one starts (the
 * lookbehind), loop parameters are identifiers, and the heads of chains (`it`, loop aliases)
 * are looked up in a map rather than spelled out in the pattern.
 */
const LOOP_RE = new RegExp(
  `(?<![\\w$.])(${IDENT}(?:\\.${IDENT})*)\\s*\\.\\s*(?:${[...ARRAY_METHODS].join('|')})\\s*\\(\\s*(?:function\\s*\\(\\s*(${IDENT})|\\(\\s*(${IDENT})(?:\\s*,\\s*${IDENT})*\\s*\\)\\s*=>|(${IDENT})\\s*=>)`,
  'g',
);
const FOR_OF_RE = new RegExp(`(?<![\\w$])for\\s*\\(\\s*(?:const|let|var)\\s+(${IDENT})\\s+of\\s+(${IDENT}(?:\\.${IDENT})*)`, 'g');
const CHAIN_RE = new RegExp(`(?<![\\w$.])(${IDENT})((?:\\s*\\??\\.\\s*${IDENT})+)(\\s*\\(?)`, 'g');
const MEMBER_RE = new RegExp(`(\\??)\\.\\s*(${IDENT})`, 'g');
const TESTED_BEFORE_RE = /(?:if\s*\(\s*|typeof\s+|!\s*)$/;
const TESTED_AFTER_RE = /^\s*(?:\?\?|\|\||&&|\?(?!\.))/;
const OPTIONAL_AFTER_RE = /^\s*\?\./;

/**
 * The JavaScript inside the Eta tags of one source; text outside tags is not code. One forward
 * scan with indexOf: an unclosed `<%` ends the code (a lazy regex would rescan the rest of the
 * source from every `<%`, quadratic in the source).
 */
export function etaCode(source: string): string {
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    const open = source.indexOf('<%', at);
    if (open < 0) break;
    const close = source.indexOf('%>', open + 2);
    if (close < 0) break;
    parts.push(
      source
        .slice(open + 2, close)
        .replace(/^[=~_-]/, '')
        .replace(/[_-]$/, ''),
    );
    at = close + 2;
  }
  return parts.join(';\n');
}

/**
 * Replaces string and template literals with `""` so `'it.x'` in a string is not a variable.
 * One forward scan: an unterminated literal runs to the end (a regex would retry it from every
 * quote, quadratic in the code).
 */
function stripStrings(code: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (c !== "'" && c !== '"' && c !== '`') {
      i++;
      continue;
    }
    out += code.slice(from, i) + '""';
    i++;
    while (i < code.length && code[i] !== c) i += code[i] === '\\' ? 2 : 1;
    i++;
    from = i;
  }
  return from < code.length ? out + code.slice(from) : out;
}

function node(): Node {
  return { kind: 'any', required: false, props: new Map() };
}

export interface InferredVariables {
  schema: JsonSchema;
  /** Dotted paths; `items[]` is the array, `items[].name` a field of its elements. */
  names: string[];
  /** Variables nested deeper than `maxDepth` (cut at that depth in the schema): a write refuses them. */
  problems: FieldProblem[];
}

/** Deepest variable path inferred by default (`it.a.b…`, each `[]` counting as one level). */
export const DEFAULT_MAX_VARIABLE_DEPTH = 32;
/** Most code (inside Eta tags, all sources together) inferred by default; see PRESSROOM_MAX_TEMPLATE_CODE_BYTES. */
export const DEFAULT_MAX_TEMPLATE_CODE = 64 * 1024;

/** The variables of a template's sources, in time linear in their length (see the patterns above). */
export function inferDataSchema(sources: (string | undefined)[], opts: { maxDepth?: number; maxCode?: number } = {}): InferredVariables {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_VARIABLE_DEPTH;
  const maxCode = opts.maxCode ?? DEFAULT_MAX_TEMPLATE_CODE;
  const tagged = sources
    .filter((s): s is string => !!s)
    .map(etaCode)
    .join(';\n');
  // Inference is linear, but in the code, not in the markup: the code is what is bounded.
  if (tagged.length > maxCode) {
    return {
      schema: { type: 'object', properties: {} },
      names: [],
      problems: [
        {
          field: 'content',
          message: `has more code inside <% %> tags than ${maxCode} characters (limit PRESSROOM_MAX_TEMPLATE_CODE_BYTES)`,
        },
      ],
    };
  }
  const code = stripStrings(tagged);
  const root = node();
  root.kind = 'object';
  root.required = true;
  let tooDeep = false;
  const bounded = (path: string[]): string[] => {
    if (path.length <= maxDepth) return path;
    tooDeep = true;
    return path.slice(0, maxDepth);
  };

  // Loop aliases: name → the path of the array it walks (resolved before it is used).
  const aliases = new Map<string, string[]>();
  const iterated: string[][] = [];
  const resolve = (chain: string): string[] | undefined => {
    const [head, ...rest] = chain.split('.');
    if (head === 'it') return bounded(rest);
    const base = head === undefined ? undefined : aliases.get(head);
    return base ? bounded([...base, ...rest]) : undefined;
  };
  // Two passes, so an alias of an alias (nested loops) resolves whatever the order in the source.
  for (let pass = 0; pass < 2; pass++) {
    for (const m of code.matchAll(LOOP_RE)) {
      const arrayPath = resolve(m[1] ?? '');
      const alias = m[2] ?? m[3] ?? m[4];
      if (arrayPath && alias) aliases.set(alias, bounded([...arrayPath, '[]']));
    }
    for (const m of code.matchAll(FOR_OF_RE)) {
      const arrayPath = resolve(m[2] ?? '');
      if (arrayPath && m[1]) aliases.set(m[1], bounded([...arrayPath, '[]']));
      if (arrayPath && pass === 1) iterated.push(arrayPath);
    }
  }
  for (const arrayPath of iterated) addPath(root, arrayPath, 'array', false, new Set(), 0);

  const guardedPaths: string[][] = [];
  for (const m of code.matchAll(CHAIN_RE)) {
    const head = m[1] ?? '';
    const base = head === 'it' ? [] : aliases.get(head);
    if (!base) continue;
    const raw = m[2] ?? '';
    // Members past the depth limit are never used: stop reading them there.
    const members: { optional: boolean; name: string }[] = [];
    MEMBER_RE.lastIndex = 0;
    for (let x = MEMBER_RE.exec(raw); x && members.length <= maxDepth + 1; x = MEMBER_RE.exec(raw)) {
      members.push({ optional: x[1] === '?', name: x[2] ?? '' });
    }
    const calls = (m[3] ?? '').includes('(');
    const path = [...base];
    let kindOfLast: 'any' | 'array' = 'any';
    const optionalAt = new Set<number>();
    for (const [i, member] of members.entries()) {
      const isLast = i === members.length - 1;
      if (ARRAY_METHODS.has(member.name) && (isLast ? calls : true)) {
        kindOfLast = 'array';
        break;
      }
      if (STOP_MEMBERS.has(member.name) || isNotData(member.name) || (isLast && calls)) break;
      if (path.length >= maxDepth) {
        tooDeep = true;
        break;
      }
      if (member.optional) optionalAt.add(path.length);
      path.push(member.name);
    }
    if (path.length === base.length && kindOfLast !== 'array') continue;
    const before = code.slice(Math.max(0, (m.index ?? 0) - 12), m.index ?? 0);
    const after = code.slice((m.index ?? 0) + m[0].length - (m[3]?.length ?? 0), (m.index ?? 0) + m[0].length + 4);
    const tested = TESTED_BEFORE_RE.test(before) || TESTED_AFTER_RE.test(after) || OPTIONAL_AFTER_RE.test(after);
    addPath(root, path, kindOfLast, tested, optionalAt, base.length);
    // A variable the template tests for anywhere is one it can do without.
    if (tested) guardedPaths.push(path);
    for (const at of optionalAt) guardedPaths.push(path.slice(0, at));
  }
  for (const guarded of guardedPaths) {
    const n = nodeAt(root, guarded);
    if (n) n.required = false;
  }
  const names: string[] = [];
  collectNames(root, '', names);
  const problems: FieldProblem[] = tooDeep
    ? [{ field: 'content', message: `uses a variable nested deeper than ${maxDepth} levels (limit PRESSROOM_MAX_DATA_DEPTH)` }]
    : [];
  return { schema: toSchema(root), names, problems };
}

function addPath(
  root: Node,
  path: string[],
  leafKind: 'any' | 'array',
  tested: boolean,
  optionalAt: Set<number>,
  aliasDepth: number,
): void {
  let cur = root;
  for (const [i, seg] of path.entries()) {
    const isLast = i === path.length - 1;
    if (seg === '[]') {
      cur.kind = 'array';
      cur.items ??= { ...node(), required: true };
      cur = cur.items;
      continue;
    }
    if (cur.kind === 'any') cur.kind = 'object';
    let next = cur.props.get(seg);
    if (!next) {
      next = node();
      cur.props.set(seg, next);
    }
    // A segment is required when some use reaches it unguarded; a loop alias's own segments
    // are judged by their use inside the loop, the path to the array by the loop itself.
    const guarded = optionalAt.has(i + 1) || (isLast && tested);
    if (!guarded || i < aliasDepth - 1) next.required = true;
    if (isLast && leafKind === 'array') {
      next.kind = 'array';
      next.items ??= { ...node(), required: true };
    }
    cur = next;
  }
}

function nodeAt(root: Node, path: string[]): Node | undefined {
  let cur: Node | undefined = root;
  for (const seg of path) cur = seg === '[]' ? cur?.items : cur?.props.get(seg);
  return cur === root ? undefined : cur;
}

function toSchema(n: Node): JsonSchema {
  if (n.kind === 'array') return { type: 'array', items: n.items ? toSchema(n.items) : {} };
  if (n.kind === 'object') {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [k, child] of [...n.props].sort(([a], [b]) => byName.compare(a, b))) {
      properties[k] = toSchema(child);
      if (child.required) required.push(k);
    }
    return { type: 'object', properties, ...(required.length ? { required } : {}) };
  }
  return {};
}

function collectNames(n: Node, prefix: string, out: string[]): void {
  for (const [k, child] of [...n.props].sort(([a], [b]) => byName.compare(a, b))) {
    const name = prefix ? `${prefix}.${k}` : k;
    const shown = child.kind === 'array' ? `${name}[]` : name;
    out.push(shown);
    if (child.kind === 'object') collectNames(child, name, out);
    if (child.kind === 'array' && child.items?.kind === 'object') collectNames(child.items, `${name}[]`, out);
  }
}

export interface VariableInfo {
  /** Dotted path; `items[]` is an array, `items[].name` a field of its elements. */
  name: string;
  /** The JSON type the schema asks for, or `any`. */
  type: string;
  required: boolean;
}

/** Lists the variables a data schema (declared or inferred) describes, depth first. */
export function describeVariables(schema: JsonSchema): VariableInfo[] {
  const out: VariableInfo[] = [];
  const walk = (s: JsonSchema, prefix: string) => {
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    for (const [key, child] of Object.entries(s.properties ?? {}).sort(([a], [b]) => byName.compare(a, b))) {
      const name = prefix ? `${prefix}.${key}` : key;
      const t: unknown = child.type;
      const type = typeof t === 'string' ? t : Array.isArray(t) ? t.join('|') : 'any';
      out.push({ name: type === 'array' ? `${name}[]` : name, type, required: required.has(key) });
      if (child.properties) walk(child, name);
      if (type === 'array' && child.items?.properties) walk(child.items, `${name}[]`);
    }
  };
  walk(schema, '');
  return out;
}
