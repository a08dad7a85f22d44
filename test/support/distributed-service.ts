import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { AppProcess, freePort, type AppName } from './service-process.ts';
import { apiClient } from './api-client.ts';

/**
 * The distributed profile: each app its own process, against the real Kafka, Schema
 * Registry, Redis and S3. Every call owns its topic prefix, Redis prefix and bucket.
 */
export async function distributedEnv(extra: Record<string, string> = {}) {
  const run = randomBytes(4).toString('hex');
  const ingressPort = await freePort();
  const apiKey = `prk_test_${randomBytes(16).toString('hex')}`;
  const adminToken = `adm_${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    PRESSROOM_PROFILE: 'distributed',
    KAFKA_BROKERS: inject('KAFKA_BROKERS'),
    SCHEMA_REGISTRY_URL: inject('SCHEMA_REGISTRY_URL'),
    REDIS_URL: inject('REDIS_URL'),
    S3_ENDPOINT: inject('S3_ENDPOINT'),
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'test-access-key',
    S3_SECRET_ACCESS_KEY: 'test-secret-key',
    PRESSROOM_S3_BUCKET: `pressroom-e2e-${run}`,
    PRESSROOM_TOPIC_PREFIX: `e2e-${run}`,
    // Its own subjects: a shared registry keeps the schemas (and compatibility rules) of other runs and branches.
    PRESSROOM_SCHEMA_SUBJECT_PREFIX: `e2e-${run}.`,
    PRESSROOM_REDIS_PREFIX: `e2e-${run}:`,
    PRESSROOM_KAFKA_PARTITIONS: '3',
    PRESSROOM_KAFKA_SESSION_TIMEOUT_MS: '6000',
    PRESSROOM_SECRET_KEY: randomBytes(32).toString('hex'),
    PRESSROOM_API_KEY: apiKey,
    PRESSROOM_ADMIN_TOKEN: adminToken,
    PRESSROOM_PUBLIC_URL: `http://127.0.0.1:${ingressPort}`,
    PRESSROOM_ALLOW_PRIVATE_WEBHOOKS: 'true',
    // Tenant S3 connections in the tests point at the local S3Proxy.
    PRESSROOM_ALLOW_PRIVATE_S3_ENDPOINTS: 'true',
    PRESSROOM_RENDER_PAGES: '1',
    ...(process.env.PRESSROOM_TEST_COMMIT_INTERVAL_MS
      ? { PRESSROOM_KAFKA_COMMIT_INTERVAL_MS: process.env.PRESSROOM_TEST_COMMIT_INTERVAL_MS }
      : {}),
    ...extra,
  };
  const processes: AppProcess[] = [];
  const start = async (app: AppName, port?: number) => {
    const p = new AppProcess(app, env, port ?? (await freePort()));
    processes.push(p);
    return p.start();
  };
  return {
    env,
    run,
    apiKey,
    adminToken,
    ingressPort,
    start,
    api: apiClient(`http://127.0.0.1:${ingressPort}`, apiKey),
    admin: apiClient(`http://127.0.0.1:${ingressPort}`, adminToken),
    async stopAll() {
      await Promise.all(processes.map((p) => p.stop()));
    },
  };
}
