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

  // Issue 7: IPv6 forms that wrap loopback or metadata, and ranges that are not global unicast,
  // as a tenant types them (the URL parser rewrites them first) and as a DNS server answers them.
  it.each([
    ['https://[::7f00:1]/hook', /127\.0\.0\.1 is loopback/],
    ['https://[::127.0.0.1]/hook', /127\.0\.0\.1 is loopback/],
    ['https://[::ffff:127.0.0.1]/hook', /127\.0\.0\.1 is loopback/],
    ['https://[2002:7f00:1::1]/hook', /127\.0\.0\.1 is loopback.*6to4/],
    ['https://[2002:a9fe:a9fe::1]/latest', /169\.254\.169\.254 is a metadata service.*6to4/],
    ['https://[64:ff9b::a9fe:a9fe]/latest', /169\.254\.169\.254 is a metadata service.*NAT64/],
    ['https://[64:ff9b:1::a9fe:a9fe]/latest', /local-use NAT64/],
    ['https://[::ffff:0:7f00:1]/hook', /127\.0\.0\.1 is loopback.*SIIT/],
    ['https://[fec0::1]/hook', /deprecatedSiteLocal/],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', /127\.0\.0\.1 is loopback.*Teredo/],
    ['https://[2001:db8::1]/hook', /reserved/],
    ['https://[3fff::1]/hook', /reserved/],
    ['https://[2001:2::1]/hook', /benchmarking/],
    ['https://198.18.0.1/hook', /reserved/],
    ['https://203.0.113.5/hook', /reserved/],
    ['https://0177.0.0.1/hook', /127\.0\.0\.1 is loopback/],
    ['https://0x7f.1/hook', /127\.0\.0\.1 is loopback/],
    ['https://2852039166/latest', /169\.254\.169\.254 is a metadata service/],
    ['https://100.100.100.200/latest', /metadata service/],
  ])('refuses %s, saying which address it judged', async (url, why) => {
    expect(await checkWebhookTarget(url, { allowPrivate: false, lookup: resolvesTo() })).toEqual({
      field: 'webhook',
      message: expect.stringMatching(why) as unknown,
    });
  });

  it.each(['::ffff:0:7f00:1', '::127.0.0.1', '2002:7f00:1::1', '64:ff9b::7f00:1', 'fec0::1', '2001:db8::1'])(
    'refuses a name that resolves to %s',
    async (address) => {
      const problem = await checkWebhookTarget('https://hooks.example.com/x', { allowPrivate: false, lookup: resolvesTo(address) });
      expect(problem).toMatchObject({ field: 'webhook', message: expect.stringMatching(/must not point/) as unknown });
    },
  );

  it.each([
    'https://169.254.169.254/latest',
    'https://[2002:a9fe:a9fe::1]/latest',
    'https://[::ffff:a9fe:a9fe]/latest',
    'https://[fd00:ec2::254]/latest',
    'https://100.100.100.200/latest',
    'https://[fe80::1]/hook',
    'https://224.0.0.1/hook',
  ])('refuses %s even when private targets are allowed (metadata, link-local, multicast never open)', async (url) => {
    expect(await checkWebhookTarget(url, { allowPrivate: true, lookup: resolvesTo() })).toMatchObject({ field: 'webhook' });
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
