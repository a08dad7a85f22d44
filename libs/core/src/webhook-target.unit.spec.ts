import { describe, expect, it } from 'vitest';
import { checkWebhookTarget, type Lookup } from './webhook-target.ts';

const resolvesTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address }));

describe('checkWebhookTarget', () => {
  it('accepts a public https target', async () => {
    expect(
      await checkWebhookTarget('https://hooks.example.com/x', { allowPrivate: false, lookup: resolvesTo('93.184.216.34') }),
    ).toBeUndefined();
  });

  it.each([
    ['http://127.0.0.1:8080/hook', resolvesTo()],
    ['http://[::1]/hook', resolvesTo()],
    ['http://169.254.169.254/latest/meta-data', resolvesTo()],
    ['https://internal.example.com/', resolvesTo('10.0.0.7')],
    ['https://rebind.example.com/', resolvesTo('93.184.216.34', '127.0.0.1')],
  ])('refuses %s when private targets are not allowed', async (url, lookup) => {
    expect(await checkWebhookTarget(url, { allowPrivate: false, lookup })).toMatchObject({ field: 'webhook' });
  });

  it('allows private targets when the operator says so', async () => {
    expect(await checkWebhookTarget('http://127.0.0.1:8080/hook', { allowPrivate: true })).toBeUndefined();
  });

  it.each(['ftp://example.com/x', 'file:///etc/passwd', 'https://user:pw@example.com/', 'not a url'])('refuses %s', async (url) => {
    expect(await checkWebhookTarget(url, { allowPrivate: true, lookup: resolvesTo('93.184.216.34') })).toMatchObject({ field: 'webhook' });
  });

  it('refuses a host that does not resolve', async () => {
    const failing: Lookup = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await checkWebhookTarget('https://nowhere.invalid/', { allowPrivate: false, lookup: failing })).toMatchObject({
      field: 'webhook',
    });
  });
});
