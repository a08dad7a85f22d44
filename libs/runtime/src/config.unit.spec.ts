import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('gives the embedded profile with defaults on an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      profile: 'embedded',
      port: 3000,
      dataDir: './data',
      syncTimeoutMs: 30000,
      publicUrl: 'http://localhost:3000',
    });
  });

  it('lists every problem at once', () => {
    let err: unknown;
    try {
      loadConfig({ PORT: 'eighty', PRESSROOM_PROFILE: 'cloud' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.join('\n')).toMatch(/PORT[\s\S]*PRESSROOM_PROFILE|PRESSROOM_PROFILE[\s\S]*PORT/);
  });

  it('requires the distributed components when that profile is chosen', () => {
    expect(() => loadConfig({ PRESSROOM_PROFILE: 'distributed' })).toThrow(/KAFKA_BROKERS[\s\S]*REDIS_URL[\s\S]*PRESSROOM_SECRET_KEY/);
  });

  it('reads the webhook settings: a day of retries by default, compressible for tests', () => {
    expect(loadConfig({}).webhooks).toEqual({
      allowHttp: false,
      allowedPorts: [],
      retry: { baseDelayMs: 60_000, maxDelayMs: 21_600_000, maxAttempts: 13 },
      secretOverlapMs: 86_400_000,
      concurrency: 32,
    });
    const c = loadConfig({
      PRESSROOM_WEBHOOK_ALLOWED_PORTS: '443, 8443',
      PRESSROOM_WEBHOOK_RETRY_BASE_MS: '300',
      PRESSROOM_WEBHOOK_ALLOW_HTTP: 'true',
    }).webhooks;
    expect(c).toMatchObject({ allowHttp: true, allowedPorts: [443, 8443], retry: { baseDelayMs: 300 } });
    expect(() => loadConfig({ PRESSROOM_WEBHOOK_ALLOWED_PORTS: 'https' })).toThrow(ConfigError);
  });

  it('reads the per-plan render caps and the read-ahead', () => {
    expect(loadConfig({}).render).toMatchObject({ tenantCaps: { standard: 1, high: 2 }, readAhead: 64 });
    const c = loadConfig({ PRESSROOM_RENDER_TENANT_CAPS: 'standard = 2, high=6,trial=1', PRESSROOM_RENDER_READ_AHEAD: '100' }).render;
    expect(c).toMatchObject({ tenantCaps: { standard: 2, high: 6, trial: 1 }, readAhead: 100 });
    expect(() => loadConfig({ PRESSROOM_RENDER_TENANT_CAPS: 'standard' })).toThrow(/PRESSROOM_RENDER_TENANT_CAPS/);
    expect(() => loadConfig({ PRESSROOM_RENDER_TENANT_CAPS: 'high=-1' })).toThrow(ConfigError);
  });

  it('plans: documented defaults, PRESSROOM_PLANS overrides member by member, a bad one stops the start naming it', () => {
    expect(loadConfig({}).plans.standard).toMatchObject({ requestsPerSecond: 25, burst: 50, concurrentRenders: 20, batchMaxItems: 20 });
    const c = loadConfig({ PRESSROOM_PLANS: '{"standard":{"burst":5},"high":{"concurrentRenders":3}}' });
    expect(c.plans.standard).toMatchObject({ requestsPerSecond: 25, burst: 5 });
    expect(c.plans.high).toMatchObject({ requestsPerSecond: 100, concurrentRenders: 3 });
    expect(() => loadConfig({ PRESSROOM_PLANS: '{"standard":{"burst":0}}' })).toThrow(/PRESSROOM_PLANS: \/standard\/burst/);
    expect(() => loadConfig({ PRESSROOM_PLANS: '{"gold":{}}' })).toThrow(ConfigError);
    expect(() => loadConfig({ PRESSROOM_PLANS: '{"standard":{"batchMaxItems":21}}' })).toThrow(/batchMaxItems/);
    expect(() => loadConfig({ PRESSROOM_PLANS: 'nope' })).toThrow(/PRESSROOM_PLANS: is not valid JSON/);
    expect(loadConfig({}).admission).toEqual({ asyncBacklogMax: 10_000, backlogRefreshMs: 1000, renderLeaseMs: 900_000 });
  });

  it("retention: one setting, each plan's retention; the retired PRESSROOM_RETENTION_FILES and retentionDays stop the start saying what replaces them", () => {
    expect(loadConfig({}).retention.files).toEqual({ standard: 30 * 86_400_000, high: 90 * 86_400_000 });
    const c = loadConfig({ PRESSROOM_PLANS: '{"standard":{"retention":"forever"},"high":{"retention":"2s"}}' });
    expect(c.retention.files).toEqual({ high: 2000 });
    expect(() => loadConfig({ PRESSROOM_PLANS: '{"high":{"retention":"2w"}}' })).toThrow(/\/high\/retention/);
    expect(() => loadConfig({ PRESSROOM_RETENTION_FILES: 'high=2s' })).toThrow(/retention is now set per plan in PRESSROOM_PLANS/);
    expect(() => loadConfig({ PRESSROOM_PLANS: '{"high":{"retentionDays":3}}' })).toThrow(/retentionDays is now retention/);
  });
});
