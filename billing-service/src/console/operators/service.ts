import { createHash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { Secret, TOTP } from 'otpauth';
import { recordChange } from '../../audit/audit-log.js';
import { wallClockNow } from '../../clock/account-clock.js';
import type { Db, Queryable } from '../../db/database.js';
import type { OperatorRole } from '../../db/schema.js';
import type { Caller } from '../../http/auth.js';
import { hashPortalToken } from '../../portal/links.js';
import type { ErrorCode } from '../../refusals/error-codes.js';
import { Refusal } from '../../refusals/refusal.js';
import {
  clearSignInFailures,
  countOperators,
  endSession,
  endSessionsOf,
  findInvitationByHash,
  findLiveSession,
  findOperator,
  findOperatorByEmail,
  insertInvitation,
  insertOperator,
  insertOperatorSession,
  insertSignInFailures,
  listOperators,
  lockInvitationByHash,
  lockOwners,
  markInvitationAccepted,
  openInvitations,
  operatorsByEmail,
  pruneSignInFailures,
  signInFailuresSince,
  slideSession,
  takeTotpStep,
  updateOperator,
  type OperatorInvitationRow,
  type OperatorRow,
} from './repository.js';

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

/** Sign-in throttle (README "Console"): failures counted in a sliding window, per e-mail and per client address. */
export const SIGN_IN_THROTTLE = { windowMinutes: 15, perEmail: 5, perAddress: 20 };
export const INVITATION_DAYS = 7;
export const FIRST_OWNER_INVITATION_HOURS = 24;
export const MIN_PASSWORD_LENGTH = 12;

const MINUTE_MS = 60_000;
const TOTP_PERIOD_SECONDS = 30;

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

function refusal(kind: Refusal['kind'], key: string, message: string, code: ErrorCode): Refusal {
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

export function hashPassword(password: string): Promise<string> {
  // @node-rs/argon2's default is argon2id (19 MiB, 2 passes, 1 lane: OWASP's minimum).
  return argon2Hash(password);
}

let decoyHash: Promise<string> | undefined;
/** A hash nobody's password matches: an unknown e-mail costs the same verification as a known one. */
function decoy(): Promise<string> {
  decoyHash ??= argon2Hash(randomBytes(24).toString('base64url'));
  return decoyHash;
}

async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await argon2Verify(passwordHash, password);
  } catch {
    return false;
  }
}

// ---- tokens

/** 256 random bits, base64url, with a prefix naming what it opens. Only its SHA-256 is stored (hashPortalToken). */
function newToken(prefix: 'rcs' | 'rci'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * The CSRF token of a console session, derived from its secret: the page reads it (GET /console/api/session
 * or the sign-in answer) and sends it in X-CSRF-Token with every write; another site can neither read it
 * nor make the browser send it. Derived, so nothing more is stored and every instance agrees.
 */
export function consoleCsrfToken(sessionToken: string): string {
  return createHash('sha256').update(`renew-console-csrf:${sessionToken}`).digest('base64url');
}

// ---- sessions

async function openSession(db: Queryable, settings: ConsoleSettings, operator: OperatorRow, now: Date): Promise<SignedIn> {
  const sessionToken = newToken('rcs');
  const absoluteMs = settings.absoluteHours * 60 * MINUTE_MS;
  const idleMs = Math.min(settings.idleMinutes * MINUTE_MS, absoluteMs);
  await insertOperatorSession(db, {
    accountId: operator.accountId,
    operatorId: operator.id,
    tokenHash: hashPortalToken(sessionToken),
    lastSeenAt: now,
    idleExpiresAt: new Date(now.getTime() + idleMs),
    absoluteExpiresAt: new Date(now.getTime() + absoluteMs),
  });
  return {
    operator: operatorView(operator),
    sessionToken,
    csrfToken: consoleCsrfToken(sessionToken),
    maxAgeSeconds: Math.ceil(absoluteMs / 1000),
  };
}

/**
 * The live session of a cookie's token, its idle expiry slid forward (never past the absolute cap);
 * undefined when there is none (never issued, signed out, idle too long, past its cap, operator removed).
 */
export async function authenticateSession(
  db: Db,
  settings: ConsoleSettings,
  sessionToken: string | undefined,
  now = wallClockNow(),
): Promise<LiveSession | undefined> {
  if (!sessionToken || sessionToken.length > 200 || !sessionToken.startsWith('rcs_')) return undefined;
  const row = await findLiveSession(db, hashPortalToken(sessionToken), now);
  if (!row) return undefined;
  const slid = new Date(Math.min(now.getTime() + settings.idleMinutes * MINUTE_MS, row.absoluteExpiresAt.getTime()));
  // Written at most every 30 s per session: a page's burst of requests costs one write.
  if (slid.getTime() - row.idleExpiresAt.getTime() >= 30_000) await slideSession(db, row.sessionId, now, slid);
  return {
    operator: { id: row.id, accountId: row.accountId, email: row.email, name: row.name, role: row.role, totpEnabled: row.totpEnabled },
    csrfToken: consoleCsrfToken(sessionToken),
  };
}

export async function signOut(db: Db, sessionToken: string | undefined, now = wallClockNow()): Promise<void> {
  if (sessionToken && sessionToken.length <= 200) await endSession(db, hashPortalToken(sessionToken), now);
}

// ---- sign-in and its throttle

/**
 * Seconds until the e-mail or the client address may try again, or undefined when neither has
 * reached its limit of failures in the window. Counted in the database: instances throttle together.
 */
export async function signInRetryAfter(db: Db, email: string, addressKey: string, now = wallClockNow()): Promise<number | undefined> {
  const windowMs = SIGN_IN_THROTTLE.windowMinutes * MINUTE_MS;
  const since = new Date(now.getTime() - windowMs);
  const checks = [
    { scope: 'email' as const, key: normalizeEmail(email), limit: SIGN_IN_THROTTLE.perEmail },
    { scope: 'ip' as const, key: addressKey, limit: SIGN_IN_THROTTLE.perAddress },
  ];
  let retryAfter: number | undefined;
  for (const check of checks) {
    const { count, oldest } = await signInFailuresSince(db, check.scope, check.key, since);
    if (count < check.limit || !oldest) continue;
    const seconds = Math.max(1, Math.ceil((oldest.getTime() + windowMs - now.getTime()) / 1000));
    retryAfter = Math.max(retryAfter ?? 0, seconds);
  }
  return retryAfter;
}

async function recordSignInFailure(db: Db, email: string, addressKey: string, now: Date): Promise<void> {
  await insertSignInFailures(
    db,
    [
      { scope: 'email', key: normalizeEmail(email) },
      { scope: 'ip', key: addressKey },
    ],
    now,
  );
  // Old failures count for nothing: dropped now and then, so the table stays as small as the window.
  if (Math.random() < 0.05) await pruneSignInFailures(db, new Date(now.getTime() - SIGN_IN_THROTTLE.windowMinutes * MINUTE_MS));
}

const credentialsInvalid = () =>
  refusal('unauthenticated', 'password', 'the e-mail or the password is wrong', 'console_credentials_invalid');

/**
 * E-mail and password, then the second factor when the operator has one. A wrong password and an
 * unknown e-mail are answered alike, after the same work; each failure is counted for the throttle
 * (the caller checks `signInRetryAfter` first). A missing TOTP code is not a failure: the password was right.
 */
export async function signIn(
  db: Db,
  settings: ConsoleSettings,
  input: { email: string; password: string; totpCode?: string | undefined },
  addressKey: string,
  now = wallClockNow(),
): Promise<SignedIn> {
  const email = normalizeEmail(input.email);
  const candidates = await operatorsByEmail(db, email);
  let operator: OperatorRow | undefined;
  for (const candidate of candidates) {
    if (await passwordMatches(candidate.passwordHash, input.password)) {
      operator = candidate;
      break;
    }
  }
  if (candidates.length === 0) await passwordMatches(await decoy(), input.password);
  if (!operator) {
    await recordSignInFailure(db, email, addressKey, now);
    throw credentialsInvalid();
  }
  if (operator.totpEnabled) {
    if (!input.totpCode) {
      throw refusal('unauthenticated', 'totpCode', 'enter the 6-digit code of your authenticator app', 'console_totp_required');
    }
    if (!(await totpAccepted(db, operator, input.totpCode, now))) {
      await recordSignInFailure(db, email, addressKey, now);
      throw refusal('unauthenticated', 'totpCode', 'the authenticator code is wrong or was already used', 'console_totp_invalid');
    }
  }
  const signedInOperator = operator;
  return db.transaction().execute(async (trx) => {
    await clearSignInFailures(trx, email, new Date(now.getTime() - SIGN_IN_THROTTLE.windowMinutes * MINUTE_MS));
    await updateOperator(trx, signedInOperator.id, { lastSignInAt: now });
    return openSession(trx, settings, signedInOperator, now);
  });
}

// ---- TOTP

function totpOf(secret: string, label = 'operator'): TOTP {
  return new TOTP({
    issuer: 'Renew console',
    label,
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** Whether the code is the secret's for the current 30-second step or the one before or after, and newer than the last accepted. */
async function totpAccepted(db: Queryable, operator: Pick<OperatorRow, 'id' | 'totpSecret'>, code: string, now: Date): Promise<boolean> {
  if (!operator.totpSecret || !/^\d{6}$/.test(code.trim())) return false;
  const delta = totpOf(operator.totpSecret).validate({ token: code.trim(), timestamp: now.getTime(), window: 1 });
  if (delta === null) return false;
  const step = Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
  return takeTotpStep(db, operator.id, step);
}

async function liveOperator(db: Queryable, operator: ConsoleOperator): Promise<OperatorRow> {
  const row = await findOperator(db, operator.accountId, operator.id);
  if (!row) throw Refusal.notFound('operator', operator.id);
  return row;
}

/** A new secret, kept aside until a code from it is confirmed; replaces one set up and not confirmed. */
export async function setUpTotp(db: Db, operator: ConsoleOperator): Promise<{ secret: string; otpauthUri: string }> {
  const row = await liveOperator(db, operator);
  if (row.totpEnabled) throw Refusal.conflict('the second factor is already on: turn it off first to set up another', 'totp');
  const secret = new Secret({ size: 20 }).base32;
  await updateOperator(db, row.id, { totpSecret: secret, totpEnabled: false, totpLastStep: null });
  return { secret, otpauthUri: totpOf(secret, row.email).toString() };
}

const totpCodeInvalid = () => refusal('invalid', 'code', 'the authenticator code is wrong or was already used', 'console_totp_invalid');

export async function confirmTotp(db: Db, operator: ConsoleOperator, code: string, now = wallClockNow()): Promise<void> {
  const row = await liveOperator(db, operator);
  if (row.totpEnabled) throw Refusal.conflict('the second factor is already on', 'totp');
  if (!row.totpSecret) throw Refusal.conflict('set the second factor up first (POST /console/api/totp/setup)', 'totp');
  if (!(await totpAccepted(db, row, code, now))) throw totpCodeInvalid();
  await db.transaction().execute(async (trx) => {
    await updateOperator(trx, row.id, { totpEnabled: true });
    await recordChange(trx, operatorCaller(operator), {
      entityType: 'Operator',
      entityId: row.id,
      action: 'update',
      changes: { totpEnabled: [false, true] },
    });
  });
}

export async function disableTotp(db: Db, operator: ConsoleOperator, code: string, now = wallClockNow()): Promise<void> {
  const row = await liveOperator(db, operator);
  if (!row.totpEnabled) throw Refusal.conflict('the second factor is not on', 'totp');
  if (!(await totpAccepted(db, row, code, now))) throw totpCodeInvalid();
  await db.transaction().execute(async (trx) => {
    await updateOperator(trx, row.id, { totpEnabled: false, totpSecret: null, totpLastStep: null });
    await recordChange(trx, operatorCaller(operator), {
      entityType: 'Operator',
      entityId: row.id,
      action: 'update',
      changes: { totpEnabled: [true, false] },
    });
  });
}

// ---- invitations

/** Where an invitation's token opens the console: its accept page. */
export function invitationLink(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/console/#/invitation/${token}`;
}

export interface InvitationView {
  id: number;
  email: string | null;
  role: OperatorRole;
  expiresAt: string;
  createdAt: string;
}

function invitationView(row: OperatorInvitationRow): InvitationView {
  return { id: row.id, email: row.email, role: row.role, expiresAt: row.expiresAt.toISOString(), createdAt: row.createdAt.toISOString() };
}

/** An owner invites someone by e-mail, with a role: a one-use link, valid 7 days. */
export async function inviteOperator(
  db: Db,
  inviter: ConsoleOperator,
  input: { email: string; role: OperatorRole },
  baseUrl: string,
  now = wallClockNow(),
): Promise<{ invitation: InvitationView; link: string }> {
  const email = normalizeEmail(input.email);
  if (await findOperatorByEmail(db, inviter.accountId, email)) {
    throw refusal('conflict', 'email', `${email} is already an operator of this account`, 'console_operator_exists');
  }
  const token = newToken('rci');
  const row = await db.transaction().execute(async (trx) => {
    const invitation = await insertInvitation(trx, {
      accountId: inviter.accountId,
      tokenHash: hashPortalToken(token),
      email,
      role: input.role,
      invitedBy: inviter.id,
      firstOwner: false,
      expiresAt: new Date(now.getTime() + INVITATION_DAYS * 24 * 60 * MINUTE_MS),
    });
    await recordChange(trx, operatorCaller(inviter), {
      entityType: 'OperatorInvitation',
      entityId: invitation.id,
      action: 'create',
      changes: { email, role: input.role, expiresAt: invitation.expiresAt.toISOString() },
    });
    return invitation;
  });
  return { invitation: invitationView(row), link: invitationLink(baseUrl, token) };
}

/**
 * When the account has no operator yet: a first-owner invitation (24 h) whose link `npm start` prints.
 * Undefined when the account has operators. Each start without an owner makes a new one; the first
 * accepted makes the others useless (they accept only while the account has no operator).
 */
export async function firstOwnerInvitation(db: Db, accountId: number, baseUrl: string, now = wallClockNow()): Promise<string | undefined> {
  if ((await countOperators(db, accountId)) > 0) return undefined;
  const token = newToken('rci');
  await insertInvitation(db, {
    accountId,
    tokenHash: hashPortalToken(token),
    email: null,
    role: 'owner',
    invitedBy: null,
    firstOwner: true,
    expiresAt: new Date(now.getTime() + FIRST_OWNER_INVITATION_HOURS * 60 * MINUTE_MS),
  });
  return invitationLink(baseUrl, token);
}

function usableInvitation(
  row: OperatorInvitationRow | undefined,
  token: string,
  now: Date,
  operatorsInAccount: number,
): OperatorInvitationRow {
  if (!row) throw Refusal.notFound('invitation', token.slice(0, 8));
  if (row.acceptedAt || (row.firstOwner && operatorsInAccount > 0)) {
    throw refusal('gone', 'token', 'the invitation was already accepted: sign in instead', 'console_invitation_used');
  }
  if (row.expiresAt <= now)
    throw refusal('gone', 'token', 'the invitation has expired: ask an owner for a new one', 'console_invitation_expired');
  return row;
}

function tokenShapeOk(token: string): boolean {
  return token.length <= 200 && token.startsWith('rci_');
}

/** What the accept page shows before the invitation is accepted: 404 unknown, 410 used or expired. */
export async function describeInvitation(db: Db, token: string, now = wallClockNow()) {
  const row = tokenShapeOk(token) ? await findInvitationByHash(db, hashPortalToken(token)) : undefined;
  const invitation = usableInvitation(row, token, now, row?.firstOwner ? await countOperators(db, row.accountId) : 0);
  return { email: invitation.email, role: invitation.role, firstOwner: invitation.firstOwner };
}

/**
 * Accepts an invitation once: the operator is created with its role and signed in. The first owner's
 * link names no e-mail, so its accept gives one.
 */
export async function acceptInvitation(
  db: Db,
  settings: ConsoleSettings,
  token: string,
  input: { name: string; password: string; email?: string | undefined },
  now = wallClockNow(),
): Promise<SignedIn> {
  if (!tokenShapeOk(token)) throw Refusal.notFound('invitation', token.slice(0, 8));
  // Hashed before the transaction: the slow part holds no lock.
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    const locked = await lockInvitationByHash(trx, hashPortalToken(token));
    const invitation = usableInvitation(locked, token, now, locked?.firstOwner ? await countOperators(trx, locked.accountId) : 0);
    const email = invitation.email ?? (input.email ? normalizeEmail(input.email) : undefined);
    if (!email) throw Refusal.invalid('the first owner gives an e-mail address to sign in with', 'email');
    if (await findOperatorByEmail(trx, invitation.accountId, email)) {
      throw refusal('conflict', 'email', `${email} is already an operator of this account: sign in instead`, 'console_operator_exists');
    }
    const operator = await insertOperator(trx, {
      accountId: invitation.accountId,
      email,
      name: input.name.trim(),
      role: invitation.role,
      passwordHash,
      totpSecret: null,
      lastSignInAt: now,
      deletedAt: null,
    });
    await markInvitationAccepted(trx, invitation.id, operator.id, now);
    await recordChange(trx, operatorCaller(operator), {
      entityType: 'Operator',
      entityId: operator.id,
      action: 'create',
      changes: { email, name: operator.name, role: operator.role, invitationId: invitation.id },
    });
    return openSession(trx, settings, operator, now);
  });
}

// ---- the team

export async function listTeam(db: Db, accountId: number, now = wallClockNow()) {
  const [operators, invitations] = await Promise.all([listOperators(db, accountId), openInvitations(db, accountId, now)]);
  return {
    operators: operators.map((row) => ({
      ...operatorView(row),
      createdAt: row.createdAt.toISOString(),
      lastSignInAt: row.lastSignInAt ? row.lastSignInAt.toISOString() : null,
    })),
    invitations: invitations.map(invitationView),
  };
}

const lastOwner = () =>
  refusal('conflict', 'role', 'the account would have no owner left: make another operator owner first', 'console_last_owner');

/** An owner changes an operator's role; the last owner cannot be demoted. Takes effect on the operator's next request. */
export async function changeOperatorRole(db: Db, actor: ConsoleOperator, id: number, role: OperatorRole): Promise<OperatorView> {
  return db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, actor.accountId);
    const target = await findOperator(trx, actor.accountId, id);
    if (!target) throw Refusal.notFound('operator', id);
    if (target.role === 'owner' && role !== 'owner' && owners.length <= 1) throw lastOwner();
    if (target.role !== role) {
      await updateOperator(trx, id, { role });
      await recordChange(trx, operatorCaller(actor), {
        entityType: 'Operator',
        entityId: id,
        action: 'update',
        changes: { role: [target.role, role] },
      });
    }
    return operatorView({ ...target, role });
  });
}

/** An owner removes another operator: its sessions end at once; the last owner cannot be removed. */
export async function removeOperator(db: Db, actor: ConsoleOperator, id: number, now = wallClockNow()): Promise<void> {
  if (id === actor.id) throw refusal('conflict', 'id', 'you cannot remove yourself: another owner can', 'console_operator_self');
  await db.transaction().execute(async (trx) => {
    const owners = await lockOwners(trx, actor.accountId);
    const target = await findOperator(trx, actor.accountId, id);
    if (!target) throw Refusal.notFound('operator', id);
    if (target.role === 'owner' && owners.length <= 1) throw lastOwner();
    await updateOperator(trx, id, { deletedAt: now });
    await endSessionsOf(trx, id, now);
    await recordChange(trx, operatorCaller(actor), {
      entityType: 'Operator',
      entityId: id,
      action: 'delete',
      changes: { email: target.email, role: target.role },
    });
  });
}
