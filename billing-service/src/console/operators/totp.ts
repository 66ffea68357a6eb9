// The TOTP second factor: set up, confirmed, turned off; each code accepted once.
import { Secret, TOTP } from 'otpauth';
import { recordChange } from '../../audit/audit-log.js';
import { wallClockNow } from '../../clock/account-clock.js';
import type { Db, Queryable } from '../../db/database.js';
import { Refusal } from '../../refusals/refusal.js';
import { findOperator, takeTotpStep, updateOperator, type OperatorRow } from './repository.js';
import { type ConsoleOperator, TOTP_PERIOD_SECONDS, operatorCaller, refusal } from './model.js';

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
export async function totpAccepted(
  db: Queryable,
  operator: Pick<OperatorRow, 'id' | 'totpSecret'>,
  code: string,
  now: Date,
): Promise<boolean> {
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
  if (row.totpEnabled)
    throw Refusal.conflict('the second factor is already on: turn it off first to set up another', 'totp', 'state_conflict');
  const secret = new Secret({ size: 20 }).base32;
  await updateOperator(db, row.id, { totpSecret: secret, totpEnabled: false, totpLastStep: null });
  return { secret, otpauthUri: totpOf(secret, row.email).toString() };
}

const totpCodeInvalid = () => refusal('invalid', 'code', 'the authenticator code is wrong or was already used', 'console_totp_invalid');

export async function confirmTotp(db: Db, operator: ConsoleOperator, code: string, now = wallClockNow()): Promise<void> {
  const row = await liveOperator(db, operator);
  if (row.totpEnabled) throw Refusal.conflict('the second factor is already on', 'totp', 'state_conflict');
  if (!row.totpSecret) throw Refusal.conflict('set the second factor up first (POST /console/api/totp/setup)', 'totp', 'state_conflict');
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
  if (!row.totpEnabled) throw Refusal.conflict('the second factor is not on', 'totp', 'state_conflict');
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
