import { describe, expect, it } from 'vitest';
import { checkS3Endpoint } from './s3-endpoint.ts';
import type { Lookup } from './url-host.ts';

const resolvesTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address }));

describe('checkS3Endpoint', () => {
  it('accepts a public https endpoint', async () => {
    expect(await checkS3Endpoint('https://s3.example.com', { allowPrivate: false, lookup: resolvesTo('52.216.0.1') })).toBeUndefined();
  });

  it.each([
    ['http://127.0.0.1:19000', resolvesTo()],
    ['https://[::ffff:127.0.0.1]', resolvesTo()],
    ['https://[::127.0.0.1]', resolvesTo()],
    ['https://[2002:7f00:1::1]', resolvesTo()],
    ['https://0177.0.0.1', resolvesTo()],
    ['https://minio.internal', resolvesTo('10.0.0.9')],
    ['https://rebind.example.com', resolvesTo('52.216.0.1', '::ffff:0:7f00:1')],
  ])('refuses %s unless private endpoints are allowed', async (url, lookup) => {
    expect(await checkS3Endpoint(url, { allowPrivate: false, lookup })).toMatchObject({
      field: 'endpoint',
      message: expect.stringMatching(/must not point/) as unknown,
    });
    expect(await checkS3Endpoint(url, { allowPrivate: true, lookup })).toBeUndefined();
  });

  it.each([
    'http://169.254.169.254',
    'https://[2002:a9fe:a9fe::1]',
    'https://[fd00:ec2::254]',
    'https://100.100.100.200',
    'https://2852039166',
  ])('refuses the metadata endpoint %s even when private endpoints are allowed', async (url) => {
    expect(await checkS3Endpoint(url, { allowPrivate: true, lookup: resolvesTo() })).toMatchObject({ field: 'endpoint' });
  });

  it('refuses what is not a URL or does not resolve', async () => {
    expect(await checkS3Endpoint('s3.example.com', { allowPrivate: true })).toMatchObject({ message: 'must be an absolute URL' });
    const failing: Lookup = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await checkS3Endpoint('https://nowhere.invalid', { allowPrivate: true, lookup: failing })).toMatchObject({ message: /resolve/ });
  });
});
