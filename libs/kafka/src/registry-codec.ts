import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Compile } from 'typebox/compile';
import { decodeEventJson, EventDecodeError, encodeEventJson, parseEvent } from '@pressroom/core';
import { EventSchemas, type EventType, type LogEvent } from '@pressroom/schemas';
import { registeredSchemaOf } from './registry-schema.ts';
import { registerSubject } from './registry-subjects.ts';

/** How event values are written to and read from Kafka. Both directions go through `parseEvent`. */
export interface EventCodec {
  encode(event: LogEvent): Promise<Buffer>;
  /** Rejects with EventDecodeError when the value is not a known event of a known version. */
  decode(value: Buffer): Promise<LogEvent>;
}

/** Schema-validated JSON, for clusters without a registry. */
export const jsonEventCodec: EventCodec = {
  encode: async (event) => encodeEventJson(event),
  decode: async (value) => {
    if (value[0] === MAGIC_BYTE) throw new EventDecodeError('value is in the registry wire format but no registry is configured');
    return decodeEventJson(value);
  },
};

const MAGIC_BYTE = 0;

export interface RegistryCodecOptions {
  /** Confluent-compatible API root, e.g. http://127.0.0.1:18081/apis/ccompat/v7 (Apicurio). */
  url: string;
  /** Prepended to every subject (tests, or tenants of a shared registry). Default none. */
  subjectPrefix?: string;
}

export interface RegistryCodec extends EventCodec {
  /** Registry id of each event type's schema, as registered at creation. */
  readonly schemaIds: Readonly<Record<EventType, number>>;
  subjectOf(type: EventType): string;
}

type RegistryOptions = NonNullable<ConstructorParameters<typeof SchemaRegistry>[1]>;

/**
 * The library validates JSON payloads with Ajv in strict mode, which rejects the schemas
 * earlier releases registered (`format: "uuid"`, `"date-time"`; still the writer schemas of
 * their events on the log). This stands in for Ajv: TypeBox compiles whatever schema the
 * registry holds, formats included, so every writer's schema is checked as the library intends.
 */
const typeboxValidator = {
  addSchema() {
    throw new Error('event schemas have no references');
  },
  compile(schema: unknown) {
    const check = Compile(schema as Parameters<typeof Compile>[0]);
    const validate = (data: unknown): boolean => {
      const ok = check.Check(data);
      validate.errors = ok ? null : [...check.Errors(data)].map((e) => ({ instancePath: e.instancePath, message: e.message }));
      return ok;
    };
    validate.errors = null as null | { instancePath: string; message: string }[];
    return validate;
  },
};

/**
 * Encodes events in the Confluent wire format (magic byte 0, 4-byte schema id, JSON) with
 * one JSON Schema per event type, registered under the record-name strategy: subject
 * `<prefix>pressroom.<Type>.v1` (the schema's `$id`), since one topic carries several types.
 * Every type is registered at creation, in its portable form (see registeredSchemaOf), safely
 * from several apps at once (see registerSubject); registering the same schema again returns
 * the same id, and each schema is fetched once so appends never wait on the registry.
 * Decoding looks the writer's schema up by the id in the value, validates against it, then
 * `parseEvent` checks it against the schema this build knows (unknown version:
 * EventDecodeError). A plain JSON value is accepted too, so topics written before the registry
 * was configured stay readable.
 */
export async function createRegistryCodec(opts: RegistryCodecOptions): Promise<RegistryCodec> {
  const registryOptions = { [SchemaType.JSON]: { ajvInstance: typeboxValidator } } as unknown as RegistryOptions;
  const registry = new SchemaRegistry({ host: opts.url, clientId: 'pressroom' }, registryOptions);
  const prefix = opts.subjectPrefix ?? '';
  const subjectOf = (type: EventType) => `${prefix}${(EventSchemas[type] as { $id?: string }).$id ?? `pressroom.${type}.v1`}`;
  const ids = {} as Record<EventType, number>;
  for (const type of Object.keys(EventSchemas) as EventType[]) {
    ids[type] = await registerSubject(opts.url, subjectOf(type), JSON.stringify(registeredSchemaOf(EventSchemas[type])));
    await registry.getSchema(ids[type]); // into the client's cache, for encode
  }

  return {
    schemaIds: ids,
    subjectOf,
    async encode(event) {
      const valid = parseEvent(event);
      return registry.encode(ids[valid.type], valid);
    },
    async decode(value) {
      if (value[0] !== MAGIC_BYTE) return decodeEventJson(value);
      let decoded: unknown;
      try {
        decoded = await registry.decode(value);
      } catch (e) {
        if (e instanceof Error && e.name === 'ConfluentSchemaRegistryValidationError') {
          throw new EventDecodeError(`value does not match its registered schema: ${e.message}`);
        }
        throw e;
      }
      return parseEvent(decoded);
    },
  };
}
