export { createKafkaEventLog, type KafkaClientName, type KafkaEventLog, type KafkaEventLogOptions } from './kafka-event-log.ts';
export { createRegistryCodec, jsonEventCodec, type EventCodec, type RegistryCodec, type RegistryCodecOptions } from './registry-codec.ts';
export { ensureTopics, type EnsureTopicsOptions } from './topic-admin.ts';
