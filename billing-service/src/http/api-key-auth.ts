import fp from 'fastify-plugin';
import type { Db } from '../db/database.js';
import { addressBudgetKey } from './address-budget.js';
import { ApiKeyAuthenticator, type Caller } from './auth.js';
import './context.js';
import { ApiError } from './errors.js';
import { IN_PROCESS_CALLER_HEADER, type InProcessCallers } from './in-process-callers.js';
import { enforceRateLimit, type RateLimitStore } from './rate-limit.js';

export interface ApiKeyAuthOptions {
  db: Db;
  rateLimitStore: RateLimitStore;
  /** Failed attempts, per client address (the catalogue's rate limits). */
  failedAttemptLimits: { perMinute: number; perDay: number };
  /** Per key, the budgets of routes that have their own (`config.rateLimitBudget`; the catalogue's rateLimits). */
  budgets?: { usageEvents: { perMinute: number; perDay: number } };
  /** Callers of requests this process makes to itself (the console's proxy), by one-time nonce. */
  inProcessCallers?: InProcessCallers;
  /** The key cache's owner, when the app must clear it (a key rolled); otherwise one is made here. */
  authenticator?: ApiKeyAuthenticator;
}

/**
 * `Authorization: Basic <private key>` on every route not marked `public`: sets
 * `request.caller` and counts the request against the key's rate limits. The
 * public key works only on the card-capture host. A request the app makes to
 * itself (the console's proxy) is its vouched caller instead (InProcessCallers),
 * counted under that caller's own budget (`keyHash`).
 */
export const apiKeyAuth = fp<ApiKeyAuthOptions>(
  async (app, options) => {
    const authenticator = options.authenticator ?? new ApiKeyAuthenticator(options.db);
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'OPTIONS') return;
      // A request the app made to itself, as the caller it vouched for; the nonce cannot come from outside.
      const nonce = request.headers[IN_PROCESS_CALLER_HEADER];
      if (nonce !== undefined) {
        const vouched = options.inProcessCallers?.take(nonce);
        if (!vouched) {
          await enforceRateLimit(options.rateLimitStore, reply, `ip:${addressBudgetKey(request.ip)}`, options.failedAttemptLimits);
          throw ApiError.unauthorized(`${IN_PROCESS_CALLER_HEADER} is not a header clients send`);
        }
        request.caller = vouched;
        await enforceRateLimit(options.rateLimitStore, reply, vouched.keyHash, vouched.rateLimits);
        return;
      }
      const config = request.routeOptions.config;
      if (config?.public) return;
      // An unknown path (404) or a known one with the wrong method (405) needs no key; one sent is
      // still checked and counted, so its answer carries the rate-limit headers like any other.
      const unrouted = !request.routeOptions.url;
      if (unrouted && !request.headers.authorization) return;
      let caller: Caller;
      try {
        caller = await authenticator.authenticate(request);
      } catch (error) {
        // Failed attempts are limited per client address (an IPv6 one by its /64), so guessing keys is slow.
        await enforceRateLimit(options.rateLimitStore, reply, `ip:${addressBudgetKey(request.ip)}`, options.failedAttemptLimits);
        if (unrouted) return;
        throw error;
      }
      if (caller.keyKind !== 'private') {
        // Refused: counted per client address only, so nobody can spend a key's budget by sending it where it is refused.
        await enforceRateLimit(options.rateLimitStore, reply, `ip:${addressBudgetKey(request.ip)}`, options.failedAttemptLimits);
        if (unrouted) return;
        throw ApiError.unauthorized('the public API key only works on the card-capture host; use the private API key');
      }
      request.caller = caller;
      const budget = config?.rateLimitBudget;
      if (budget && options.budgets)
        await enforceRateLimit(options.rateLimitStore, reply, `${budget}:${caller.keyHash}`, options.budgets[budget]);
      else await enforceRateLimit(options.rateLimitStore, reply, `key:${caller.keyHash}`, caller.rateLimits);
    });
  },
  { name: 'renew-api-key-auth', fastify: '5.x' },
);
