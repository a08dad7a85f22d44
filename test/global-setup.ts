import type { TestProject } from 'vitest/node';
import './provided-context.ts';

const KEYS = ['KAFKA_BROKERS', 'REDIS_URL', 'S3_ENDPOINT', 'SCHEMA_REGISTRY_URL'] as const;
type Key = (typeof KEYS)[number];

/**
 * Endpoints of the real components come from the environment (infra/up.sh, as `npm test`
 * and .ci/run do), or from testcontainers when a Docker engine answers. With neither, the
 * run fails: a skipped integration test would be a green run that tested nothing.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const missing = KEYS.filter((k) => !process.env[k]);
  if (missing.length === 0) {
    for (const k of KEYS) project.provide(k, process.env[k] as string);
    return;
  }
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch (e) {
    throw new Error(
      `Integration tests need ${missing.join(', ')} in the environment and no container runtime answered ` +
        `(${(e as Error).message}). Run them with \`npm test\`, which starts the components with infra/up.sh.`,
      { cause: e },
    );
  }
  return startContainers(project, missing);
}

async function startContainers(project: TestProject, missing: Key[]): Promise<() => Promise<void>> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const started: { stop(): Promise<unknown> }[] = [];
  for (const k of KEYS) if (!missing.includes(k)) project.provide(k, process.env[k] as string);
  if (missing.includes('REDIS_URL')) {
    const c = await new GenericContainer('redis:7').withExposedPorts(6379).start();
    started.push(c);
    project.provide('REDIS_URL', `redis://${c.getHost()}:${c.getMappedPort(6379)}`);
  }
  if (missing.includes('S3_ENDPOINT')) {
    const c = await new GenericContainer('andrewgaul/s3proxy:latest')
      .withEnvironment({
        S3PROXY_AUTHORIZATION: 'aws-v2-or-v4',
        S3PROXY_IDENTITY: 'test-access-key',
        S3PROXY_CREDENTIAL: 'test-secret-key',
        JCLOUDS_PROVIDER: 'transient',
      })
      .withExposedPorts(80)
      .start();
    started.push(c);
    project.provide('S3_ENDPOINT', `http://${c.getHost()}:${c.getMappedPort(80)}`);
  }
  if (missing.includes('KAFKA_BROKERS')) {
    const { KafkaContainer } = await import('@testcontainers/kafka').catch(() => {
      throw new Error('KAFKA_BROKERS is not set and @testcontainers/kafka is not installed');
    });
    const c = await new KafkaContainer('apache/kafka:4.1.1').withKraft().start();
    started.push(c);
    project.provide('KAFKA_BROKERS', `${c.getHost()}:${c.getMappedPort(9093)}`);
  }
  if (missing.includes('SCHEMA_REGISTRY_URL')) {
    const c = await new GenericContainer('apicurio/apicurio-registry:3.0.6')
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080))
      .start();
    started.push(c);
    project.provide('SCHEMA_REGISTRY_URL', `http://${c.getHost()}:${c.getMappedPort(8080)}/apis/ccompat/v7`);
  }
  return async () => {
    await Promise.all(started.map((c) => c.stop()));
  };
}
