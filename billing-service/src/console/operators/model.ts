// Who an operator is: roles, settings, the views and the caller the services act as.
import type { OperatorRole } from '../../db/schema.js';
import type { Caller } from '../../http/auth.js';
import type { ErrorCode } from '../../refusals/error-codes.js';
import { Refusal } from '../../refusals/refusal.js';
import type { OperatorRow } from './repository.js';

// Operators, their sessions and invitations are credentials: they live on the wall clock, never an
// account's test clock (as portal sessions do).

export const OPERATOR_ROLES = ['viewer', 'support', 'billing', 'owner'] as const satisfies readonly OperatorRole[];

/** What a role may do includes what every role before it may (viewer < support < billing < owner). */
export function roleAtLeast(role: OperatorRole, needed: OperatorRole): boolean {
  return OPERATOR_ROLES.indexOf(role) >= OPERATOR_ROLES.indexOf(needed);
}

export interface ConsoleSettings {
  /** A session unused this long ends (RENEW_CONSOLE_IDLE_MINUTES, default 30). */
  idleMinutes: number;
  /** A session ends this long after sign-in, however active (RENEW_CONSOLE_ABSOLUTE_HOURS, default 12). */
  absoluteHours: number;
}

export const DEFAULT_CONSOLE_SETTINGS: ConsoleSettings = { idleMinutes: 30, absoluteHours: 12 };

/**
 * Sign-in throttle (README "Console"): per (e-mail, client address), a delay after each failure that doubles
 * (the first `freePerPair` cost none: typos), from 1 s up to `maxDelaySeconds`, failures remembered `pairWindowHours`;
 * per client address, whatever e-mails it tries, `perAddress` failures in a sliding `windowMinutes`. Nothing
 * counts per e-mail alone: wrong passwords from other addresses never lock the operator out.
 */
export const SIGN_IN_THROTTLE = { windowMinutes: 15, perAddress: 20, freePerPair: 3, maxDelaySeconds: 15 * 60, pairWindowHours: 24 };
export const INVITATION_DAYS = 7;
export const FIRST_OWNER_INVITATION_HOURS = 24;
export const MIN_PASSWORD_LENGTH = 12;

export const MINUTE_MS = 60_000;
export const TOTP_PERIOD_SECONDS = 30;

/** The signed-in operator, as every console route sees it (`request.operator`). */
export interface ConsoleOperator {
  id: number;
  accountId: number;
  email: string;
  name: string;
  role: OperatorRole;
}

/** An operator as the console's answers show it. */
export interface OperatorView {
  id: number;
  email: string;
  name: string;
  role: OperatorRole;
  totpEnabled: boolean;
}

export interface SignedIn {
  operator: OperatorView;
  /** The cookie's value: shown once, only its SHA-256 is stored. */
  sessionToken: string;
  csrfToken: string;
  /** The cookie's Max-Age: the session's absolute cap. */
  maxAgeSeconds: number;
}

export interface LiveSession {
  operator: ConsoleOperator & { totpEnabled: boolean };
  csrfToken: string;
}

export function refusal(kind: Refusal['kind'], key: string, message: string, code: ErrorCode): Refusal {
  return new Refusal(kind, [{ Key: key, Value: message, Code: code }]);
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function operatorView(row: Pick<OperatorRow, 'id' | 'email' | 'name' | 'role' | 'totpEnabled'>): OperatorView {
  return { id: row.id, email: row.email, name: row.name, role: row.role, totpEnabled: row.totpEnabled };
}

/** The audit log's caller for an operator's own change: the operator's e-mail as actor, `Console` as source. */
export function operatorCaller(operator: Pick<ConsoleOperator, 'accountId' | 'email'>): Caller {
  return {
    accountId: operator.accountId,
    keyKind: 'private',
    auditSource: 'Console',
    actor: operator.email,
    rateLimits: { perMinute: 0, perDay: 0 },
    keyHash: '',
  };
}

// ---- passwords
