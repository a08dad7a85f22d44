import { describe, expect, it } from 'vitest';
import JsonSchemaModule from '@kafkajs/confluent-schema-registry/dist/JsonSchema.js';
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { EventSchemas } from '@pressroom/schemas';
import { registeredSchemaOf } from './registry-schema.ts';

/** The registry client's own JSON schema class, with its default options: what an outside reader compiles. */
const JsonSchema = (JsonSchemaModule as unknown as { default: typeof JsonSchemaModule }).default ?? JsonSchemaModule;
const compileAsOutsideReader = (schema: unknown) => new JsonSchema({ type: SchemaType.JSON, schema: JSON.stringify(schema) });

describe('registeredSchemaOf', () => {
  it.each(Object.keys(EventSchemas))('%s compiles for a reader with the registry client’s defaults', (type) => {
    const schema = EventSchemas[type as keyof typeof EventSchemas];
    expect(() => compileAsOutsideReader(schema)).toThrow(/unknown format/); // the finding, as registered before
    expect(() => compileAsOutsideReader(registeredSchemaOf(schema))).not.toThrow();
  });

  it('keeps the constraint of a format as a pattern', () => {
    const reader = compileAsOutsideReader(
      registeredSchemaOf({
        type: 'object',
        properties: { at: { type: 'string', format: 'date-time' }, id: { type: 'string', format: 'uuid' } },
      }),
    );
    // toBuffer validates as the client's encode does (its isValid without an error hook always says yes).
    expect(() => reader.toBuffer({ at: '2026-11-22T10:00:00.000Z', id: '019a9b5e-7c1a-7d3e-9f10-2b4c6d8e0a10' })).not.toThrow();
    expect(() => reader.toBuffer({ at: 'yesterday' })).toThrow(/invalid payload/);
    expect(() => reader.toBuffer({ id: 'not-a-uuid' })).toThrow(/invalid payload/);
  });

  it('refuses a format it has no pattern for, at build time', () => {
    expect(() => registeredSchemaOf({ type: 'string', format: 'hostname' })).toThrow(/no portable pattern for format "hostname"/);
  });
});
