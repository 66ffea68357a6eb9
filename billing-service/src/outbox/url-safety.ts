import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** How webhook URLs are checked, at create/update and again at each delivery. */
export interface WebhookUrlSafety {
  /** RENEW_WEBHOOK_ALLOW_HTTP: http:// endpoints are accepted (development, tests). */
  allowHttp?: boolean;
  /** RENEW_WEBHOOK_ALLOW_PRIVATE: hosts resolving to private, loopback, link-local… addresses are accepted. */
  allowPrivate?: boolean;
  /** Resolves a host name to its addresses (default: the system resolver, every address). Tests give a stand-in. */
  resolve?: (host: string) => Promise<ResolvedAddress[]>;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Why a URL is refused, in words for the client (400 keyed on `url`) or the attempt's error. */
export class UnsafeUrlError extends Error {}

export async function systemResolve(host: string): Promise<ResolvedAddress[]> {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

/** The URL's form: absolute, https (or http when allowed), no credentials. Returns it parsed. */
export function checkUrlForm(raw: string, safety: WebhookUrlSafety): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && safety.allowHttp)) {
    throw new UnsafeUrlError(safety.allowHttp ? 'must be an http or https URL' : 'must be an https URL');
  }
  if (url.username || url.password) throw new UnsafeUrlError('must not contain credentials');
  if (!url.hostname) throw new UnsafeUrlError('must have a host');
  return url;
}

/** The host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The addresses the URL's host stands for, every one checked: an IP literal is itself, a name is
 * resolved. Throws UnsafeUrlError when one is not a public address (unless allowPrivate) or the
 * name does not resolve. A delivery then connects to these addresses only.
 */
export async function resolveSafely(url: URL, safety: WebhookUrlSafety): Promise<ResolvedAddress[]> {
  const host = hostOf(url);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (safety.resolve ?? systemResolve)(host);
    } catch (error) {
      throw new UnsafeUrlError(`host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (addresses.length === 0) throw new UnsafeUrlError(`host ${host} could not be resolved`);
  }
  if (!safety.allowPrivate) {
    for (const a of addresses) {
      const why = forbiddenAddressReason(a.address);
      if (!why) continue;
      // What a name resolves to stays unsaid: the answer would map the network behind this server.
      throw new UnsafeUrlError(
        literal
          ? `${host} is ${why}; only public addresses are allowed`
          : `host ${host} does not resolve to a public address; only public addresses are allowed`,
      );
    }
  }
  return addresses;
}

/** Form and addresses: what create and update check (a name that does not resolve within `timeoutMs` is refused). */
export async function checkWebhookUrl(raw: string, safety: WebhookUrlSafety, timeoutMs = 5_000): Promise<URL> {
  const url = checkUrlForm(raw, safety);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      resolveSafely(url, safety),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new UnsafeUrlError(`host ${hostOf(url)} could not be resolved within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
  return url;
}

// ---------------------------------------------------------------- address ranges

/**
 * ipaddr.js's names for the ranges (its maintained table of IANA special-purpose addresses), in words.
 * Only `unicast` (none of its special ranges) may receive webhooks; a name not listed here is refused as "reserved".
 */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (CGNAT) address',
  private: 'a private address',
  uniqueLocal: 'a unique local (private) address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  benchmarking: 'a benchmarking address',
};

const rangeWords = (range: string) => RANGE_WORDS[range] ?? 'a reserved address';

/** The IPv4 address in 32 bits of an IPv6 address, from 16-bit part `at` on. */
function v4At(parts: number[], at: number, xor = 0): ipaddr.IPv4 {
  const bits = ((((parts[at] ?? 0) << 16) | (parts[at + 1] ?? 0)) ^ xor) >>> 0;
  return new ipaddr.IPv4([bits >>> 24, (bits >>> 16) & 0xff, (bits >>> 8) & 0xff, bits & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, which a translator, relay or tunnel would reach
 * in its place: null when it carries none, [] when it is of a layout that cannot be decoded.
 */
function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const parts = address.parts;
  const range = address.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:0:0/96
    case 'rfc6145': // ::ffff:0:0:0/96, IPv4-translated
      return [v4At(parts, 6)];
    case 'rfc6052': // NAT64: 64:ff9b::/96, and the local-use 64:ff9b:1::/48 when it has the /96 layout
      if (parts.slice(3, 6).every((p) => p === 0)) return [v4At(parts, 6)];
      return []; // an operator's own prefix length puts the IPv4 bits elsewhere: refused, not guessed
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4At(parts, 1)];
    case 'teredo': // 2001:0:server(32):flags:port:client(32, inverted)
      return [v4At(parts, 2), v4At(parts, 6, 0xffffffff)];
  }
  // ::a.b.c.d, IPv4-compatible (deprecated, still routed by some stacks); :: and ::1 are judged as IPv6.
  if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || (parts[7] ?? 0) > 1)) return [v4At(parts, 6)];
  return null;
}

function v4Reason(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : rangeWords(range);
}

/**
 * Why an address may not receive webhooks (null: a public address). IPv6 forms that carry an
 * IPv4 address (mapped, translated, NAT64, 6to4, Teredo, compatible) are judged by that address.
 */
export function forbiddenAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return v4Reason(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const carried = embeddedV4(v6);
  if (carried === null) {
    const range = v6.range();
    return range === 'unicast' ? null : rangeWords(range);
  }
  if (carried.length === 0) return 'a NAT64 address of a local prefix';
  for (const v4 of carried) {
    const why = v4Reason(v4);
    if (why) return `${why} (IPv4 in IPv6)`;
  }
  return null;
}
