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
});
