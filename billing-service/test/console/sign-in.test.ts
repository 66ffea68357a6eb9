import { Secret, TOTP } from 'otpauth';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  codesOf,
  consoleCall,
  firstOwner,
  invitedOperator,
  PASSWORD,
  sessionCookieOf,
  signedInAgent,
  signIn,
  type ConsoleAgent,
} from './console-helpers.js';

// Operators' sign-in, TOTP, sessions and CSRF (README "Console"), through the HTTP layer on a real database.
let t: TestApp;
let owner: ConsoleAgent;
beforeAll(async () => {
  t = await startTestApp();
  owner = await firstOwner(t, 'owner@shop.example');
});
afterAll(async () => t?.close());

function totpFor(secret: string) {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
}

describe('POST /console/api/sign-in', () => {
  it('signs in with e-mail (any case) and password: the operator, a CSRF token, an HttpOnly SameSite=Strict cookie', async () => {
    await invitedOperator(t, owner, 'ada@shop.example', 'billing');
    const res = await signIn(t, { email: ' Ada@Shop.Example ', password: PASSWORD }, '10.1.0.1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      operator: { id: expect.any(Number), email: 'ada@shop.example', name: 'billing operator', role: 'billing', totpEnabled: false },
      csrfToken: expect.any(String),
    });
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^renew_console=rcs_[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    // Only the token's SHA-256 is stored.
    const token = sessionCookieOf(res)!.split('=')[1]!;
    const stored = await sql<{ n: string }>`select count(*) as n from operator_sessions where token_hash = ${token}`.execute(t.database.db);
    expect(Number(stored.rows[0]!.n)).toBe(0);
    const agent = signedInAgent(res);
    const session = await consoleCall(t, agent, 'GET', '/console/api/session');
    expect(session.statusCode).toBe(200);
    expect(session.json()).toEqual({ operator: res.json().operator, csrfToken: res.json().csrfToken });
  });

  it('answers a wrong password and an unknown e-mail alike: 401 console_credentials_invalid', async () => {
    await invitedOperator(t, owner, 'grace@shop.example', 'viewer');
    const wrong = await signIn(t, { email: 'grace@shop.example', password: 'not the password' }, '10.1.0.2');
    const unknown = await signIn(t, { email: 'nobody@shop.example', password: 'not the password' }, '10.1.0.2');
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(errorsOf(res)).toEqual([
        { Key: 'password', Value: 'the e-mail or the password is wrong', Code: 'console_credentials_invalid' },
      ]);
      expect(sessionCookieOf(res)).toBeUndefined();
    }
  });

  it('wrong passwords from five addresses lock nobody out: the right password from a sixth signs in', async () => {
    await invitedOperator(t, owner, 'spread@shop.example', 'viewer');
    for (let i = 0; i < 5; i++) {
      const res = await signIn(t, { email: 'spread@shop.example', password: `wrong ${i}` }, `10.2.0.${i + 1}`);
      expect(res.statusCode).toBe(401);
    }
    expect((await signIn(t, { email: 'SPREAD@shop.example', password: PASSWORD }, '10.2.0.9')).statusCode).toBe(200);
  });

  it('ten wrong passwords from one address slow that address with a growing Retry-After; another address signs in', async () => {
    await invitedOperator(t, owner, 'slowed@shop.example', 'viewer');
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof signIn>> | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await signIn(t, { email: 'slowed@shop.example', password: `wrong ${i}` }, '10.2.1.1');
      statuses.push(res.statusCode);
      if (res.statusCode === 429) refused = res;
    }
    // Three typos cost nothing; then the address waits 1 s (refused attempts are not failures: the wait does not grow by retrying).
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429, 429, 429]);
    expect(codesOf(refused!)).toEqual(['console_sign_in_throttled']);
    expect(Number(refused!.headers['retry-after'])).toBe(1);
    // Even the right password waits, from that address; from another one it signs in at once.
    expect((await signIn(t, { email: 'slowed@shop.example', password: PASSWORD }, '10.2.1.1')).statusCode).toBe(429);
    expect((await signIn(t, { email: 'slowed@shop.example', password: PASSWORD }, '10.2.1.2')).statusCode).toBe(200);
    // Once the second has passed, the next failure doubles the wait.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await signIn(t, { email: 'slowed@shop.example', password: 'wrong again' }, '10.2.1.1')).statusCode).toBe(401);
    const longer = await signIn(t, { email: 'slowed@shop.example', password: PASSWORD }, '10.2.1.1');
    expect(longer.statusCode).toBe(429);
    expect(Number(longer.headers['retry-after'])).toBe(2);
  });

  it('after 20 failures from one address, refuses that address (any e-mail) with 429; another address goes on', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await signIn(t, { email: `guess${i}@shop.example`, password: 'guess' }, '10.3.0.1');
      expect(res.statusCode).toBe(401);
    }
    const refused = await signIn(t, { email: 'owner@shop.example', password: PASSWORD }, '10.3.0.1');
    expect(refused.statusCode).toBe(429);
    expect(codesOf(refused)).toEqual(['console_sign_in_throttled']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signIn(t, { email: 'owner@shop.example', password: PASSWORD }, '10.3.0.2')).statusCode).toBe(200);
  });

  it('a successful sign-in forgets the earlier failures of its e-mail and address', async () => {
    await invitedOperator(t, owner, 'forgiven@shop.example', 'viewer');
    for (let i = 0; i < 3; i++) await signIn(t, { email: 'forgiven@shop.example', password: 'wrong' }, '10.4.0.1');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await signIn(t, { email: 'forgiven@shop.example', password: PASSWORD }, '10.4.0.1')).statusCode).toBe(200);
    // Remembered, the 4th and 5th failures would be refused (a 2 s wait); forgotten, they are just wrong.
    const again = [];
    for (let i = 0; i < 3; i++) again.push((await signIn(t, { email: 'forgiven@shop.example', password: 'wrong' }, '10.4.0.1')).statusCode);
    expect(again).toEqual([401, 401, 401]);
  });

  it('refuses a body without e-mail or password with 400 keyed by the field', async () => {
    const res = await signIn(t, { email: 'owner@shop.example' }, '10.4.0.2');
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual(['password']);
  });
});

describe('TOTP second factor', () => {
  it('once confirmed, sign-in needs the code: missing 401 console_totp_required, wrong 401 console_totp_invalid, right 200', async () => {
    const agent = await invitedOperator(t, owner, 'totp@shop.example', 'support');
    const setup = await consoleCall(t, agent, 'POST', '/console/api/totp/setup');
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret, otpauthUri } = setup.json();
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    const totp = totpFor(secret);
    // Not on until a code is confirmed: sign-in still needs no code.
    expect((await signIn(t, { email: 'totp@shop.example', password: PASSWORD }, '10.5.0.1')).statusCode).toBe(200);
    const wrongConfirm = await consoleCall(t, agent, 'POST', '/console/api/totp/confirm', {
      code: totp.generate({ timestamp: Date.now() - 600_000 }),
    });
    expect(wrongConfirm.statusCode).toBe(400);
    expect(codesOf(wrongConfirm)).toEqual(['console_totp_invalid']);
    const confirmed = await consoleCall(t, agent, 'POST', '/console/api/totp/confirm', { code: totp.generate() });
    expect(confirmed.statusCode, confirmed.body).toBe(204);
    expect((await consoleCall(t, agent, 'GET', '/console/api/session')).json().operator.totpEnabled).toBe(true);
    // Once on, setting up or confirming again is refused with the generic state code.
    for (const [url, body] of [
      ['/console/api/totp/setup', undefined],
      ['/console/api/totp/confirm', { code: totp.generate() }],
    ] as const) {
      const again = await consoleCall(t, agent, 'POST', url, body);
      expect(again.statusCode, url).toBe(409);
      expect(codesOf(again), url).toEqual(['state_conflict']);
    }

    const missing = await signIn(t, { email: 'totp@shop.example', password: PASSWORD }, '10.5.0.2');
    expect(missing.statusCode).toBe(401);
    expect(codesOf(missing)).toEqual(['console_totp_required']);
    expect(sessionCookieOf(missing)).toBeUndefined();
    const wrong = await signIn(
      t,
      { email: 'totp@shop.example', password: PASSWORD, totpCode: totp.generate({ timestamp: Date.now() - 600_000 }) },
      '10.5.0.2',
    );
    expect(wrong.statusCode).toBe(401);
    expect(codesOf(wrong)).toEqual(['console_totp_invalid']);
    // The next step's code (the one just confirmed cannot be used again), within the ±1 step accepted.
    const nextCode = totp.generate({ timestamp: Date.now() + 30_000 });
    const right = await signIn(t, { email: 'totp@shop.example', password: PASSWORD, totpCode: nextCode }, '10.5.0.2');
    expect(right.statusCode, right.body).toBe(200);
    expect(sessionCookieOf(right)).toBeDefined();
    // A code is accepted once.
    const replayed = await signIn(t, { email: 'totp@shop.example', password: PASSWORD, totpCode: nextCode }, '10.5.0.3');
    expect(replayed.statusCode).toBe(401);
    expect(codesOf(replayed)).toEqual(['console_totp_invalid']);
    // Still a wrong password first: the same answer as without TOTP, revealing nothing about the second factor.
    const wrongPassword = await signIn(t, { email: 'totp@shop.example', password: 'nope' }, '10.5.0.3');
    expect(codesOf(wrongPassword)).toEqual(['console_credentials_invalid']);
  });

  it('turning it off needs a valid code', async () => {
    const agent = await invitedOperator(t, owner, 'totp-off@shop.example', 'viewer');
    const { secret } = (await consoleCall(t, agent, 'POST', '/console/api/totp/setup')).json();
    const totp = totpFor(secret);
    expect(
      (await consoleCall(t, agent, 'POST', '/console/api/totp/confirm', { code: totp.generate({ timestamp: Date.now() - 30_000 }) }))
        .statusCode,
    ).toBe(204);
    const wrong = await consoleCall(t, agent, 'POST', '/console/api/totp/disable', {
      code: totp.generate({ timestamp: Date.now() - 600_000 }),
    });
    expect(wrong.statusCode).toBe(400);
    expect((await consoleCall(t, agent, 'POST', '/console/api/totp/disable', { code: totp.generate() })).statusCode).toBe(204);
    expect((await signIn(t, { email: 'totp-off@shop.example', password: PASSWORD }, '10.5.0.4')).statusCode).toBe(200);
  });
});

describe('CSRF', () => {
  it('a write without X-CSRF-Token, or with another session’s, is 403 csrf_token_invalid; with it, it goes through', async () => {
    const agent = await invitedOperator(t, owner, 'csrf@shop.example', 'viewer');
    const other = signedInAgent(await signIn(t, { email: 'owner@shop.example', password: PASSWORD }, '10.6.0.1'));
    const missing = await consoleCall(t, agent, 'POST', '/console/api/totp/setup', undefined, { csrf: null });
    expect(missing.statusCode).toBe(403);
    expect(errorsOf(missing)).toEqual([{ Key: 'X-CSRF-Token', Value: expect.any(String), Code: 'csrf_token_invalid' }]);
    const foreign = await consoleCall(t, agent, 'POST', '/console/api/totp/setup', undefined, { csrf: other.csrfToken });
    expect(foreign.statusCode).toBe(403);
    expect(codesOf(foreign)).toEqual(['csrf_token_invalid']);
    expect((await consoleCall(t, agent, 'POST', '/console/api/totp/setup')).statusCode).toBe(200);
    // Reads need none.
    expect((await consoleCall(t, agent, 'GET', '/console/api/session', undefined, { csrf: null })).statusCode).toBe(200);
  });
});

describe('sessions', () => {
  const hashOf = async (agent: ConsoleAgent) => {
    const { createHash } = await import('node:crypto');
    return createHash('sha256').update(agent.cookie.split('=')[1]!).digest('hex');
  };

  it('idle past its expiry: 401 console_session_required', async () => {
    const agent = signedInAgent(await signIn(t, { email: 'owner@shop.example', password: PASSWORD }, '10.7.0.1'));
    expect((await consoleCall(t, agent, 'GET', '/console/api/session')).statusCode).toBe(200);
    await sql`update operator_sessions set idle_expires_at = now() - interval '1 second' where token_hash = ${await hashOf(agent)}`.execute(
      t.database.db,
    );
    const res = await consoleCall(t, agent, 'GET', '/console/api/session');
    expect(res.statusCode).toBe(401);
    expect(errorsOf(res)).toEqual([{ Key: 'session', Value: expect.any(String), Code: 'console_session_required' }]);
  });

  it('use slides the idle expiry, never past the absolute cap, and the cap ends an active session', async () => {
    const agent = signedInAgent(await signIn(t, { email: 'owner@shop.example', password: PASSWORD }, '10.7.0.2'));
    const hash = await hashOf(agent);
    await sql`update operator_sessions set idle_expires_at = now() + interval '5 seconds', absolute_expires_at = now() + interval '2 minutes' where token_hash = ${hash}`.execute(
      t.database.db,
    );
    expect((await consoleCall(t, agent, 'GET', '/console/api/session')).statusCode).toBe(200);
    const slid = await sql<{
      idle: Date;
      absolute: Date;
    }>`select idle_expires_at as idle, absolute_expires_at as absolute from operator_sessions where token_hash = ${hash}`.execute(
      t.database.db,
    );
    const row = slid.rows[0]!;
    expect(new Date(row.idle).getTime()).toBe(new Date(row.absolute).getTime());
    // Active (idle far ahead), but past its cap.
    await sql`update operator_sessions set idle_expires_at = now() + interval '20 minutes', absolute_expires_at = now() - interval '1 second' where token_hash = ${hash}`.execute(
      t.database.db,
    );
    expect((await consoleCall(t, agent, 'GET', '/console/api/session')).statusCode).toBe(401);
  });

  it('sign-out ends the session and clears the cookie', async () => {
    const agent = signedInAgent(await signIn(t, { email: 'owner@shop.example', password: PASSWORD }, '10.7.0.3'));
    const out = await consoleCall(t, agent, 'POST', '/console/api/sign-out');
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^renew_console=; .*Max-Age=0/);
    expect((await consoleCall(t, agent, 'GET', '/console/api/session')).statusCode).toBe(401);
  });
});
