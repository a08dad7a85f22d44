import Type from 'typebox';
import { Int, optional, slice, splitList, Str } from './setting.ts';

/** The distributed log: Kafka brokers and topics, the schema registry. */
export const kafkaSlice = slice({
  env: {
    KAFKA_BROKERS: Str('Comma-separated Kafka bootstrap servers (distributed profile).'),
    PRESSROOM_TOPIC_PREFIX: Str('Prefix of the Kafka topics.', 'pressroom'),
    PRESSROOM_KAFKA_PARTITIONS: Int('Partitions of each topic when Pressroom creates it.', 6, 1),
    PRESSROOM_KAFKA_SESSION_TIMEOUT_MS: Int(
      'Kafka consumer session timeout: how soon a crashed member’s partitions move to another.',
      30000,
      1000,
    ),
    PRESSROOM_KAFKA_APPEND_TIMEOUT_MS: Int(
      'How long the ingress waits for the log to take a render request before it answers 503 (both profiles); a request the log writes later is withdrawn, never rendered.',
      10000,
      100,
    ),
    PRESSROOM_KAFKA_COMMIT_INTERVAL_MS: Int(
      'Least time between two offset commits of one consumer-group member (render worker, status projector, webhook dispatcher). 1000 (the default) saves about a fifth of the machine CPU per distributed render; a member that dies hands up to that much of its handled records to the next member, which handles them again (every consumer tolerates it). 0 commits as each record is handled. (It was off by default until session 21, for an intermittent 404 after a Redis data loss, found then in the self-rebuilding views and fixed.)',
      1000,
      0,
    ),
    PRESSROOM_ACCEPT_CLOCK_SKEW_MS: Int(
      'Clock difference tolerated between the ingress and the Kafka brokers when the render worker decides a request was written after the ingress refused it.',
      2000,
      0,
    ),
    PRESSROOM_KAFKA_CLIENT: Type.Union([Type.Literal('kafkajs'), Type.Literal('platformatic')], {
      default: 'kafkajs',
      description:
        'Kafka client of the log’s data path (produce, consume, reads): `kafkajs`, or `platformatic` (@platformatic/kafka, evaluated in docs/kafka-client.md; not the default).',
    }),
    SCHEMA_REGISTRY_URL: Str('Confluent-compatible schema registry; events are then encoded in its wire format.'),
    PRESSROOM_SCHEMA_SUBJECT_PREFIX: Str(
      'Prefix of the registry subjects (`<prefix>pressroom.<Type>.v1`), for deployments sharing one registry.',
      '',
    ),
  },
  read(c) {
    return {
      kafkaBrokers: splitList(c.KAFKA_BROKERS ?? ''),
      topicPrefix: c.PRESSROOM_TOPIC_PREFIX,
      kafkaPartitions: Number(c.PRESSROOM_KAFKA_PARTITIONS),
      kafkaSessionTimeoutMs: Number(c.PRESSROOM_KAFKA_SESSION_TIMEOUT_MS),
      kafkaAppendTimeoutMs: Number(c.PRESSROOM_KAFKA_APPEND_TIMEOUT_MS),
      kafkaCommitIntervalMs: Number(c.PRESSROOM_KAFKA_COMMIT_INTERVAL_MS),
      kafkaClient: c.PRESSROOM_KAFKA_CLIENT,
      /** See PRESSROOM_ACCEPT_CLOCK_SKEW_MS. */
      acceptClockSkewMs: Number(c.PRESSROOM_ACCEPT_CLOCK_SKEW_MS),
      schemaRegistryUrl: optional(c.SCHEMA_REGISTRY_URL),
      schemaSubjectPrefix: c.PRESSROOM_SCHEMA_SUBJECT_PREFIX,
    };
  },
  check(config, profile) {
    return profile === 'distributed' && !config.kafkaBrokers.length ? ['KAFKA_BROKERS: required by the distributed profile'] : [];
  },
});
