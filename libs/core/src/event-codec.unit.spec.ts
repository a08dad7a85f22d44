import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventSchemas } from '@pressroom/schemas';
import { EventDecodeError, decodeEventJson, encodeEventJson, parseEvent } from './event-codec.ts';

const examplesDir = join(import.meta.dirname, '../../../schemas/examples');
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.json'));

describe('event codec', () => {
  it.each(examples)('accepts the golden example %s unchanged (compatibility guard)', (file) => {
    const value: unknown = JSON.parse(readFileSync(join(examplesDir, file), 'utf8'));
    expect(decodeEventJson(encodeEventJson(parseEvent(value)))).toEqual(value);
  });

  it('covers every event type with a golden example (more shapes of a type: <Type>.<shape>.v1.json)', () => {
    expect(examples.every((f) => Object.keys(EventSchemas).includes(f.split('.')[0]!))).toBe(true);
    expect(examples.filter((f) => f.split('.').length === 3).sort()).toEqual(
      Object.keys(EventSchemas)
        .sort()
        .map((t) => `${t}.v1.json`),
    );
  });

  it('fails loudly on an unknown version', () => {
    const value = JSON.parse(readFileSync(join(examplesDir, 'RenderFailed.v1.json'), 'utf8')) as Record<string, unknown>;
    expect(() => parseEvent({ ...value, version: 2 })).toThrow(/unsupported version 2 of RenderFailed/);
  });

  it('refuses an unknown type and a payload that breaks its schema', () => {
    expect(() => parseEvent({ type: 'RenderExploded', version: 1 })).toThrow(EventDecodeError);
    const value = JSON.parse(readFileSync(join(examplesDir, 'RenderFailed.v1.json'), 'utf8')) as { data: { error: object } };
    expect(() => parseEvent({ ...value, data: { ...value.data, error: { code: 'NOPE', message: 'x' } } })).toThrow(/invalid RenderFailed/);
  });
});
