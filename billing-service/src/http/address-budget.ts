import { isIPv6 } from 'node:net';

/**
 * The part of a client address that one per-address budget counts: an IPv4 address as it is,
 * an IPv6 address by its /64. One subscriber usually gets a whole /64 and can send from any of
 * its 2^64 addresses, so counting each address apart would give one client millions of budgets.
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, a dual-stack socket) is its IPv4 address.
 */
export function addressBudgetKey(ip: string): string {
  const address = ip.replace(/%.*$/, ''); // a zone (fe80::1%eth0) names an interface, not a client
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address.toLowerCase());
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const before = parse(head);
  const after = parse(tail);
  const zeros = tail === undefined ? [] : new Array<number>(8 - before.length - after.length).fill(0);
  return [...before, ...zeros, ...after];
}
