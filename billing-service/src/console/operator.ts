import type { OperatorRole } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { operatorCaller, type ConsoleOperator } from './operators/service.js';

/** The console's roles, most powerful first (README "Console"). */
export const CONSOLE_ROLES = ['owner', 'billing', 'support', 'viewer'] as const satisfies readonly OperatorRole[];
export type ConsoleRole = OperatorRole;

/** A signed-in member of a merchant's staff: `request.operator`, set by the session plugin (console-auth.ts). */
export type Operator = ConsoleOperator;

/** The operator as the services' caller: the account's private rights, audited with the operator's e-mail and source `Console`. */
export const callerOf = (operator: Operator): Caller => operatorCaller(operator);
