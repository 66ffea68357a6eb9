import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

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
      if (why) throw new UnsafeUrlError(`host ${host} resolves to ${a.address}, ${why}; only public addresses are allowed`);
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
        timer = setTimeout(() => reject(new UnsafeUrlError(`host ${hostOf(url)} could not be resolved within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
  return url;
}

// ---------------------------------------------------------------- address ranges

type Range = { prefix: number[]; bits: number; why: string };

const V4_RANGES: Range[] = [
  { prefix: [0, 0, 0, 0], bits: 8, why: 'an unspecified ("this network") address' },
  { prefix: [10, 0, 0, 0], bits: 8, why: 'a private address' },
  { prefix: [100, 64, 0, 0], bits: 10, why: 'a shared (CGNAT) address' },
  { prefix: [127, 0, 0, 0], bits: 8, why: 'a loopback address' },
  { prefix: [169, 254, 0, 0], bits: 16, why: 'a link-local address' },
  { prefix: [172, 16, 0, 0], bits: 12, why: 'a private address' },
  { prefix: [192, 0, 0, 0], bits: 24, why: 'a reserved address' },
  { prefix: [192, 0, 2, 0], bits: 24, why: 'a documentation address' },
  { prefix: [192, 168, 0, 0], bits: 16, why: 'a private address' },
  { prefix: [198, 18, 0, 0], bits: 15, why: 'a benchmarking address' },
  { prefix: [198, 51, 100, 0], bits: 24, why: 'a documentation address' },
  { prefix: [203, 0, 113, 0], bits: 24, why: 'a documentation address' },
  { prefix: [224, 0, 0, 0], bits: 4, why: 'a multicast address' },
  { prefix: [240, 0, 0, 0], bits: 4, why: 'a reserved address' },
];

// IPv6 as 16 bytes.
const V6_RANGES: Range[] = [
  { prefix: [], bits: 128, why: 'the unspecified address' },
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], bits: 128, why: 'a loopback address' },
  { prefix: [0x01, 0x00], bits: 64, why: 'a discard-only address' },
  { prefix: [0x20, 0x01, 0x0d, 0xb8], bits: 32, why: 'a documentation address' },
  { prefix: [0xfc], bits: 7, why: 'a unique local (private) address' },
  { prefix: [0xfe, 0x80], bits: 10, why: 'a link-local address' },
  { prefix: [0xfe, 0xc0], bits: 10, why: 'a site-local address' },
  { prefix: [0xff], bits: 8, why: 'a multicast address' },
];

function inRange(bytes: number[], range: Range): boolean {
  for (let bit = 0; bit < range.bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[byte]! & mask) !== ((range.prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (zone id dropped, an embedded dotted quad read as two groups). */
function v6Bytes(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, quad.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  let groups: string[];
  if (text.includes('::')) {
    const [head, rest] = text.split('::') as [string, string];
    const headGroups = head ? head.split(':') : [];
    const restGroups = rest ? rest.split(':') : [];
    groups = [...headGroups, ...Array(Math.max(0, 8 - headGroups.length - restGroups.length)).fill('0'), ...restGroups];
  } else {
    groups = text.split(':');
  }
  return groups.slice(0, 8).flatMap((g) => {
    const n = parseInt(g || '0', 16);
    return [(n >> 8) & 0xff, n & 0xff];
  });
}

/** Why an address may not receive webhooks (null: a public address). IPv4-mapped and NAT64 IPv6 are judged by their IPv4 address. */
export function forbiddenAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) {
    const bytes = v4Bytes(address);
    return V4_RANGES.find((r) => inRange(bytes, r))?.why ?? null;
  }
  if (family !== 6) return 'not an IP address';
  const bytes = v6Bytes(address);
  const zeros = (n: number) => bytes.slice(0, n).every((b) => b === 0);
  // ::ffff:a.b.c.d (IPv4-mapped), ::a.b.c.d (IPv4-compatible, deprecated), 64:ff9b::a.b.c.d (NAT64).
  const mapped = zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const compatible = zeros(12) && !zeros(16) && !(zeros(15) && bytes[15] === 1);
  const nat64 = bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes.slice(4, 12).every((b) => b === 0);
  if (mapped || compatible || nat64) {
    const v4 = V4_RANGES.find((r) => inRange(bytes.slice(12), r));
    return v4 ? `${v4.why} (IPv4 in IPv6)` : null;
  }
  if (zeros(16)) return 'the unspecified address';
  return V6_RANGES.slice(1).find((r) => inRange(bytes, r))?.why ?? null;
}
