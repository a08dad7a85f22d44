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
    expect(mapped.addressesAllowed(['::ffff:7f00:1'])).toBe(false);
    expect(mapped.addressesAllowed(['::ffff:127.0.0.1'])).toBe(false);
    expect(mapped.addressesAllowed(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])).toBe(true);
    expect(mapped.addressesAllowed([])).toBe(false);
  });

  // Issue 7: the render allow-list uses the same address policy as webhooks.
  it.each([
    '::127.0.0.1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::1',
    '64:ff9b:1::a9fe:a9fe',
    '::ffff:0:7f00:1',
    'fec0::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:db8::1',
    '198.18.0.1',
    '100.100.100.200',
  ])('refuses an allowed host that resolves to %s', (address) => {
    expect(policy.addressesAllowed([address])).toBe(false);
    expect(policy.addressesAllowed(['93.184.216.34', address])).toBe(false);
  });

  it.each([
    'https://[::127.0.0.1]/x',
    'https://[2002:7f00:1::1]/x',
    'https://[::ffff:0:a9fe:a9fe]/x',
    'https://0177.0.0.1/x',
    'https://2852039166/x',
  ])('blocks the IP literal %s even when it is listed', (url) => {
    const listed = new NetworkPolicy([new URL(url).hostname]);
    const decision = listed.decide(url);
    expect(decision.kind).toBe('block');
    expect(decision.kind === 'block' && decision.reason).toMatch(/not public/);
  });

  it('opens private addresses to allowed hosts only when asked, and never loopback or metadata', () => {
    const internal = new NetworkPolicy(['assets.internal', '10.0.0.5'], { allowPrivate: true });
    expect(internal.addressesAllowed(['10.0.0.5'])).toBe(true);
    expect(internal.addressesAllowed(['fd00::2'])).toBe(true);
    expect(internal.decide('https://10.0.0.5/x').kind).toBe('fetch');
    for (const never of ['127.0.0.1', '::1', '::ffff:7f00:1', '169.254.169.254', 'fd00:ec2::254', '100.100.100.200']) {
      expect(internal.addressesAllowed([never]), never).toBe(false);
    }
    expect(policy.addressesAllowed(['10.0.0.5'])).toBe(false);
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
    status,
    headers: (location ? { location } : {}) as Record<string, string>,
  });

  it('fetches an allowed host and follows redirects between allowed hosts', async () => {
    const fetched: string[] = [];
    const outcome = await followAllowed(new URL('https://cdn.example.com/a'), {
      policy,
      lookup,
      maxRedirects: 5,
      fetch: async (url, addresses) => {
        fetched.push(`${url.href} via ${addresses.join(' ')}`);
        return url.hostname === 'cdn.example.com' ? response(302, 'https://img.example.net/b') : response(200);
      },
    });
    expect('response' in outcome && outcome.response.status).toBe(200);
    // Each hop connects to the address it vetted, not to a fresh DNS answer.
    expect(fetched).toEqual([
      'https://cdn.example.com/a via 93.184.216.34',
      'https://img.example.net/b via 2606:2800:220:1:248:1893:25c8:1946',
    ]);
  });

  it('resolves each hop once, and dials the vetted answer even if the name would answer loopback next', async () => {
    let lookups = 0;
    const rebinding: LookupAll = async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']);
    const dialled: string[] = [];
    const outcome = await followAllowed(new URL('https://cdn.example.com/a'), {
      policy,
      lookup: rebinding,
      maxRedirects: 5,
      fetch: async (_url, addresses) => {
        dialled.push(...addresses);
        return response(200);
      },
    });
    expect('response' in outcome).toBe(true);
    expect(lookups).toBe(1);
    expect(dialled).toEqual(['93.184.216.34']);
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
