// Passwords (argon2) and the random tokens of sessions and invitations.
import { createHash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';

export function hashPassword(password: string): Promise<string> {
  // @node-rs/argon2's default is argon2id (19 MiB, 2 passes, 1 lane: OWASP's minimum).
  return argon2Hash(password);
}

let decoyHash: Promise<string> | undefined;
/** A hash nobody's password matches: an unknown e-mail costs the same verification as a known one. */
export function decoy(): Promise<string> {
  decoyHash ??= argon2Hash(randomBytes(24).toString('base64url'));
  return decoyHash;
}

export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await argon2Verify(passwordHash, password);
  } catch {
    return false;
  }
}

// ---- tokens

/** 256 random bits, base64url, with a prefix naming what it opens. Only its SHA-256 is stored (hashPortalToken). */
export function newToken(prefix: 'rcs' | 'rci'): string {
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
