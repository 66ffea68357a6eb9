import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A checkout session ties a shopper's browser to the one Draft customer it created,
 * so the public proxy never lets anybody act on another customer. Stateless
 * (HMAC-signed `customerId.expiry.signature`), so several proxy instances sharing
 * the secret accept each other's sessions.
 */
export class CheckoutSessions {
  private readonly secret: Buffer;

  constructor(
    secret: string | undefined,
    private readonly lifetimeMs = 2 * 60 * 60 * 1000,
  ) {
    // Without a configured secret, sessions live as long as this process (fine for one instance).
    this.secret = secret ? Buffer.from(secret) : randomBytes(32);
  }

  issue(customerId: number, now = Date.now()): string {
    const payload = `${customerId}.${now + this.lifetimeMs}`;
    return `${payload}.${this.sign(payload)}`;
  }

  /** True when the token was issued here for this customer and has not expired. */
  allows(token: string | undefined, customerId: number, now = Date.now()): boolean {
    if (!token) return false;
    const [id, expiry, signature, extra] = token.split('.');
    if (extra !== undefined || !id || !expiry || !signature) return false;
    const expected = Buffer.from(this.sign(`${id}.${expiry}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    return Number(id) === customerId && Number(expiry) > now;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}
