import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { EventSchemas, type EventType } from './events.ts';

/**
 * The schema-evolution gate (README, "Schema evolution"): within one event version, a new build
 * may only add. Every schema released as `vN` (a snapshot in schemas/released/vN/) must still
 * accept everything it accepted: no property removed or retyped, nothing newly required, no
 * value dropped from a closed list, objects stay closed. A change that needs more is a new
 * version (`vN+1`, its own registry subject), read next to the old one.
 */
const released = join(import.meta.dirname, '..', 'released');
const examples = join(import.meta.dirname, '..', 'examples');

type Schema = Record<string, unknown>;

/** Problems that make `next` refuse data that `prev` accepted (empty when it only adds). */
export function narrowings(prev: Schema, next: Schema, path = '#'): string[] {
  const problems: string[] = [];
  for (const key of ['type', 'const', 'pattern', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'maxItems'] as const) {
    if (prev[key] !== undefined && JSON.stringify(prev[key]) !== JSON.stringify(next[key])) problems.push(`${path}: ${key} changed`);
  }
  if (prev.properties) {
    const pp = prev.properties as Record<string, Schema>;
    const np = (next.properties ?? {}) as Record<string, Schema>;
    for (const [name, schema] of Object.entries(pp)) {
      if (!np[name]) problems.push(`${path}/${name}: removed`);
      else problems.push(...narrowings(schema, np[name], `${path}/${name}`));
    }
    const wasRequired = new Set((prev.required ?? []) as string[]);
    for (const name of (next.required ?? []) as string[]) if (!wasRequired.has(name)) problems.push(`${path}/${name}: newly required`);
    if (prev.additionalProperties === false && next.additionalProperties !== false) problems.push(`${path}: no longer closed`);
  }
  if (prev.anyOf) {
    const pa = prev.anyOf as Schema[];
    const na = (next.anyOf ?? []) as Schema[];
    if (pa.every((s) => 'const' in s)) {
      const kept = new Set(na.map((s) => JSON.stringify(s.const)));
      for (const s of pa) if (!kept.has(JSON.stringify(s.const))) problems.push(`${path}: value ${JSON.stringify(s.const)} dropped`);
    } else {
      pa.forEach((s, i) => {
        const n = na[i];
        if (!n) problems.push(`${path}/anyOf/${i}: removed`);
        else problems.push(...narrowings(s, n, `${path}/anyOf/${i}`));
      });
    }
  }
  if (prev.items) problems.push(...narrowings(prev.items as Schema, (next.items ?? {}) as Schema, `${path}/items`));
  if (prev.additionalProperties && typeof prev.additionalProperties === 'object') {
    problems.push(...narrowings(prev.additionalProperties as Schema, (next.additionalProperties ?? {}) as Schema, `${path}/*`));
  }
  return problems;
}

describe('schema evolution within a version', () => {
  const files = readdirSync(join(released, 'v1')).filter((f) => f.endsWith('.json'));

  it.each(files)('%s as released is still accepted by this build (additions only)', (file) => {
    const type = file.replace(/\.v1\.json$/, '') as EventType;
    const prev = JSON.parse(readFileSync(join(released, 'v1', file), 'utf8')) as Schema;
    expect(EventSchemas[type], `${type} is gone: a released event type must stay readable`).toBeDefined();
    expect(narrowings(prev, JSON.parse(JSON.stringify(EventSchemas[type])) as Schema)).toEqual([]);
  });

  it.each(readdirSync(examples).filter((f) => f.endsWith('.json')))('the example %s, valid when released, still parses', (file) => {
    const event = JSON.parse(readFileSync(join(examples, file), 'utf8')) as { type: EventType };
    expect(Compile(EventSchemas[event.type]).Check(event)).toBe(true);
  });

  it('catches a narrowing (the gate can fail)', () => {
    const prev = { type: 'object', properties: { a: { type: 'string' }, c: { anyOf: [{ const: 'x' }, { const: 'y' }] } }, required: [] };
    const next = {
      type: 'object',
      properties: { b: { type: 'string' }, c: { anyOf: [{ const: 'x' }] } },
      required: ['b'],
    };
    expect(narrowings(prev, next)).toEqual(['#/a: removed', '#/c: value "y" dropped', '#/b: newly required']);
  });
});
