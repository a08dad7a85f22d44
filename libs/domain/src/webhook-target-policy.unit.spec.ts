import { describe, expect, it } from 'vitest';
import { addressAllowed, decideWebhookTarget, type WebhookTarget, type WebhookTargetPolicy } from './webhook-target-policy.ts';

const strict: WebhookTargetPolicy = { allowPrivate: false, allowHttp: false, allowedPorts: [] };
const target = (over: Partial<WebhookTarget> = {}): WebhookTarget => ({
  protocol: 'https:',
  port: 443,
  hasCredentials: false,
  addresses: ['93.184.216.34'],
  ...over,
});

describe('decideWebhookTarget', () => {
  it('accepts https to a public address', () => expect(decideWebhookTarget(target(), strict)).toBeUndefined());

  it('refuses plain http to a public address unless the operator allows http', () => {
    expect(decideWebhookTarget(target({ protocol: 'http:', port: 80 }), strict)?.message).toBe('must use https');
    expect(decideWebhookTarget(target({ protocol: 'http:', port: 80 }), { ...strict, allowHttp: true })).toBeUndefined();
  });

  it.each(['127.0.0.1', '10.0.0.7', '172.16.4.4', '192.168.0.2', '169.254.169.254', '100.64.1.1', '::1', 'fd00::1', 'fe80::1'])(
    'refuses %s, also when only one of the addresses is private',
    (address) => {
      expect(decideWebhookTarget(target({ addresses: [address] }), strict)?.message).toMatch(/loopback, private/);
      expect(decideWebhookTarget(target({ addresses: ['93.184.216.34', address] }), strict)?.message).toMatch(/loopback, private/);
    },
  );

  it('admits private targets, over http too, when the operator allows private webhooks', () => {
    const policy = { ...strict, allowPrivate: true };
    expect(decideWebhookTarget(target({ protocol: 'http:', port: 8080, addresses: ['127.0.0.1'] }), policy)).toBeUndefined();
    // …but that setting does not open plain http to the public internet.
    expect(decideWebhookTarget(target({ protocol: 'http:', port: 80 }), policy)?.message).toBe('must use https');
  });

  it('refuses other schemes, credentials, unresolvable hosts and ports outside the allowlist', () => {
    expect(decideWebhookTarget(target({ protocol: 'ftp:' }), strict)?.message).toBe('must use https');
    expect(decideWebhookTarget(target({ hasCredentials: true }), strict)?.message).toMatch(/credentials/);
    expect(decideWebhookTarget(target({ addresses: [] }), strict)?.message).toMatch(/resolve/);
    expect(decideWebhookTarget(target({ port: 8443 }), { ...strict, allowedPorts: [443] })?.message).toMatch(/ports 443/);
    expect(decideWebhookTarget(target({ port: 443 }), { ...strict, allowedPorts: [443, 8443] })).toBeUndefined();
  });
});

describe('addressAllowed (connect time)', () => {
  it('refuses non-public addresses unless private webhooks are allowed', () => {
    expect(addressAllowed('10.0.0.1', { allowPrivate: false })).toBe(false);
    expect(addressAllowed('169.254.169.254', { allowPrivate: false })).toBe(false);
    expect(addressAllowed('93.184.216.34', { allowPrivate: false })).toBe(true);
    expect(addressAllowed('127.0.0.1', { allowPrivate: true })).toBe(true);
  });

  it('judges IPv6 forms by the IPv4 inside, and never opens metadata or link-local, even for private webhooks', () => {
    for (const wrapped of ['::7f00:1', '::127.0.0.1', '2002:7f00:1::1', '::ffff:0:7f00:1', '2001:0:4136:e378:8000:63bf:80ff:fffe']) {
      expect(addressAllowed(wrapped, { allowPrivate: false }), wrapped).toBe(false);
      expect(addressAllowed(wrapped, { allowPrivate: true }), wrapped).toBe(true);
    }
    for (const never of ['169.254.169.254', '2002:a9fe:a9fe::1', 'fd00:ec2::254', '100.100.100.200', 'fe80::1', '64:ff9b:1::7f00:1']) {
      expect(addressAllowed(never, { allowPrivate: true }), never).toBe(false);
    }
  });
});
