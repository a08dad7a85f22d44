import ipaddr from 'ipaddr.js';

/**
 * How far an address reaches, which decides who may connect to it:
 * - `global`: public internet unicast, the only scope that passes by default;
 * - `private`: RFC 1918, CGNAT, IPv6 unique-local — an operator may open these (internal networks);
 * - `loopback`: this machine — an operator may open it (tests, sidecars);
 * - `refused`: never, whatever the settings: cloud metadata, link-local, unspecified, multicast,
 *   broadcast, reserved, documentation and benchmarking ranges, deprecated site-local, local-use
 *   NAT64, anything that is not an address.
 */
export type AddressScope = 'global' | 'private' | 'loopback' | 'refused';

export interface AddressJudgement {
  scope: AddressScope;
  /** The range that decided, and the IPv4 address judged when it was found inside an IPv6 one. */
  why: string;
}

/** Which non-global scopes a caller opens on top of `global` (operator settings). */
export interface AddressOpenings {
  private?: boolean;
  loopback?: boolean;
}

/** The one outbound address rule of Pressroom: webhooks, render allow-lists, tenant S3 endpoints. */
export function addressPermitted(address: string, open: AddressOpenings = {}): boolean {
  const { scope } = judgeAddress(address);
  return scope === 'global' || (scope === 'private' && open.private === true) || (scope === 'loopback' && open.loopback === true);
}

/** True only for global unicast addresses (after unwrapping any IPv4 address an IPv6 one embeds). */
export function isPublicAddress(address: string): boolean {
  return judgeAddress(address).scope === 'global';
}

/**
 * Metadata and platform services that answer any instance that asks, whatever range they sit in:
 * they are refused even where their range could be opened (100.100.100.200 is inside CGNAT,
 * fd00:ec2::254 inside unique-local, 168.63.129.16 is public space).
 */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16', '192.0.0.192', 'fd00:ec2::254']);

/**
 * Deny by default: a range name from ipaddr.js maps to a scope only when listed here, so a range a
 * later ipaddr.js version adds is refused until someone decides otherwise.
 */
const V4_SCOPES: Record<string, AddressScope> = {
  unicast: 'global',
  as112: 'global',
  amt: 'global',
  private: 'private',
  carrierGradeNat: 'private',
  loopback: 'loopback',
};

/** IPv6 ranges with their own scope; the IPv4-embedding ones are unwrapped before these apply. */
const V6_SCOPES: Record<string, AddressScope> = {
  unicast: 'global',
  as112v6: 'global',
  amt: 'global',
  uniqueLocal: 'private',
  loopback: 'loopback',
};

const MAX_ADDRESS_TEXT = 64;

/** Global unicast space (RFC 4291); `unicast` outside it is unassigned and refused. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
/** Local-use NAT64 (RFC 8215): local by definition, and where it embeds IPv4 depends on the local prefix length. */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];

/**
 * Judges one IP address given as text: a URL host (brackets removed), a DNS answer, an address a
 * socket is about to dial. IPv4 is read the way resolvers and URL parsers read it (octal, hex and
 * single-number forms included), so `0177.1` is loopback here as it is to `connect`. Every IPv6
 * form that carries an IPv4 address (mapped, compatible, SIIT, NAT64, 6to4, Teredo, ISATAP) is
 * judged by that IPv4 address, because that is where the packets may end up.
 */
export function judgeAddress(text: string): AddressJudgement {
  // The longest real form (full IPv6 with dotted IPv4 and a zone) is far below this; refusing
  // longer text keeps the parser's work bounded whatever a caller hands in.
  if (text.length > MAX_ADDRESS_TEXT) return { scope: 'refused', why: 'not an IP address' };
  if (!ipaddr.isValid(text)) return { scope: 'refused', why: 'not an IP address' };
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv4') return judgeV4(address as ipaddr.IPv4);
  return judgeV6(address as ipaddr.IPv6);
}

function judgeV4(address: ipaddr.IPv4): AddressJudgement {
  const text = address.toString();
  if (METADATA.has(text)) return { scope: 'refused', why: `${text} is a metadata service` };
  const range = address.range();
  return { scope: V4_SCOPES[range] ?? 'refused', why: `${text} is ${range}` };
}

function judgeV6(address: ipaddr.IPv6): AddressJudgement {
  // A zone (fe80::1%eth0) only makes sense on a link; no outbound target needs one.
  if (address.zoneId) return { scope: 'refused', why: 'scoped address' };
  const text = address.toString();
  if (METADATA.has(text)) return { scope: 'refused', why: `${text} is a metadata service` };
  if (address.match(LOCAL_NAT64)) return { scope: 'refused', why: `${text} is local-use NAT64` };
  const embedded = embeddedV4(address);
  if (embedded) {
    const inner = judgeV4(embedded.v4);
    return { scope: inner.scope, why: `${inner.why} (inside ${embedded.form} ${text})` };
  }
  const range = address.range();
  let scope = V6_SCOPES[range] ?? 'refused';
  if (range === 'unicast' && !address.match(GLOBAL_UNICAST_V6)) scope = 'refused';
  const own: AddressJudgement = { scope, why: `${text} is ${range === 'unicast' && scope === 'refused' ? 'unassigned' : range}` };
  return withIsatap(address, own);
}

/** The IPv4 address inside the IPv6 forms defined to carry one at a fixed place. */
function embeddedV4(address: ipaddr.IPv6): { form: string; v4: ipaddr.IPv4 } | undefined {
  const p = address.parts;
  const last32 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // SIIT, ::ffff:0:a.b.c.d
      return { form: range === 'ipv4Mapped' ? 'IPv4-mapped' : 'SIIT', v4: last32(p[6]!, p[7]!) };
    case 'rfc6052': // the well-known prefix 64:ff9b::/96 (local-use was refused before)
      return { form: 'NAT64', v4: last32(p[6]!, p[7]!) };
    case '6to4': // 2002:AABB:CCDD::/48
      return { form: '6to4', v4: last32(p[1]!, p[2]!) };
    case 'teredo': {
      // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC — server in clear, client XORed with all ones. A
      // packet goes to both: the worse of the two decides.
      const server = last32(p[2]!, p[3]!);
      const client = last32(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
      return { form: 'Teredo', v4: rank(judgeV4(client).scope) <= rank(judgeV4(server).scope) ? client : server };
    }
  }
  // IPv4-compatible (deprecated ::a.b.c.d): the first 96 bits are zero; :: and ::1 are their own ranges.
  if (p.slice(0, 6).every((x) => x === 0) && (range === 'unicast' || range === 'reserved')) {
    return { form: 'IPv4-compatible', v4: last32(p[6]!, p[7]!) };
  }
  return undefined;
}

/**
 * ISATAP (RFC 5214) puts an IPv4 address in the interface identifier (`::0:5efe:a.b.c.d`, or
 * `::200:5efe:…` when it is globally unique) under any prefix: the worse of prefix and IPv4 decides.
 */
function withIsatap(address: ipaddr.IPv6, own: AddressJudgement): AddressJudgement {
  const p = address.parts;
  if ((p[4]! & 0xfcff) !== 0 || p[5] !== 0x5efe) return own;
  const inner = judgeV4(new ipaddr.IPv4([p[6]! >> 8, p[6]! & 255, p[7]! >> 8, p[7]! & 255]));
  if (rank(inner.scope) >= rank(own.scope)) return own;
  return { scope: inner.scope, why: `${inner.why} (inside ISATAP ${address.toString()})` };
}

/** Lower is more restrictive. */
function rank(scope: AddressScope): number {
  return { refused: 0, loopback: 1, private: 2, global: 3 }[scope];
}
