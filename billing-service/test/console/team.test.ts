import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstOwnerInvitation } from '../../src/console/operators/service.js';
import { BASE_URL, errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  acceptInvitation,
  codesOf,
  consoleCall,
  firstOwner,
  invitedOperator,
  PASSWORD,
  signIn,
  tokenOf,
  type ConsoleAgent,
} from './console-helpers.js';

// Invitations and the team (README "Console"): owners invite, links work once, the last owner stays.
let t: TestApp;
let owner: ConsoleAgent;
beforeAll(async () => {
  t = await startTestApp();
  owner = await firstOwner(t, 'owner@shop.example');
});
afterAll(async () => t?.close());

async function invite(email: string, role: string, agent = owner) {
  return consoleCall(t, agent, 'POST', '/console/api/invitations', { email, role });
}

describe('invitations', () => {
  it('an owner invites; the link shows its e-mail and role, works once (then 410), and the new operator has the role', async () => {
    const res = await invite('Support.Person@Shop.example', 'support');
    expect(res.statusCode, res.body).toBe(201);
    const { invitation, link } = res.json();
    expect(invitation).toEqual({
      id: expect.any(Number),
      email: 'support.person@shop.example',
      role: 'support',
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(link).toMatch(new RegExp(`^${BASE_URL}/console/#/invitation/rci_[A-Za-z0-9_-]{43}$`));
    const days = (Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7, 2);

    const shown = await consoleCall(t, undefined, 'GET', `/console/api/invitations/${tokenOf(link)}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ email: 'support.person@shop.example', role: 'support', firstOwner: false });

    const agent = await acceptInvitation(t, link, { name: 'Sam Support', password: PASSWORD });
    expect(agent.operator).toEqual({
      id: expect.any(Number),
      email: 'support.person@shop.example',
      name: 'Sam Support',
      role: 'support',
      totpEnabled: false,
    });
    expect((await consoleCall(t, agent, 'GET', '/console/api/session')).json().operator.role).toBe('support');

    const again = await consoleCall(t, undefined, 'POST', `/console/api/invitations/${tokenOf(link)}/accept`, {
      name: 'Twice',
      password: PASSWORD,
    });
    expect(again.statusCode).toBe(410);
    expect(codesOf(again)).toEqual(['console_invitation_used']);
    expect((await consoleCall(t, undefined, 'GET', `/console/api/invitations/${tokenOf(link)}`)).statusCode).toBe(410);
    // The operator signs in with the password it chose.
    expect((await signIn(t, { email: 'support.person@shop.example', password: PASSWORD }, '10.9.0.1')).statusCode).toBe(200);
  });

  it('an unknown link is 404, an expired one 410 console_invitation_expired', async () => {
    expect((await consoleCall(t, undefined, 'GET', '/console/api/invitations/rci_unknown')).statusCode).toBe(404);
    const { link, invitation } = (await invite('late@shop.example', 'viewer')).json();
    await sql`update operator_invitations set expires_at = now() - interval '1 second' where id = ${invitation.id}`.execute(t.database.db);
    const res = await consoleCall(t, undefined, 'POST', `/console/api/invitations/${tokenOf(link)}/accept`, {
      name: 'Late',
      password: PASSWORD,
    });
    expect(res.statusCode).toBe(410);
    expect(codesOf(res)).toEqual(['console_invitation_expired']);
  });

  it('a password under 12 characters is refused with 400 keyed password, and the link stays usable', async () => {
    const { link } = (await invite('short@shop.example', 'viewer')).json();
    const res = await consoleCall(t, undefined, 'POST', `/console/api/invitations/${tokenOf(link)}/accept`, {
      name: 'Short',
      password: 'elevenchars',
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual(['password']);
    expect((await acceptInvitation(t, link, { name: 'Short', password: 'twelve chars' })).operator.role).toBe('viewer');
  });

  it('a non-owner cannot invite (403); nobody can invite an e-mail that is already an operator (409)', async () => {
    const billing = await invitedOperator(t, owner, 'billing@shop.example', 'billing');
    const refused = await invite('someone@shop.example', 'viewer', billing);
    expect(refused.statusCode).toBe(403);
    expect(codesOf(refused)).toEqual(['console_role_forbidden']);
    const taken = await invite('BILLING@shop.example', 'viewer');
    expect(taken.statusCode).toBe(409);
    expect(codesOf(taken)).toEqual(['console_operator_exists']);
  });

  it('the first-owner link names no e-mail (the accept gives one), and is useless once the account has an operator', async () => {
    const other = await t.newAccount();
    const link = (await firstOwnerInvitation(t.database.db, other.accountId, BASE_URL))!;
    const second = (await firstOwnerInvitation(t.database.db, other.accountId, BASE_URL))!;
    expect((await consoleCall(t, undefined, 'GET', `/console/api/invitations/${tokenOf(link)}`)).json()).toEqual({
      email: null,
      role: 'owner',
      firstOwner: true,
    });
    const noEmail = await consoleCall(t, undefined, 'POST', `/console/api/invitations/${tokenOf(link)}/accept`, {
      name: 'X',
      password: PASSWORD,
    });
    expect(noEmail.statusCode).toBe(400);
    expect(errorsOf(noEmail).map((e) => e.Key)).toEqual(['email']);
    const first = await acceptInvitation(t, link, { name: 'Other Owner', password: PASSWORD, email: 'boss@other.example' });
    expect(first.operator.role).toBe('owner');
    expect((await consoleCall(t, undefined, 'GET', `/console/api/invitations/${tokenOf(second)}`)).statusCode).toBe(410);
    expect(await firstOwnerInvitation(t.database.db, other.accountId, BASE_URL)).toBeUndefined();
    // Accounts are apart: this owner sees only its own team.
    const team = (await consoleCall(t, first, 'GET', '/console/api/operators')).json();
    expect(team.operators.map((o: { email: string }) => o.email)).toEqual(['boss@other.example']);
  });
});

describe('the team', () => {
  it('lists operators and open invitations to the owner', async () => {
    await invite('pending@shop.example', 'billing');
    const res = await consoleCall(t, owner, 'GET', '/console/api/operators');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.operators[0]).toEqual({
      id: owner.operator.id,
      email: 'owner@shop.example',
      name: 'First Owner',
      role: 'owner',
      totpEnabled: false,
      createdAt: expect.any(String),
      lastSignInAt: expect.any(String),
    });
    expect(body.invitations).toContainEqual({
      id: expect.any(Number),
      email: 'pending@shop.example',
      role: 'billing',
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
    });
  });

  it('the last owner cannot be demoted or removed (409); with a second owner it can, and roles apply at once', async () => {
    const demote = await consoleCall(t, owner, 'PATCH', `/console/api/operators/${owner.operator.id}`, { role: 'billing' });
    expect(demote.statusCode).toBe(409);
    expect(codesOf(demote)).toEqual(['console_last_owner']);
    const self = await consoleCall(t, owner, 'DELETE', `/console/api/operators/${owner.operator.id}`);
    expect(self.statusCode).toBe(409);
    expect(codesOf(self)).toEqual(['console_operator_self']);

    const deputy = await invitedOperator(t, owner, 'deputy@shop.example', 'viewer');
    const promoted = await consoleCall(t, owner, 'PATCH', `/console/api/operators/${deputy.operator.id}`, { role: 'owner' });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json().operator.role).toBe('owner');
    // The deputy's session has the new role on its next request.
    expect((await consoleCall(t, deputy, 'GET', '/console/api/operators')).statusCode).toBe(200);
    // Now the first owner may be demoted, and then the deputy is the last owner.
    expect((await consoleCall(t, deputy, 'PATCH', `/console/api/operators/${owner.operator.id}`, { role: 'billing' })).statusCode).toBe(
      200,
    );
    const lastRemoval = await consoleCall(t, owner, 'DELETE', `/console/api/operators/${deputy.operator.id}`);
    expect(lastRemoval.statusCode).toBe(403);
    expect((await consoleCall(t, deputy, 'PATCH', `/console/api/operators/${deputy.operator.id}`, { role: 'viewer' })).statusCode).toBe(
      409,
    );
    // Restored for the other tests.
    expect((await consoleCall(t, deputy, 'PATCH', `/console/api/operators/${owner.operator.id}`, { role: 'owner' })).statusCode).toBe(200);
  });

  it('a removed operator’s session ends at once and it cannot sign in', async () => {
    const leaving = await invitedOperator(t, owner, 'leaving@shop.example', 'support');
    expect((await consoleCall(t, leaving, 'GET', '/console/api/session')).statusCode).toBe(200);
    expect((await consoleCall(t, owner, 'DELETE', `/console/api/operators/${leaving.operator.id}`)).statusCode).toBe(204);
    expect((await consoleCall(t, leaving, 'GET', '/console/api/session')).statusCode).toBe(401);
    expect((await signIn(t, { email: 'leaving@shop.example', password: PASSWORD }, '10.9.0.2')).statusCode).toBe(401);
    const audit = await sql<{
      actor: string;
      source: string;
      action: string;
    }>`select actor, source, action from audit_log where entity_type = 'Operator' and entity_id = ${leaving.operator.id} order by id`.execute(
      t.database.db,
    );
    expect(audit.rows.at(-1)).toEqual({ actor: 'owner@shop.example', source: 'Console', action: 'delete' });
  });
});
