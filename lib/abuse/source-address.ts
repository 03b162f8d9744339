import { isIPv4, isIPv6 } from 'node:net';

/**
 * The unit the per-source limit counts (docs/api.md 10): an IPv4 address, or the /64
 * network of an IPv6 address (one subscriber usually holds a whole /64, so counting
 * single IPv6 addresses would let one host rotate through billions of them).
 * Undefined for anything that is not an address.
 */
export function sourceOf(address: string | undefined): string | undefined {
  if (!address) return undefined;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  const [head = '', tail] = address.toLowerCase().split('::');
  const groups = (text: string) => (text ? text.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail counts as two groups; it only ever ends an address, past the /64.
  const filled = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${filled
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
