import { isIP } from 'node:net';

/**
 * Classifies IP literals for outbound policy (webhooks, render network). Loopback, private,
 * link-local (incl. the 169.254.169.254 metadata address), CGNAT, unspecified, multicast,
 * and IPv6 unique-local / link-local / mapped-private addresses are not public.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPublicV4(address);
  if (family === 6) return isPublicV6(address.toLowerCase());
  return false;
}

function isPublicV4(a: string): boolean {
  const [p0, p1] = a.split('.').map(Number) as [number, number, number, number];
  if (p0 === 0 || p0 === 10 || p0 === 127) return false;
  if (p0 === 169 && p1 === 254) return false;
  if (p0 === 172 && p1 >= 16 && p1 <= 31) return false;
  if (p0 === 192 && p1 === 168) return false;
  if (p0 === 100 && p1 >= 64 && p1 <= 127) return false; // CGNAT
  if (p0 === 192 && p1 === 0) return false; // IETF protocol assignments, incl. 192.0.0.0/24
  if (p0 === 198 && (p1 === 18 || p1 === 19)) return false; // benchmarking
  if (p0 >= 224) return false; // multicast, reserved, broadcast
  return true;
}

function isPublicV6(a: string): boolean {
  if (a === '::' || a === '::1') return false;
  const embedded = embeddedV4(a);
  if (embedded) return isPublicV4(embedded);
  if (/^f[cd]/.test(a)) return false; // unique local fc00::/7
  if (/^fe[89ab]/.test(a)) return false; // link-local fe80::/10
  if (/^ff/.test(a)) return false; // multicast
  if (a.startsWith('fd00:ec2::254')) return false; // AWS IMDS over IPv6
  return true;
}

/**
 * The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d, or the hex form ::ffff:7f00:1 that
 * URL parsers produce) or NAT64 (64:ff9b::/96) IPv6 address, so it is judged as IPv4.
 */
function embeddedV4(a: string): string | undefined {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(a);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}
