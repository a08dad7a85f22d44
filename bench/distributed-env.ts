import { randomBytes } from 'node:crypto';

/**
 * The environment of a distributed-profile run of the benches: the shared Kafka, registry, Redis
 * and S3 of the environment (`source /work/main/.infra/env`), with a topic, Redis and subject
 * prefix and a bucket of the run's own (`run`).
 */
export function distributedBenchEnv(args: {
  run: string;
  ingressPort: number;
  apiKey: string;
  partitions: number;
  extra?: Record<string, string>;
}): Record<string, string> {
  const need = (k: string) => {
    const v = process.env[k];
    if (!v) throw new Error(`--distributed needs ${k} (source /work/main/.infra/env)`);
    return v;
  };
  const { run } = args;
  return {
    PRESSROOM_PROFILE: 'distributed',
    KAFKA_BROKERS: need('KAFKA_BROKERS'),
    SCHEMA_REGISTRY_URL: need('SCHEMA_REGISTRY_URL'),
    REDIS_URL: need('REDIS_URL'),
    S3_ENDPOINT: need('S3_ENDPOINT'),
    S3_REGION: process.env.S3_REGION ?? 'us-east-1',
    S3_ACCESS_KEY_ID: need('S3_ACCESS_KEY_ID'),
    S3_SECRET_ACCESS_KEY: need('S3_SECRET_ACCESS_KEY'),
    PRESSROOM_S3_BUCKET: `pressroom-${run}`,
    PRESSROOM_TOPIC_PREFIX: run,
    PRESSROOM_SCHEMA_SUBJECT_PREFIX: `${run}.`,
    PRESSROOM_REDIS_PREFIX: `${run}:`,
    PRESSROOM_KAFKA_PARTITIONS: String(args.partitions),
    PRESSROOM_SECRET_KEY: randomBytes(32).toString('hex'),
    PRESSROOM_API_KEY: args.apiKey,
    PRESSROOM_ADMIN_TOKEN: `adm_${randomBytes(16).toString('hex')}`,
    PRESSROOM_PUBLIC_URL: `http://127.0.0.1:${args.ingressPort}`,
    PRESSROOM_ALLOW_PRIVATE_WEBHOOKS: 'true',
    PRESSROOM_LOG_LEVEL: 'warn',
    ...args.extra,
  };
}
