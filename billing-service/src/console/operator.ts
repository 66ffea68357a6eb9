import type { Caller } from '../http/auth.js';

/** The console's roles, most powerful first (README "Merchant console"). */
export const CONSOLE_ROLES = ['owner', 'billing', 'support', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** A signed-in member of a merchant's staff, as the console's session plugin sets it on each request. */
export interface Operator {
  id: number;
  accountId: number;
  email: string;
  name: string;
  role: ConsoleRole;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the console's session plugin on /console/api routes that declare a `consoleRole`. */
    operator: Operator;
  }
  interface FastifyContextConfig {
    /** The least role a /console/api route needs; the console's session plugin refuses the others (403). */
    consoleRole?: ConsoleRole;
  }
}

/** The operator as the services' caller: the account's private rights, audited with the operator's e-mail and source `Console`. */
export function callerOf(operator: Operator): Caller {
  return {
    accountId: operator.accountId,
    keyKind: 'private',
    auditSource: 'Console',
    actor: operator.email,
    rateLimits: { perMinute: 0, perDay: 0 },
    keyHash: '',
  };
}
