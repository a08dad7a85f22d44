import { describe, expect, it } from 'vitest';
import { addressPermitted, isPublicAddress, judgeAddress, type AddressScope } from './address-policy.ts';

// Every encoding an attacker can hand us (a URL host after WHATWG parsing, a DNS answer, an
// operator-typed endpoint), with the scope the policy must give it. Only 'global' passes by default.
const table: [string, AddressScope, string][] = [
  // Plain IPv4
  ['93.184.216.34', 'global', 'public IPv4'],
  ['8.8.8.8', 'global', 'public IPv4'],
  ['172.32.0.1', 'global', 'just outside 172.16.0.0/12'],
  ['192.31.196.1', 'global', 'AS112 (globally reachable)'],
  ['127.0.0.1', 'loopback', 'loopback'],
  ['127.255.255.254', 'loopback', 'loopback /8'],
  ['10.1.2.3', 'private', 'RFC 1918'],
  ['172.16.0.1', 'private', 'RFC 1918'],
  ['172.31.255.255', 'private', 'RFC 1918'],
  ['192.168.1.1', 'private', 'RFC 1918'],
  ['100.64.0.1', 'private', 'CGNAT'],
  ['169.254.169.254', 'refused', 'metadata (link-local)'],
  ['169.254.170.2', 'refused', 'ECS task metadata (link-local)'],
  ['100.100.100.200', 'refused', 'Alibaba metadata (inside CGNAT)'],
  ['168.63.129.16', 'refused', 'Azure wire server'],
  ['169.254.0.1', 'refused', 'link-local'],
  ['0.0.0.0', 'refused', 'unspecified'],
  ['0.1.2.3', 'refused', '"this network"'],
  ['224.0.0.1', 'refused', 'multicast'],
  ['239.255.255.250', 'refused', 'multicast (SSDP)'],
  ['255.255.255.255', 'refused', 'broadcast'],
  ['240.0.0.1', 'refused', 'reserved'],
  ['192.0.0.8', 'refused', 'IETF protocol assignments'],
  ['192.0.0.192', 'refused', 'Oracle metadata (IETF protocol assignments)'],
  ['192.0.2.1', 'refused', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'refused', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'refused', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'refused', 'benchmarking'],
  ['198.19.255.255', 'refused', 'benchmarking'],
  ['192.88.99.1', 'refused', '6to4 relay anycast (deprecated)'],
  // Loose IPv4 notations (inet_aton, WHATWG URL hosts) read the way a resolver reads them
  ['0177.0.0.1', 'loopback', 'octal'],
  ['0x7f.0.0.1', 'loopback', 'hex'],
  ['0x7f000001', 'loopback', 'one hex number'],
  ['2130706433', 'loopback', 'one decimal number'],
  ['127.1', 'loopback', 'two parts'],
  ['0251.0376.0251.0376', 'refused', 'metadata in octal'],
  ['2852039166', 'refused', 'metadata as one number'],
  ['017700000001', 'loopback', 'one octal number'],
  // Plain IPv6
  ['2606:4700::1111', 'global', 'public IPv6'],
  ['2a00:1450:4001:82b::200e', 'global', 'public IPv6'],
  ['2001:4:112::1', 'global', 'AS112 v6'],
  ['::1', 'loopback', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback', 'loopback, long form'],
  ['::', 'refused', 'unspecified'],
  ['fe80::1', 'refused', 'link-local'],
  ['fe80::1%eth0', 'refused', 'link-local with a zone'],
  ['fd00::1', 'private', 'unique local'],
  ['fc00::1', 'private', 'unique local'],
  ['fd00:ec2::254', 'refused', 'AWS metadata over IPv6'],
  ['fec0::1', 'refused', 'site-local (deprecated)'],
  ['feff::1', 'refused', 'site-local (deprecated)'],
  ['ff02::1', 'refused', 'multicast'],
  ['ff05::1:3', 'refused', 'multicast'],
  ['100::1', 'refused', 'discard'],
  ['2001:db8::1', 'refused', 'documentation'],
  ['3fff::1', 'refused', 'documentation (RFC 9637)'],
  ['2001:2::1', 'refused', 'benchmarking'],
  ['2001:10::1', 'refused', 'ORCHID'],
  ['2001:20::1', 'refused', 'ORCHIDv2 (not routable)'],
  ['2001:1::1', 'refused', 'IETF protocol assignments'],
  ['5f00::1', 'refused', 'segment routing'],
  ['4000::1', 'refused', 'outside 2000::/3 (unassigned)'],
  ['e000::1', 'refused', 'outside 2000::/3 (unassigned)'],
  // IPv4-mapped, in every notation: judged by the IPv4 inside
  ['::ffff:127.0.0.1', 'loopback', 'mapped, dotted'],
  ['::ffff:7f00:1', 'loopback', 'mapped, hex (what the URL parser writes)'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback', 'mapped, long form'],
  ['::ffff:a9fe:a9fe', 'refused', 'mapped metadata'],
  ['::ffff:10.0.0.1', 'private', 'mapped private'],
  ['::ffff:8.8.8.8', 'global', 'mapped public'],
  ['::ffff:808:808', 'global', 'mapped public, hex'],
  // IPv4-compatible (deprecated ::/96)
  ['::7f00:1', 'loopback', 'compatible, hex'],
  ['::127.0.0.1', 'loopback', 'compatible, dotted'],
  ['::a9fe:a9fe', 'refused', 'compatible metadata'],
  ['::0.0.0.2', 'refused', 'compatible "this network"'],
  ['::808:808', 'global', 'compatible public'],
  // SIIT / IPv4-translated ::ffff:0:0:0/96
  ['::ffff:0:7f00:1', 'loopback', 'SIIT loopback'],
  ['::ffff:0:a9fe:a9fe', 'refused', 'SIIT metadata'],
  ['::ffff:0:808:808', 'global', 'SIIT public'],
  // NAT64
  ['64:ff9b::7f00:1', 'loopback', 'NAT64 well-known, hex'],
  ['64:ff9b::127.0.0.1', 'loopback', 'NAT64 well-known, dotted'],
  ['64:ff9b::a9fe:a9fe', 'refused', 'NAT64 well-known metadata'],
  ['64:ff9b::808:808', 'global', 'NAT64 well-known public'],
  ['64:ff9b:1::7f00:1', 'refused', 'NAT64 local-use (never global)'],
  ['64:ff9b:1:7f00:1::', 'refused', 'NAT64 local-use /48 layout'],
  ['64:ff9b:1::808:808', 'refused', 'NAT64 local-use, public inside: still local-use'],
  // 6to4 2002::/16
  ['2002:7f00:1::1', 'loopback', '6to4 loopback'],
  ['2002:a9fe:a9fe::1', 'refused', '6to4 metadata'],
  ['2002:a00:1::1', 'private', '6to4 private'],
  ['2002:c000:201::1', 'refused', '6to4 documentation'],
  ['2002:808:808::1', 'global', '6to4 public'],
  // Teredo 2001::/32: server IPv4 in bits 32-63, client IPv4 XORed in the last 32 bits
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'Teredo, client 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'refused', 'Teredo, client 169.254.169.254 (metadata)'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'global', 'Teredo, client 8.8.8.8, server 65.54.227.120'],
  ['2001:0:7f00:1:8000:63bf:f7f7:f7f7', 'loopback', 'Teredo, server 127.0.0.1'],
  // ISATAP interface identifiers: judged by the IPv4 inside too
  ['2606:4700::5efe:7f00:1', 'loopback', 'ISATAP, loopback inside'],
  ['2606:4700::200:5efe:a9fe:a9fe', 'refused', 'ISATAP (universal), metadata inside'],
  ['2606:4700::5efe:808:808', 'global', 'ISATAP, public inside'],
  ['fe80::5efe:808:808', 'refused', 'ISATAP on a link-local prefix'],
  // Not addresses at all
  ['localhost', 'refused', 'a name'],
  ['[::1]', 'refused', 'brackets are not part of an address'],
  ['127.0.0.1 ', 'refused', 'trailing space'],
  ['', 'refused', 'empty'],
  ['1.2.3.4.5', 'refused', 'five parts'],
  ['::ffff:127.0.0.1:80', 'refused', 'with a port'],
  [`0x${'0'.repeat(70)}7f000001`, 'refused', 'absurdly long (refused before parsing)'],
];

describe('judgeAddress', () => {
  it.each(table)('%s is %s (%s)', (address, scope) => {
    expect(judgeAddress(address).scope).toBe(scope);
  });

  it('names the IPv4 address it judged inside an IPv6 form', () => {
    expect(judgeAddress('2002:7f00:1::1').why).toMatch(/127\.0\.0\.1.*6to4|6to4.*127\.0\.0\.1/);
    expect(judgeAddress('2001:0:4136:e378:8000:63bf:80ff:fffe').why).toMatch(/127\.0\.0\.1/);
  });
});

describe('isPublicAddress', () => {
  it.each(table)('%s passes only when global (%s)', (address, scope) => {
    expect(isPublicAddress(address)).toBe(scope === 'global');
  });
});

describe('addressPermitted', () => {
  const open = { private: true, loopback: true };

  it('lets nothing but global addresses through by default', () => {
    for (const [address, scope] of table) expect(addressPermitted(address), address).toBe(scope === 'global');
  });

  it('opens loopback and private ranges only when asked, and never the refused ones (metadata, link-local, ...)', () => {
    for (const [address, scope] of table) expect(addressPermitted(address, open), address).toBe(scope !== 'refused');
    expect(addressPermitted('10.0.0.1', { private: true })).toBe(true);
    expect(addressPermitted('127.0.0.1', { private: true })).toBe(false);
    expect(addressPermitted('::ffff:7f00:1', { private: true })).toBe(false);
    expect(addressPermitted('127.0.0.1', { loopback: true })).toBe(true);
    expect(addressPermitted('10.0.0.1', { loopback: true })).toBe(false);
  });
});
