import type { AppContext } from '../app-context.js';
import type { Caller } from './auth.js';

/** Fastify's own types, told what the billing API adds to them. */
declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    /** Set by the authentication hook on every /v1 route not marked public. */
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** true: no API key needed (OpenAPI document, docs, countries). */
    public?: boolean;
    /** A budget of its own instead of the key's rate limits (a stream's endpoint, POST /v1/usageEvents). */
    rateLimitBudget?: 'usageEvents';
  }
}
