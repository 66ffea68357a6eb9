import type { OperatorRole } from '../db/schema.js';
import { roleAtLeast } from './operators/service.js';

/**
 * What a console operation needs (README "Console"), as Lago's REQUIRED_PERMISSION: every
 * /console/api route declares one in its `config.consolePermission` (or `consolePublic`), and every
 * /v1 operation the console may forward has one in proxied-operations.ts. Each permission names the
 * least role that holds it; roles are ordered viewer < support < billing < owner.
 */
export const PERMISSION_ROLES = {
  /** Reading anything the account's private key reads. */
  'console:read': 'viewer',
  /** The operator's own session and second factor. */
  'session:own': 'viewer',
  /** Notes on a customer. */
  'notes:write': 'support',
  /** A portal link for a customer. */
  'portal:write': 'support',
  /** Every other billing write: customers, subscriptions, payments, refunds, invoices… */
  'billing:write': 'billing',
  /** Webhook endpoints and their deliveries. */
  'webhooks:write': 'owner',
  /** The account's API keys. */
  'apikeys:write': 'owner',
  /** Operators and invitations. */
  'team:manage': 'owner',
} as const satisfies Record<string, OperatorRole>;

export type ConsolePermission = keyof typeof PERMISSION_ROLES;

export function isConsolePermission(value: unknown): value is ConsolePermission {
  return typeof value === 'string' && Object.hasOwn(PERMISSION_ROLES, value);
}

/** The least role holding a permission. */
export function leastRoleFor(permission: ConsolePermission): OperatorRole {
  return PERMISSION_ROLES[permission];
}

/** Whether an operator's role holds a permission: the one rule every console check goes through. */
export function roleHolds(role: OperatorRole, permission: ConsolePermission): boolean {
  return roleAtLeast(role, PERMISSION_ROLES[permission]);
}
