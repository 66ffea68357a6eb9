import ipaddr from 'ipaddr.js';

/**
 * The part of a client address that one per-address budget counts: an IPv4 address as it is,
 * an IPv6 address by its /64. One subscriber usually gets a whole /64 and can send from any of
 * its 2^64 addresses, so counting each address apart would give one client millions of budgets.
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, a dual-stack socket) is its IPv4 address.
 */
export function addressBudgetKey(ip: string): string {
  const address = ip.replace(/%.*$/, ''); // a zone (fe80::1%eth0) names an interface, not a client
  if (!ipaddr.IPv6.isValid(address)) return ip;
  const parsed = ipaddr.IPv6.parse(address);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  return `${parsed.parts
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
