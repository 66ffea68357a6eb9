// Signing in: throttled per e-mail and per address, a second factor when the operator has one.
import { wallClockNow } from '../../clock/account-clock.js';
import type { Db } from '../../db/database.js';
import {
  clearSignInFailures,
  insertSignInFailures,
  operatorsByEmail,
  pruneSignInFailures,
  signInFailuresSince,
  updateOperator,
  type OperatorRow,
} from './repository.js';
import { type ConsoleSettings, MINUTE_MS, SIGN_IN_THROTTLE, type SignedIn, normalizeEmail, refusal } from './model.js';
import { decoy, passwordMatches } from './credentials.js';
import { openSession } from './sessions.js';
import { totpAccepted } from './totp.js';

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
