/**
 * An account's allowed shop domains (catalogue `capture.allowedShopDomains`).
 * Each entry is one of:
 *   - an origin, `https://shop.example.com` or `http://localhost:3000`: that exact origin;
 *   - a host name, `shop.example.com`: that host over http or https, any port;
 *   - a wildcard, `*.example.com`: any subdomain of example.com (not example.com itself).
 * Matching ignores case. CAPTCHA hostnames are matched against the entries' host names.
 */
interface DomainRule {
  /** Exact origin (scheme://host[:port]) when the entry was an origin. */
  origin?: string;
  host?: string;
  /** `.example.com` for `*.example.com`. */
  suffix?: string;
}

function parseRule(entry: string): DomainRule | undefined {
  const value = entry.trim().toLowerCase().replace(/\/+$/, '');
  if (!value) return undefined;
  if (value.startsWith('*.')) return { suffix: value.slice(1) };
  if (value.includes('://')) {
    try {
      const url = new URL(value);
      return { origin: url.origin, host: url.hostname };
    } catch {
      return undefined;
    }
  }
  return { host: value.replace(/:\d+$/, '') };
}

function hostMatches(rule: DomainRule, host: string): boolean {
  if (rule.suffix) return host.endsWith(rule.suffix) && host.length > rule.suffix.length;
  return rule.host === host;
}

export class ShopDomains {
  private readonly rules: DomainRule[];

  constructor(entries: readonly string[]) {
    this.rules = entries.map(parseRule).filter((r): r is DomainRule => r !== undefined);
  }

  /** No domains listed: every origin and hostname is allowed. */
  get restricted(): boolean {
    return this.rules.length > 0;
  }

  /** Whether a browser Origin header value may use the capture host for this account. */
  allowsOrigin(origin: string): boolean {
    if (!this.restricted) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // "null" and anything else that is not an origin
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
    const normalised = url.origin.toLowerCase();
    const host = url.hostname.toLowerCase();
    return this.rules.some((rule) => (rule.origin ? rule.origin === normalised : hostMatches(rule, host)));
  }

  /**
   * The CSP `frame-ancestors` sources that let exactly these sites embed the
   * hosted card fields: an origin as is, a host name or wildcard over http and
   * https on any port. `*` when nothing is listed; `'none'` when every entry is
   * unusable in a policy (a list that restricts must never widen to anyone).
   */
  frameAncestors(): string {
    if (!this.restricted) return '*';
    const sources = this.rules.flatMap((rule) => {
      if (rule.origin) return [rule.origin];
      const host = rule.suffix ? `*${rule.suffix}` : rule.host;
      return [`http://${host}:*`, `https://${host}:*`];
    });
    // Only what a CSP host-source may be: nothing that could end the directive or add another.
    const safe = sources.filter((source) =>
      /^https?:\/\/(\*\.)?[a-z0-9.-]+(:(\d{1,5}|\*))?$|^https?:\/\/\[[0-9a-f:.]+\](:(\d{1,5}|\*))?$/.test(source),
    );
    return safe.length > 0 ? [...new Set(safe)].join(' ') : "'none'";
  }

  /** Whether the site a CAPTCHA was solved on (siteverify `hostname`) is one of the shop's. */
  allowsHostname(hostname: string | undefined): boolean {
    if (!this.restricted) return true;
    if (!hostname) return false;
    const host = hostname.trim().toLowerCase();
    return this.rules.some((rule) => hostMatches(rule, host));
  }
}
