import { BlockList, isIP } from 'node:net';

/**
 * The addresses a delivery never connects to (docs/api.md 17.2, SSRF): the service's own
 * host and network, the cloud's metadata service, and every range that is not a public
 * unicast address. An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, or NAT64's
 * `64:ff9b::10.0.0.1`) is judged as the IPv4 address it names.
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT, RFC 6598
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. the metadata service 169.254.169.254
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address 255.255.255.255
] as const) {
  refused.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
] as const) {
  refused.addSubnet(network, prefix, 'ipv6');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The IPv4 address an IPv6 address embeds (IPv4-mapped, IPv4-compatible or NAT64), if any. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:(?:0:)?|::|64:ff9b::)(.+)$/i.exec(address);
  const tail = match?.[1];
  if (!tail) return undefined;
  if (isIP(tail) === 4) return tail;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(tail);
  if (!hex?.[1] || !hex[2]) return undefined;
  const high = Number.parseInt(hex[1], 16);
  const low = Number.parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The address as the family it really is: an embedded IPv4 address as IPv4. */
function normalized(address: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return { address: bare, family: 'ipv4' };
  if (version !== 6) return undefined;
  const ipv4 = embeddedIpv4(bare.toLowerCase());
  return ipv4 ? { address: ipv4, family: 'ipv4' } : { address: bare, family: 'ipv6' };
}

/** Whether `address` (an IP literal) is a loopback address, also written as IPv6. */
export function isLoopback(address: string): boolean {
  const ip = normalized(address);
  return ip !== undefined && loopback.check(ip.address, ip.family);
}

/**
 * Whether a delivery may connect to `address`: a public unicast address, or a loopback
 * one when `allowLoopback` (only against DynamoDB Local: `npm start` and the tests).
 * Anything that is not an IP literal is refused.
 */
export function isDeliverableAddress(address: string, allowLoopback: boolean): boolean {
  const ip = normalized(address);
  if (!ip) return false;
  if (allowLoopback && loopback.check(ip.address, ip.family)) return true;
  return !refused.check(ip.address, ip.family);
}
