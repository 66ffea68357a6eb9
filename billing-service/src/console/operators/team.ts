// The team an owner manages: listing, changing a role, removing an operator (never the last owner).
import { recordChange } from '../../audit/audit-log.js';
import { wallClockNow } from '../../clock/account-clock.js';
import type { Db } from '../../db/database.js';
import type { OperatorRole } from '../../db/schema.js';
import { Refusal } from '../../refusals/refusal.js';
import { endSessionsOf, findOperator, listOperators, lockOwners, openInvitations, updateOperator } from './repository.js';
import { type ConsoleOperator, type OperatorView, operatorCaller, operatorView, refusal } from './model.js';
import { invitationView } from './invitations.js';

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
