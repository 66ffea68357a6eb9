import { describe, expect, it } from 'vitest';
import { CheckoutSessions } from '../src/proxy/checkout-session.js';

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2026, 0, 1);

describe('checkout sessions', () => {
  it('allows the customer a token was issued for, until it expires', () => {
    const sessions = new CheckoutSessions('s3cret', HOUR);
    const token = sessions.issue(42, T0);
    expect(sessions.allows(token, 42, T0)).toBe(true);
    expect(sessions.allows(token, 42, T0 + HOUR - 1)).toBe(true);
  });

  it('refuses a token when it names another customer', () => {
    const sessions = new CheckoutSessions('s3cret');
    const token = sessions.issue(42);
    expect(sessions.allows(token, 43)).toBe(false);
    // Rewriting the id in the token does not help: the signature covers it.
    expect(sessions.allows(token.replace(/^42\./, '43.'), 43)).toBe(false);
  });

  it('refuses a token when its signature or expiry was tampered with', () => {
    const sessions = new CheckoutSessions('s3cret', HOUR);
    const token = sessions.issue(42, T0);
    const [id, expiry, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(sessions.allows(`${id}.${expiry}.${flipped}`, 42, T0)).toBe(false);
    expect(sessions.allows(`${id}.${expiry}.${signature}x`, 42, T0)).toBe(false);
    expect(sessions.allows(`${id}.${Number(expiry) + HOUR}.${signature}`, 42, T0 + HOUR)).toBe(false);
  });

  it('refuses a token when it has expired', () => {
    const sessions = new CheckoutSessions('s3cret', HOUR);
    const token = sessions.issue(42, T0);
    expect(sessions.allows(token, 42, T0 + HOUR)).toBe(false);
    expect(sessions.allows(token, 42, T0 + 2 * HOUR)).toBe(false);
  });

  it('refuses a token when another secret signed it (and a random secret per instance when none is set)', () => {
    const token = new CheckoutSessions('one secret').issue(42);
    expect(new CheckoutSessions('another secret').allows(token, 42)).toBe(false);
    const unset = new CheckoutSessions(undefined).issue(42);
    expect(new CheckoutSessions(undefined).allows(unset, 42)).toBe(false);
  });

  it("accepts each other's tokens when two instances share the secret (instances behind one load balancer)", () => {
    const a = new CheckoutSessions('shared');
    const b = new CheckoutSessions('shared');
    expect(b.allows(a.issue(7), 7)).toBe(true);
    expect(a.allows(b.issue(8), 8)).toBe(true);
  });

  it('refuses malformed tokens without throwing', () => {
    const sessions = new CheckoutSessions('s3cret');
    const valid = sessions.issue(42);
    for (const token of [undefined, '', '.', '..', 'a.b', 'a.b.c', 'a.b.c.d', `${valid}.extra`, `.${valid}`, '42..', 'é.é.é']) {
      expect(() => sessions.allows(token, 42), String(token)).not.toThrow();
      expect(sessions.allows(token, 42), String(token)).toBe(false);
    }
  });
});
