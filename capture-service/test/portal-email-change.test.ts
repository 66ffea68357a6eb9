import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCustomer } from '../../billing-service/test/helpers/api-fixtures.js';
import { startSmtpStandIn } from '../../billing-service/test/helpers/smtp-stand-in.js';
import { freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';
import { refusalOf, signInToPortal } from './helpers/portal-session.js';

/*
 * A new e-mail address given in the portal is proven by the new address before it replaces the old one (issue 38):
 * else whoever holds a portal session (a link forwarded, a shared computer) could move the customer's e-mails,
 * sign-in links included, to an address of their own.
 */

let t: CaptureTest;
let app: FastifyInstance;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;

beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await startCaptureTest({ billing: { email: { smtpUrl: smtp.url, from: 'billing@shop.test', pollMs: 20, retryBaseMs: 50 } } });
  app = await t.build({ emailEnabled: true, capture: { tokenlessCapture: 'never' } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

let n = 0;
const address = (name: string) => `${name}.${Date.now()}.${++n}@example.com`;

/** The confirmation link the e-mail to `to` carries. */
async function confirmationLink(to: string): Promise<URL> {
  const [mail] = await smtp.mailsTo(to, 1);
  const url = /https?:\/\/\S+\/portal\/confirm-email\?token=[^\s"]+/.exec(mail!.text)?.[0];
  expect(url, mail!.text).toBeDefined();
  return new URL(url!);
}

function confirm(link: URL) {
  return app.inject({
    method: 'POST',
    url: '/portal/confirm-email',
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token: link.searchParams.get('token')!, lang: link.searchParams.get('lang') ?? '' }).toString(),
  });
}

const primaryEmailOf = async (customerId: number) => (await t.billing.call('GET', `/v1/customers/${customerId}`)).json().primaryEmail;

describe('changing the e-mail address in the portal', () => {
  it('keeps the old address until the link sent to the new one is opened, once; audited both times', async () => {
    const old = address('old');
    const customerId = await newCustomer(t.billing, { primaryEmail: old, language: 'fr' });
    const portal = await signInToPortal(t.billing, app, customerId);
    const fresh = address('new');

    const asked = await portal.call('PUT', '/portal/api/contact', { firstName: 'Grace', primaryEmail: fresh });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json()).toMatchObject({ firstName: 'Grace', primaryEmail: old, pendingEmail: fresh });
    expect(await primaryEmailOf(customerId)).toBe(old);
    expect((await portal.call('GET', '/portal/api/overview')).json().customer).toMatchObject({ primaryEmail: old, pendingEmail: fresh });

    // The confirmation goes to the new address, in the customer's language, its link the button.
    const [mail] = await smtp.mailsTo(fresh, 1);
    expect(mail!.subject).toContain('confirmez votre nouvelle adresse');
    expect(mail!.html).toContain('<html lang="fr"');
    const link = await confirmationLink(fresh);
    expect(link.pathname).toBe('/portal/confirm-email');
    expect(link.searchParams.get('token')).toMatch(/^ec_[A-Za-z0-9_-]{43}$/);
    // Only the token's hash is kept.
    const stored = await t.billing.database.db.selectFrom('portalEmailChanges').selectAll().where('customerId', '=', customerId).execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(link.searchParams.get('token')!);

    // Fetching the link (a mail scanner) changes nothing: it shows a button that posts the token.
    const shown = await app.inject({ method: 'GET', url: `${link.pathname}${link.search}`, remoteAddress: freshIp() });
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['content-type']).toContain('text/html');
    expect(shown.body).toContain('<html lang="fr"');
    expect(shown.body).toContain('action="/portal/confirm-email"');
    expect(await primaryEmailOf(customerId)).toBe(old);

    const confirmed = await confirm(link);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.body).toContain(fresh);
    expect(await primaryEmailOf(customerId)).toBe(fresh);
    expect((await portal.call('GET', '/portal/api/overview')).json().customer).toMatchObject({ primaryEmail: fresh, pendingEmail: null });

    // Used: refused with a page (no JSON reaches a browser), the address as confirmed.
    const again = await confirm(link);
    expect(again.statusCode).toBe(410);
    expect(again.headers['content-type']).toContain('text/html');
    expect(again.body).toContain('a déjà servi');
    expect(await primaryEmailOf(customerId)).toBe(fresh);

    const audit = await t.billing.database.db
      .selectFrom('auditLog')
      .select(['changes', 'source', 'actor'])
      .where('entityType', '=', 'Customer')
      .where('entityId', '=', customerId)
      .where('source', '=', 'Portal')
      .orderBy('id')
      .execute();
    const told = audit.map((a) => JSON.stringify(a.changes));
    expect(told.some((c) => c.includes('primaryEmailChange') && c.includes(fresh))).toBe(true);
    expect(told.some((c) => c.includes('"primaryEmail"') && c.includes(old) && c.includes(fresh))).toBe(true);
  }, 60_000);

  it('a newer request replaces the pending one; an unknown token and the same address change nothing', async () => {
    const old = address('keep');
    const customerId = await newCustomer(t.billing, { primaryEmail: old });
    const portal = await signInToPortal(t.billing, app, customerId);
    const [first, second] = [address('first'), address('second')];
    expect((await portal.call('PUT', '/portal/api/contact', { primaryEmail: first })).statusCode).toBe(200);
    const firstLink = await confirmationLink(first);
    expect((await portal.call('PUT', '/portal/api/contact', { primaryEmail: second })).json().pendingEmail).toBe(second);
    expect((await confirm(firstLink)).statusCode).toBe(410);
    expect(await primaryEmailOf(customerId)).toBe(old);
    const made = new URL(firstLink);
    made.searchParams.set('token', `ec_${'A'.repeat(43)}`);
    expect((await confirm(made)).statusCode).toBe(410);

    // The address on file, in other letters: nothing to prove, nothing pending.
    const same = await portal.call('PUT', '/portal/api/contact', { primaryEmail: old.toUpperCase() });
    expect(same.json()).toMatchObject({ primaryEmail: old, pendingEmail: second });

    expect((await confirm(await confirmationLink(second))).statusCode).toBe(200);
    expect(await primaryEmailOf(customerId)).toBe(second);
  }, 60_000);

  it("the merchant's API still changes the address at once; the portal refuses a malformed one by field", async () => {
    const customerId = await newCustomer(t.billing, { primaryEmail: address('api') });
    const current = (await t.billing.call('GET', `/v1/customers/${customerId}`)).json();
    const moved = address('moved');
    expect((await t.billing.call('PUT', '/v1/customers', { ...current, primaryEmail: moved })).statusCode).toBe(200);
    expect(await primaryEmailOf(customerId)).toBe(moved);

    const full = await signInToPortal(t.billing, app, customerId);
    expect(refusalOf(await full.call('PUT', '/portal/api/contact', { primaryEmail: 'not-an-address' }), 400).Key).toBe('primaryEmail');
    expect(await primaryEmailOf(customerId)).toBe(moved);
  }, 60_000);
});
