import { describe, expect, it } from 'vitest';
import { decideS3Endpoint, type S3EndpointTarget } from './s3-endpoint-policy.ts';

const target = (over: Partial<S3EndpointTarget> = {}): S3EndpointTarget => ({
  protocol: 'https:',
  hasCredentials: false,
  addresses: ['52.216.0.1'],
  ...over,
});
const strict = { allowPrivate: false };
const open = { allowPrivate: true };

describe('decideS3Endpoint', () => {
  it('accepts https to a public address', () => expect(decideS3Endpoint(target(), strict)).toBeUndefined());

  it.each([
    '127.0.0.1',
    '10.0.0.9',
    '100.64.0.1',
    'fd00::1',
    '::ffff:7f00:1',
    '::127.0.0.1',
    '2002:7f00:1::1',
    '64:ff9b::a00:1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
  ])('refuses %s unless private endpoints are allowed', (address) => {
    expect(decideS3Endpoint(target({ addresses: [address] }), strict)?.message).toMatch(/must not point/);
    expect(decideS3Endpoint(target({ addresses: ['52.216.0.1', address] }), strict)?.message).toMatch(/must not point/);
    expect(decideS3Endpoint(target({ addresses: [address] }), open)).toBeUndefined();
  });

  it.each([
    '169.254.169.254',
    '2002:a9fe:a9fe::1',
    '::ffff:a9fe:a9fe',
    'fd00:ec2::254',
    '100.100.100.200',
    'fe80::1',
    '192.0.2.1',
    'fec0::1',
  ])('refuses %s even when private endpoints are allowed', (address) => {
    expect(decideS3Endpoint(target({ addresses: [address] }), open)?.message).toMatch(/must not point/);
  });

  it('allows plain http only to the private network the operator opened', () => {
    expect(decideS3Endpoint(target({ protocol: 'http:' }), open)?.message).toBe('must use https');
    expect(decideS3Endpoint(target({ protocol: 'http:', addresses: ['127.0.0.1'] }), open)).toBeUndefined();
    expect(decideS3Endpoint(target({ protocol: 'http:', addresses: ['127.0.0.1'] }), strict)?.message).toMatch(/must not point/);
  });

  it('refuses other schemes, credentials and hosts that do not resolve', () => {
    expect(decideS3Endpoint(target({ protocol: 'ftp:' }), open)?.message).toBe('must use https');
    expect(decideS3Endpoint(target({ hasCredentials: true }), open)?.message).toMatch(/credentials/);
    expect(decideS3Endpoint(target({ addresses: [] }), open)?.message).toMatch(/resolve/);
  });
});
