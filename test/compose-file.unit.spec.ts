import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeProblems } from '../scripts/check-compose.ts';

const text = readFileSync(join(import.meta.dirname, '..', 'docker-compose.yml'), 'utf8');

describe('docker-compose.yml', () => {
  // Compiling the Compose Specification's schema takes seconds on a loaded machine (it timed out at vitest's 5 s).
  it('follows the Compose Specification, with a healthcheck on every service and pinned images', { timeout: 60_000 }, () => {
    expect(composeProblems(text)).toEqual([]);
  });

  it('runs the whole distributed stack, Kafka reachable from the other containers', () => {
    const doc = parse(text, { merge: true }) as { services: Record<string, { command?: string[]; environment?: Record<string, string> }> };
    expect(Object.keys(doc.services).sort()).toEqual(
      [
        'apicurio',
        'grafana',
        'ingress',
        'kafka',
        'prometheus',
        'redis',
        'render-worker',
        's3',
        'status-projector',
        'webhook-dispatcher',
      ].sort(),
    );
    expect(doc.services.kafka!.environment!.KAFKA_ADVERTISED_LISTENERS).toContain('INTERNAL://kafka:9092');
    for (const app of ['ingress', 'render-worker', 'status-projector', 'webhook-dispatcher']) {
      expect(doc.services[app]!.command).toEqual([app]);
      expect(doc.services[app]!.environment!.KAFKA_BROKERS).toBe('kafka:9092');
    }
  });

  it('is refused when it breaks the specification or drops a healthcheck', () => {
    expect(composeProblems(text.replace('    image: redis:7.4.6', '    image: redis:latest'))).toEqual([
      '/services/redis image redis:latest is not pinned to a version',
    ]);
    expect(composeProblems(text.replace("    command: ['ingress']", '    command: 42'))).not.toEqual([]);
    expect(composeProblems(text.replace('restart: unless-stopped', 'restart: unless-stopped\n  colour: blue')).join()).toContain('colour');
    expect(composeProblems('services:\n  a:\n    image: x:1\n')).toEqual(['/services/a has no healthcheck']);
  });
});
