import { describe, expect, it } from 'vitest';
import { followAllowed, type LookupAll } from './network-guard.ts';
import { NetworkPolicy } from './network-policy.ts';

describe('NetworkPolicy.decide', () => {
  const policy = new NetworkPolicy(['cdn.example.com', 'Fonts.Example.org.', 'localhost', '10.0.0.5', '93.184.216.34']);

  it.each(['data:image/png;base64,AAAA', 'blob:null/6c1d3c2e-0000-4000-8000-000000000000', 'about:blank'])('passes %s', (url) => {
    expect(policy.decide(url)).toEqual({ kind: 'pass' });
  });

  it.each([
    ['https://cdn.example.com/logo.png', 'cdn.example.com'],
    ['https://FONTS.example.org/a.woff2', 'fonts.example.org'],
    ['https://fonts.example.org./a.woff2', 'fonts.example.org'],
    ['https://93.184.216.34/x', '93.184.216.34'],
  ])('fetches %s for an allowed public host', (url, host) => {
    const decision = policy.decide(url);
    expect(decision.kind).toBe('fetch');
    expect(decision.kind === 'fetch' && decision.url.hostname.replace(/\.$/, '').toLowerCase()).toBe(host);
  });

  it.each([
    ['https://assets.pressroom.invalid/Font.ttf', 'Font.ttf'],
    ['https://assets.pressroom.invalid/fonts/Inter%20Bold.woff2?v=2#x', 'fonts/Inter Bold.woff2'],
    ['https://ASSETS.pressroom.invalid/logo.png', 'logo.png'],
    ['https://assets.pressroom.invalid/', ''],
  ])('answers %s from the job assets as %j', (url, name) => {
    expect(policy.decide(url)).toEqual({ kind: 'asset', name });
  });

  it.each([
    ['http://assets.pressroom.invalid/Font.ttf', /scheme http:/],
    ['https://assets.pressroom.invalid:8443/Font.ttf', /not in allowedHosts/],
    ['https://user:pw@assets.pressroom.invalid/Font.ttf', /credentials/],
    ['https://assets.pressroom.invalid/%E0%A4%A', /undecodable/],
  ])('does not treat %s as an asset', (url, reason) => {
    const decision = policy.decide(url);
    expect(decision.kind).toBe('block');
    expect(decision.kind === 'block' && decision.reason).toMatch(reason);
  });

  it.each([
    ['file:///etc/passwd', /scheme file:/],
    ['http://cdn.example.com/logo.png', /scheme http:/],
    ['ws://cdn.example.com/socket', /scheme ws:/],
    ['ftp://cdn.example.com/x', /scheme ftp:/],
    ['chrome://settings', /scheme chrome:/],
    ['https://other.example.com/x', /not in allowedHosts/],
    ['https://sub.cdn.example.com/x', /not in allowedHosts/],
    ['https://localhost/x', /never reachable/],
    ['https://a.localhost/x', /never reachable/],
    ['https://metadata.google.internal/computeMetadata/v1/', /never reachable/],
    ['https://127.0.0.1/x', /not public/],
    ['https://10.0.0.5/x', /not public/],
    ['https://169.254.169.254/latest/meta-data/', /not public/],
    ['https://[::1]/x', /not public/],
    ['https://[fd00:ec2::254]/x', /not public/],
    ['https://[::ffff:127.0.0.1]/x', /not public/],
    ['https://[::ffff:a9fe:a9fe]/latest/meta-data/', /not public/],
    ['https://[::7f00:1]/x', /not public/],
    ['https://user:pw@cdn.example.com/x', /credentials/],
    ['not a url', /unparsable/],
  ])('blocks %s', (url, reason) => {
    const decision = policy.decide(url);
    expect(decision.kind).toBe('block');
    expect(decision.kind === 'block' && decision.reason).toMatch(reason);
  });

  it('judges an allowed IPv4-mapped literal by the IPv4 address inside it', () => {
    const mapped = new NetworkPolicy(['::ffff:7f00:1', '::ffff:5db8:d822']);
    expect(mapped.decide('https://[::ffff:7f00:1]/x').kind).toBe('block');
    expect(mapped.decide('https://[::ffff:93.184.216.34]/x').kind).toBe('fetch');
    expect(mapped.addressesArePublic(['::ffff:7f00:1'])).toBe(false);
    expect(mapped.addressesArePublic(['::ffff:127.0.0.1'])).toBe(false);
    expect(mapped.addressesArePublic(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])).toBe(true);
    expect(mapped.addressesArePublic([])).toBe(false);
  });

  it('blocks every host when none is allowed (the default)', () => {
    expect(new NetworkPolicy().decide('https://cdn.example.com/x').kind).toBe('block');
  });
});

describe('followAllowed', () => {
  const policy = new NetworkPolicy(['cdn.example.com', 'img.example.net', 'rebind.example.com']);
  const dns: Record<string, string[]> = {
    'cdn.example.com': ['93.184.216.34'],
    'img.example.net': ['2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.example.com': ['93.184.216.34', '127.0.0.1'],
  };
  const lookup: LookupAll = async (host) => dns[host] ?? [];
  const response = (status: number, location?: string) => ({
    status: () => status,
    headers: () => (location ? { location } : {}) as Record<string, string>,
  });

  it('fetches an allowed host and follows redirects between allowed hosts', async () => {
    const fetched: string[] = [];
    const outcome = await followAllowed(new URL('https://cdn.example.com/a'), {
      policy,
      lookup,
      maxRedirects: 5,
      fetch: async (url) => {
        fetched.push(url.href);
        return url.hostname === 'cdn.example.com' ? response(302, 'https://img.example.net/b') : response(200);
      },
    });
    expect('response' in outcome && outcome.response.status()).toBe(200);
    expect(fetched).toEqual(['https://cdn.example.com/a', 'https://img.example.net/b']);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', /refused URL/],
    ['https://127.0.0.1/admin', /refused URL/],
    ['https://elsewhere.example.org/', /refused URL/],
  ])('refuses a redirect to %s without fetching it', async (location, reason) => {
    const fetched: string[] = [];
    const outcome = await followAllowed(new URL('https://cdn.example.com/a'), {
      policy,
      lookup,
      maxRedirects: 5,
      fetch: async (url) => {
        fetched.push(url.href);
        return response(301, location);
      },
    });
    expect('blocked' in outcome && outcome.blocked).toMatch(reason);
    expect(fetched).toEqual(['https://cdn.example.com/a']);
  });

  it('refuses an allowed name that resolves to a private address, before fetching', async () => {
    let fetches = 0;
    const outcome = await followAllowed(new URL('https://rebind.example.com/x'), {
      policy,
      lookup,
      maxRedirects: 5,
      fetch: async () => {
        fetches++;
        return response(200);
      },
    });
    expect('blocked' in outcome && outcome.blocked).toMatch(/non-public address/);
    expect(fetches).toBe(0);
  });

  it('gives up after maxRedirects hops', async () => {
    const outcome = await followAllowed(new URL('https://cdn.example.com/0'), {
      policy,
      lookup,
      maxRedirects: 3,
      fetch: async (url) => response(302, `https://cdn.example.com/${Number(url.pathname.slice(1)) + 1}`),
    });
    expect('blocked' in outcome && outcome.blocked).toMatch(/more than 3 redirects/);
  });
});
