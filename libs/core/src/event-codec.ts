import { Compile } from 'typebox/compile';
import { EventSchemas, type EventType, type LogEvent } from '@pressroom/schemas';

const validators = Object.fromEntries(Object.entries(EventSchemas).map(([type, schema]) => [type, Compile(schema)])) as {
  [K in EventType]: ReturnType<typeof Compile>;
};

/** EventDecodeError happens when a value on the log is not a known event of a known version. */
export class EventDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventDecodeError';
  }
}

/**
 * Parses a value read from (or about to be written to) the log. Unknown types and unknown
 * versions fail loudly: a consumer must never guess at a shape it was not built for.
 */
export function parseEvent(value: unknown): LogEvent {
  if (typeof value !== 'object' || value === null) throw new EventDecodeError('event is not an object');
  const { type, version } = value as { type?: unknown; version?: unknown };
  if (typeof type !== 'string' || !(type in validators)) throw new EventDecodeError(`unknown event type ${String(type)}`);
  if (version !== 1) throw new EventDecodeError(`unsupported version ${String(version)} of ${type}`);
  const validator = validators[type as EventType];
  if (!validator.Check(value)) {
    const first = [...validator.Errors(value)][0];
    throw new EventDecodeError(`invalid ${type}: ${first ? `${first.instancePath} ${first.message}` : 'schema mismatch'}`);
  }
  return value as LogEvent;
}

export function encodeEventJson(event: LogEvent): Buffer {
  return Buffer.from(JSON.stringify(parseEvent(event)));
}

export function decodeEventJson(bytes: Uint8Array): LogEvent {
  return parseEvent(JSON.parse(Buffer.from(bytes).toString('utf8')));
}
