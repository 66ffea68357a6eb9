// Invitations: an owner invites, the first owner's link, a person accepts.
import { recordChange } from '../../audit/audit-log.js';
import { wallClockNow } from '../../clock/account-clock.js';
import type { Db } from '../../db/database.js';
import type { OperatorRole } from '../../db/schema.js';
import { hashPortalToken } from '../../portal/links.js';
import { Refusal } from '../../refusals/refusal.js';
import {
  countOperators,
  findInvitationByHash,
  findOperatorByEmail,
  insertInvitation,
  insertOperator,
  lockInvitationByHash,
  markInvitationAccepted,
  type OperatorInvitationRow,
} from './repository.js';
import {
  type ConsoleOperator,
  type ConsoleSettings,
  FIRST_OWNER_INVITATION_HOURS,
  INVITATION_DAYS,
  MINUTE_MS,
  type SignedIn,
  normalizeEmail,
  operatorCaller,
  refusal,
} from './model.js';
import { hashPassword, newToken } from './credentials.js';
import { openSession } from './sessions.js';

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

export function invitationView(row: OperatorInvitationRow): InvitationView {
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
    if (!email) throw Refusal.invalid('the first owner gives an e-mail address to sign in with', 'email', 'value_required');
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
