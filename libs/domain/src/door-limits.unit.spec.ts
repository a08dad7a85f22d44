import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DOOR_LIMITS,
  dataLimitProblems,
  jsonTextProblems,
  measureJson,
  scanJsonText,
  templateSourceProblems,
} from './door-limits.ts';

const nestJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('scanJsonText (before parsing)', () => {
  it('reads nesting and value count, skipping strings (escaped quotes and brackets inside them included)', () => {
    expect(scanJsonText('{"a":[1,2,{"b":"x\\"]}[{"}]}', { depth: 10, values: 100 })).toEqual({ depth: 3, values: 5 });
    expect(scanJsonText('"\\\\"', { depth: 10, values: 100 })).toEqual({ depth: 0, values: 0 });
  });

  it('refuses a body nested deeper than PRESSROOM_MAX_JSON_DEPTH or holding more values than PRESSROOM_MAX_JSON_VALUES', () => {
    expect(jsonTextProblems(nestJson(10_000), DEFAULT_DOOR_LIMITS)).toEqual([
      { field: '(body)', message: 'is nested deeper than 100 (limit PRESSROOM_MAX_JSON_DEPTH)' },
    ]);
    expect(jsonTextProblems(JSON.stringify({ items: new Array(30_000).fill(0) }), DEFAULT_DOOR_LIMITS)[0]?.message).toMatch(
      /PRESSROOM_MAX_JSON_VALUES/,
    );
    expect(jsonTextProblems(nestJson(100), DEFAULT_DOOR_LIMITS)).toEqual([]);
  });
});

describe('measureJson and dataLimitProblems', () => {
  it('measures a parsed value 10,000 levels deep without recursion, stopping at the bound', () => {
    const deep = JSON.parse(nestJson(10_000)) as unknown;
    expect(measureJson(deep, { depth: 32 }).exceeded).toBe('depth');
    expect(dataLimitProblems(deep, DEFAULT_DOOR_LIMITS)).toEqual([
      { field: 'data', message: 'is nested deeper than 32 (limit PRESSROOM_MAX_DATA_DEPTH)' },
    ]);
  });

  it('names the key-count and size limits', () => {
    expect(dataLimitProblems({ items: new Array(10_001).fill(0) }, DEFAULT_DOOR_LIMITS)[0]?.message).toMatch(/PRESSROOM_MAX_DATA_KEYS/);
    expect(dataLimitProblems({ s: 'x'.repeat(1_100_000) }, DEFAULT_DOOR_LIMITS)[0]?.message).toMatch(/PRESSROOM_MAX_DATA_BYTES/);
    expect(dataLimitProblems({ name: 'Ada', items: [{ sku: 'a', qty: 1 }] }, DEFAULT_DOOR_LIMITS)).toEqual([]);
  });

  it('bounds template sources, content, header and footer together', () => {
    expect(templateSourceProblems({ content: 'x'.repeat(200_000), footer: 'y'.repeat(100_000) }, DEFAULT_DOOR_LIMITS)[0]?.message).toMatch(
      /PRESSROOM_MAX_TEMPLATE_BYTES/,
    );
    expect(templateSourceProblems({ content: '<p>x</p>' }, DEFAULT_DOOR_LIMITS)).toEqual([]);
  });
});
