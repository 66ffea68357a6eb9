// Signing in: throttled per (e-mail, address) and per address, a second factor when the operator has one.
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

/** The key of one (e-mail, client address) pair: what a failure slows down. */
function pairKey(email: string, addressKey: string): string {
  return `${normalizeEmail(email)} ${addressKey}`;
}

/** How long the oldest failure anything keeps counts (the pair's memory, the longer window). */
const FORGET_AFTER_MS = SIGN_IN_THROTTLE.pairWindowHours * 60 * MINUTE_MS;

/**
 * Seconds until this (e-mail, address) pair or this address may try again, or undefined when it may now.
 * The pair waits 1 s after its 4th failure, 2 s after its 5th, doubling up to 15 minutes; the address
 * waits once it has 20 failures in 15 minutes, whatever e-mails. Counted in the database: instances agree.
 */
export async function signInRetryAfter(db: Db, email: string, addressKey: string, now = wallClockNow()): Promise<number | undefined> {
  const windowMs = SIGN_IN_THROTTLE.windowMinutes * MINUTE_MS;
  const waits: number[] = [];
  const address = await signInFailuresSince(db, 'ip', addressKey, new Date(now.getTime() - windowMs));
  if (address.count >= SIGN_IN_THROTTLE.perAddress && address.oldest) waits.push(address.oldest.getTime() + windowMs - now.getTime());
  const pair = await signInFailuresSince(db, 'pair', pairKey(email, addressKey), new Date(now.getTime() - FORGET_AFTER_MS));
  const beyondFree = pair.count - SIGN_IN_THROTTLE.freePerPair;
  if (beyondFree >= 0 && pair.newest) {
    const delaySeconds = Math.min(2 ** beyondFree, SIGN_IN_THROTTLE.maxDelaySeconds);
    waits.push(pair.newest.getTime() + delaySeconds * 1000 - now.getTime());
  }
  const longest = Math.max(0, ...waits);
  return longest > 0 ? Math.max(1, Math.ceil(longest / 1000)) : undefined;
}

async function recordSignInFailure(db: Db, email: string, addressKey: string, now: Date): Promise<void> {
  await insertSignInFailures(
    db,
    [
      { scope: 'pair', key: pairKey(email, addressKey) },
      { scope: 'ip', key: addressKey },
    ],
    now,
  );
  // Old failures count for nothing: dropped now and then, so the table stays as small as the longest memory.
  if (Math.random() < 0.05) await pruneSignInFailures(db, new Date(now.getTime() - FORGET_AFTER_MS));
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
    await clearSignInFailures(trx, pairKey(email, addressKey), new Date(now.getTime() - FORGET_AFTER_MS));
    await updateOperator(trx, signedInOperator.id, { lastSignInAt: now });
    return openSession(trx, settings, signedInOperator, now);
  });
}

// ---- TOTP
