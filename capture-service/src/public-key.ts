import { wallClockNow } from '@renew/billing-service';
import { accountForKeyHash, hashApiKey } from '@renew/billing-service/accounts';
import type { Db } from '@renew/billing-service/db';
import { ApiError, type Caller } from '@renew/billing-service/http';

/** Recorded in the audit log as the source of every change made through the capture host. */
export const CAPTURE_AUDIT_SOURCE = 'Card capture';

const CACHE_MS = 30_000;

/**
 * Resolves `publicApiKey` to its account. Only a public key is accepted: a
 * private key sent here (it would be sitting in a web page) is refused like an
 * unknown key. Hits are cached for 30 s, as on the billing API.
 */
export class PublicKeyAuthenticator {
  private readonly cache = new Map<string, { caller: Caller; expires: number }>();

  constructor(private readonly db: Db) {}

  async authenticate(publicApiKey: unknown): Promise<Caller> {
    if (typeof publicApiKey !== 'string' || publicApiKey.length === 0) {
      throw ApiError.unauthorized('publicApiKey required: send the public API key of the account');
    }
    if (publicApiKey.length > 512) throw ApiError.unauthorized('publicApiKey not valid for this environment');
    const keyHash = hashApiKey(publicApiKey);
    const now = wallClockNow().getTime();
    const cached = this.cache.get(keyHash);
    if (cached && cached.expires > now) return cached.caller;
    const account = await accountForKeyHash(this.db, keyHash);
    if (account?.keyKind === 'private') {
      throw ApiError.unauthorized(
        'a private API key is never accepted here; send the public API key (the private key must not appear in web pages)',
      );
    }
    if (!account) {
      throw ApiError.unauthorized('publicApiKey not valid for this environment');
    }
    const caller: Caller = {
      accountId: account.id,
      keyKind: 'public',
      auditSource: CAPTURE_AUDIT_SOURCE,
      rateLimits: { perMinute: account.rateLimitPerMinute, perDay: account.rateLimitPerDay },
      keyHash,
    };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(keyHash, { caller, expires: now + CACHE_MS });
    return caller;
  }
}
