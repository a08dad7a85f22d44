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

/**
 * Removes a run's bucket with everything in it, once its apps have stopped. The environment's
 * S3Proxy keeps objects in memory (infra/s3-up.sh), so the files of runs left behind add up
 * until it runs out of heap (seen here: OutOfMemoryError and 400s after a session of runs).
 */
export async function removeRunBucket(env: Record<string, string>): Promise<void> {
  const { S3Client, ListObjectsV2Command, DeleteObjectsCommand, DeleteBucketCommand } = await import('@aws-sdk/client-s3');
  const Bucket = env.PRESSROOM_S3_BUCKET;
  if (!Bucket) return;
  const s3 = new S3Client({
    region: env.S3_REGION ?? 'us-east-1',
    ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID ?? '', secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? '' },
  });
  try {
    for (let token: string | undefined; ;) {
      const page = await s3.send(new ListObjectsV2Command({ Bucket, ...(token ? { ContinuationToken: token } : {}) }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }));
      if (!page.IsTruncated) break;
      token = page.NextContinuationToken;
    }
    await s3.send(new DeleteBucketCommand({ Bucket }));
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name !== 'NoSuchBucket') console.warn(`could not remove the run's bucket ${Bucket}: ${String(err)}`);
  } finally {
    s3.destroy();
  }
}
