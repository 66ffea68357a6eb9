import { wallClockNow } from '../clock/account-clock.js';
import type { FastifyRequest } from 'fastify';
import { hashApiKey } from '../accounts/api-keys.js';
import type { KeyKind } from '../accounts/repository.js';
import { accountForKeyHash } from '../accounts/service.js';
import type { Db } from '../db/database.js';
import { API_ERROR_KEY, ApiError } from './errors.js';

/** Who is calling: set on every authenticated request. */
export interface Caller {
  accountId: number;
  /** `system`: the service's own moves (the billing clock), not a request. */
  keyKind: KeyKind | 'system';
  /** x-audit-source, default "API": recorded with every change. */
  auditSource: string;
  rateLimits: { perMinute: number; perDay: number };
  keyHash: string;
  /** Who the audit log names; default: the key kind (`private API key`), or `system`. The portal's is `portal`. */
  actor?: string;
}

const KEY_SHAPE = /^[A-Za-z0-9_\-.~+/=:]{8,512}$/;

/**
 * `Authorization: Basic <key>` with the raw key, or the standard base64 of
 * `key:` (what HTTP clients send for a username with no password). Returns the
 * candidate keys to look up, or undefined when the header is malformed.
 */
export function keysFromAuthorizationHeader(header: string): string[] | undefined {
  const token = /^Basic\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!token) return undefined;
  if (!KEY_SHAPE.test(token)) return undefined;
  const candidates = [token];
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(token) && token.length % 4 === 0) {
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0 && /^[\x21-\x7e]+$/.test(decoded.slice(0, colon))) candidates.unshift(decoded.slice(0, colon));
  }
  return candidates;
}

interface CachedCaller {
  caller: Omit<Caller, 'auditSource'>;
  expires: number;
}

/**
 * Resolves API keys to accounts. Hits are cached for a short time (a revoked
 * key stops working within CACHE_MS); misses are never cached. A hit is also
 * cached under the Authorization header that found it, so a client sending the
 * same header again costs no parsing or hashing until the entry expires.
 */
export class ApiKeyAuthenticator {
  private static readonly CACHE_MS = 30_000;
  private readonly cache = new Map<string, CachedCaller>();
  private readonly byHeader = new Map<string, CachedCaller>();

  constructor(private readonly db: Db) {}

  async authenticate(request: FastifyRequest): Promise<Caller> {
    const header = request.headers.authorization;
    if (!header) throw ApiError.unauthorized('authorization required: send Authorization: Basic <api key>');
    const auditSourceHeader = request.headers['x-audit-source'];
    const auditSource = (Array.isArray(auditSourceHeader) ? auditSourceHeader[0] : auditSourceHeader)?.trim().slice(0, 255) || 'API';
    const now = wallClockNow().getTime();
    const known = this.byHeader.get(header);
    if (known && known.expires > now) return { ...known.caller, auditSource };
    const keys = keysFromAuthorizationHeader(header);
    if (!keys) throw ApiError.badRequest('key not in correct format', API_ERROR_KEY, 'unauthenticated');
    for (const key of keys) {
      const caller = await this.lookup(hashApiKey(key));
      if (caller) {
        // expires with the key's own entry, so a revoked key stops working as soon as it would have
        const entry = this.cache.get(caller.keyHash);
        if (entry) this.remember(this.byHeader, header, entry);
        return { ...caller, auditSource };
      }
    }
    throw ApiError.unauthorized('API key not valid for this environment');
  }

  /** Forgets every cached key, so a key just rolled stops working on this instance at once (others: within CACHE_MS). */
  forgetAll(): void {
    this.cache.clear();
    this.byHeader.clear();
  }

  /** Bounded: past 10,000 entries the map starts over (entries are only a shortcut to a database read). */
  private remember(map: Map<string, CachedCaller>, key: string, entry: CachedCaller) {
    if (map.size > 10_000) map.clear();
    map.set(key, entry);
  }

  private async lookup(keyHash: string): Promise<Omit<Caller, 'auditSource'> | undefined> {
    const now = wallClockNow().getTime();
    const cached = this.cache.get(keyHash);
    if (cached && cached.expires > now) return cached.caller;
    const account = await accountForKeyHash(this.db, keyHash);
    if (!account) return undefined;
    const caller = {
      accountId: account.id,
      keyKind: account.keyKind,
      keyHash,
      rateLimits: { perMinute: account.rateLimitPerMinute, perDay: account.rateLimitPerDay },
    };
    this.remember(this.cache, keyHash, { caller, expires: now + ApiKeyAuthenticator.CACHE_MS });
    return caller;
  }
}
