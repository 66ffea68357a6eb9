import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailActionLink } from '@renew/billing-service/portal';
import { activeCustomer, cardBody, newCustomer } from '../../billing-service/test/helpers/api-fixtures.js';
import { messageOf } from '../../billing-service/src/notifications/email-content.js';
import { BASE_URL } from '../../billing-service/test/helpers/test-app.js';
import { ACCENT_MIN_CONTRAST, contrastWithWhite, portalBranding } from '../src/portal/portal-pages.js';
import { freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

let t: CaptureTest;
let app: FastifyInstance;

beforeAll(async () => {
  t = await startCaptureTest();
  app = await t.build({ emailEnabled: true });
}, 60_000);
afterAll(() => t?.close());

const api = () => t.billing;

async function portalLink(customerId: number, body: Record<string, unknown> = {}) {
  const res = await api().call('POST', '/v1/portalSessions', { customerId, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: number; url: string; expiresTimestamp: string };
}

// The token travels in the fragment (#token=…), which no server or Referer ever sees.
const tokenOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get('token')!;

function openLink(token: string, remoteAddress = freshIp()) {
  return app.inject({
    method: 'POST',
    url: '/portal/open',
    remoteAddress,
    headers: { 'content-type': 'application/json' },
    // The customer's click on the confirmation (portal-links.test.ts: what a browser that did not ask sees first).
    payload: JSON.stringify({ token, confirmed: true }),
  });
}

interface Session {
  cookie: string;
  csrf: string;
}

async function openSession(token: string): Promise<Session> {
  const res = await openLink(token);
  expect(res.statusCode, res.body).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  expect(setCookie).toMatch(/^renew_portal=ps_[A-Za-z0-9_-]{43};/);
  expect(setCookie).toContain('HttpOnly');
  expect(setCookie).toContain('SameSite=Strict');
  return { cookie: setCookie.split(';')[0]!, csrf: res.json().csrfToken };
}

function portal(session: Session, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, options: { csrf?: boolean } = {}) {
  return app.inject({
    method,
    url,
    remoteAddress: freshIp(),
    headers: {
      cookie: session.cookie,
      ...(options.csrf === false ? {} : { 'x-portal-csrf': session.csrf }),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

function expectRefusal(res: LightMyRequestResponse, status: number, code?: string) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({
    ErrorId: expect.any(Number),
    HttpStatusCode: status,
    Errors: [expect.objectContaining({ Key: expect.any(String), Value: expect.any(String) })],
  });
  if (code) expect(body.Errors[0].Code).toBe(code);
  return body;
}

async function addCard(customerId: number, overrides: Record<string, unknown> = {}) {
  const res = await api().call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody(overrides) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as number;
}

describe('POST /v1/portalSessions', () => {
  it('answers a one-use link on the portal host, keeping only the hash of its token, and audits it', async () => {
    const customerId = await newCustomer(api());
    const link = await portalLink(customerId, { flow: 'invoices', locale: 'fr', returnUrl: 'https://shop.example.com/account' });
    expect(link.url).toMatch(new RegExp(`^${BASE_URL}/portal/open\\?lang=fr#token=pl_[A-Za-z0-9_-]{43}$`));
    const lifetime = Date.parse(link.expiresTimestamp) - Date.now();
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000);
    const rows = await api().database.db.selectFrom('portalLinks').selectAll().where('id', '=', link.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(tokenOf(link.url));
    const audit = await api()
      .database.db.selectFrom('auditLog')
      .selectAll()
      .where('entityType', '=', 'Customer')
      .where('entityId', '=', customerId)
      .execute();
    expect(audit.some((a) => JSON.stringify(a.changes).includes('portalSession'))).toBe(true);
  });

  it('refuses the public key, an unknown customer, and a cancel flow without its subscription', async () => {
    const customerId = await newCustomer(api());
    const publicKey = await api().app.inject({
      method: 'POST',
      url: '/v1/portalSessions',
      headers: { authorization: `Basic ${api().account.publicApiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ customerId }),
    });
    expectRefusal(publicKey, 401);
    expectRefusal(await api().call('POST', '/v1/portalSessions', { customerId: 999_999 }), 404);
    const noSubscription = expectRefusal(await api().call('POST', '/v1/portalSessions', { customerId, flow: 'subscriptionCancel' }), 400);
    expect(noSubscription.Errors[0].Key).toBe('subscriptionId');
    const badUrl = expectRefusal(await api().call('POST', '/v1/portalSessions', { customerId, returnUrl: 'javascript:alert(1)' }), 400);
    expect(badUrl.Errors[0].Key).toBe('returnUrl');
  });
});

describe('opening a link', () => {
  it('shows a page on GET without spending the link; the confirmed POST spends it, and a second POST is refused as used', async () => {
    const customerId = await newCustomer(api());
    const token = tokenOf((await portalLink(customerId)).url);
    for (let i = 0; i < 2; i += 1) {
      const page = await app.inject({ method: 'GET', url: `/portal/open?token=${token}`, remoteAddress: freshIp() });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.body).toContain('method="post" action="/portal/open"');
      // the page never carries the token: its script reads it from the address and takes it out
      expect(page.body).not.toContain(token);
    }
    const form = await app.inject({
      method: 'POST',
      url: '/portal/open',
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `token=${token}&confirmed=1`,
    });
    expect(form.statusCode, form.body).toBe(303);
    expect(form.headers.location).toBe('/portal/');
    expectRefusal(await openLink(token), 410, 'portal_link_used');
  });

  it('refuses an expired link and a made-up one with the spec error body', async () => {
    const customerId = await newCustomer(api());
    const link = await portalLink(customerId);
    await api()
      .database.db.updateTable('portalLinks')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('id', '=', link.id)
      .execute();
    expectRefusal(await openLink(tokenOf(link.url)), 410, 'portal_link_expired');
    expectRefusal(await openLink('pl_not-a-real-token'), 400, 'portal_link_invalid');
  });

  it('an e-mail link opens more than once, and a newer one for the same flow leaves it working', async () => {
    const customerId = await newCustomer(api());
    const ctx = app.ctx;
    const first = await createEmailActionLink(ctx, { accountId: api().account.accountId, customerId, flow: 'paymentMethodUpdate' });
    await openSession(tokenOf(first.url));
    await openSession(tokenOf(first.url));
    const second = await createEmailActionLink(ctx, { accountId: api().account.accountId, customerId, flow: 'paymentMethodUpdate' });
    expect(Date.parse(second.expiresTimestamp) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    await openSession(tokenOf(first.url));
    await openSession(tokenOf(second.url));
  });
});

describe('a portal session', () => {
  it('refuses a write without its CSRF token, and everything once signed out', async () => {
    const customerId = await newCustomer(api());
    const session = await openSession(tokenOf((await portalLink(customerId)).url));
    expectRefusal(await portal(session, 'PUT', '/portal/api/contact', { firstName: 'Grace' }, { csrf: false }), 403);
    expect((await portal(session, 'PUT', '/portal/api/contact', { firstName: 'Grace' })).statusCode).toBe(200);
    expect((await api().call('GET', `/v1/customers/${customerId}`)).json().firstName).toBe('Grace');
    expect((await portal(session, 'POST', '/portal/api/sign-out')).statusCode).toBe(204);
    expectRefusal(await portal(session, 'GET', '/portal/api/overview'), 401, 'portal_session_expired');
    expectRefusal(
      await app.inject({ method: 'GET', url: '/portal/api/overview', remoteAddress: freshIp() }),
      401,
      'portal_session_expired',
    );
  });

  it("shows the overview with the API's own figures", async () => {
    const { customerId, subscriptionIds } = await activeCustomer(api());
    await addCard(customerId);
    const session = await openSession(tokenOf((await portalLink(customerId)).url));
    const res = await portal(session, 'GET', '/portal/api/overview');
    expect(res.statusCode, res.body).toBe(200);
    const overview = res.json();
    const fromApi = (await api().call('GET', `/v1/customers/${customerId}/overview`)).json();
    const subscription = (await api().call('GET', `/v1/subscriptions/${subscriptionIds[0]}`)).json();
    expect(overview.balance).toBe(fromApi.arBalance);
    expect(overview.balance).toBeGreaterThan(0);
    expect(overview.customer).toMatchObject({ id: customerId, status: fromApi.status, currency: fromApi.currency });
    expect(overview.subscriptions).toEqual([
      expect.objectContaining({
        id: subscriptionIds[0],
        planName: subscription.planName,
        status: 'Active',
        nextChargeDate: subscription.nextPeriodStartDate,
        nextChargeAmount: subscription.amount,
      }),
    ]);
    expect(overview.defaultCard).toMatchObject({
      brand: 'Visa',
      lastFour: '4242',
      expirationMonth: 12,
      expirationYear: 2030,
      expiringSoon: false,
    });
  });

  it("cannot read or change another customer's invoices, cards or subscriptions (every route with the other's ids)", async () => {
    const mine = await activeCustomer(api());
    const theirs = await activeCustomer(api());
    const theirCard = await addCard(theirs.customerId);
    const theirInvoice = theirs.invoices[0]!.id as number;
    const theirSubscription = theirs.subscriptionIds[0]!;
    const session = await openSession(tokenOf((await portalLink(mine.customerId)).url));
    expectRefusal(await portal(session, 'GET', `/portal/api/invoices/${theirInvoice}/pdf`), 404);
    expectRefusal(await portal(session, 'POST', '/portal/api/default-card', { paymentMethodId: theirCard }), 404);
    expectRefusal(await portal(session, 'POST', '/portal/api/pay', { paymentMethodId: theirCard }), 404);
    expectRefusal(await portal(session, 'POST', `/portal/api/subscriptions/${theirSubscription}/cancel`, { mode: 'periodEnd' }), 404);
    expectRefusal(await portal(session, 'POST', `/portal/api/subscriptions/${theirSubscription}/uncancel`), 404);
    // The lists and the overview hold this customer's things only.
    const invoices = (await portal(session, 'GET', '/portal/api/invoices')).json() as Array<{ id: number; customerId: number }>;
    expect(invoices.map((i) => i.id)).toEqual([mine.invoices[0]!.id]);
    const overview = (await portal(session, 'GET', '/portal/api/overview')).json();
    expect(overview.subscriptions.map((s: { id: number }) => s.id)).toEqual(mine.subscriptionIds);
    expect(overview.defaultCard).toBeNull();
    // Nothing of theirs moved.
    const card = (await api().call('GET', `/v1/paymentMethods/${theirCard}/creditCard`)).json();
    expect(card.isDefault).toBe(true);
    expect((await api().call('GET', `/v1/subscriptions/${theirSubscription}`)).json().status).toBe('Active');
    expect(await api().database.db.selectFrom('payments').select('id').where('customerId', '=', theirs.customerId).execute()).toEqual([]);
    // Its own invoice's PDF is there.
    const pdf = await portal(session, 'GET', `/portal/api/invoices/${mine.invoices[0]!.id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it("lists the customer's own credit notes with their PDFs (issue 40), never another customer's", async () => {
    const mine = await activeCustomer(api());
    const theirs = await activeCustomer(api());
    const creditNote = async (invoice: Record<string, any>) => {
      const res = await api().call('POST', '/v1/creditNotes', {
        invoiceId: invoice.id,
        lines: [{ invoiceLineId: invoice.charges[0]!.id, amount: 1 }],
        reason: 'goodwill',
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { id: number; number: number; total: number };
    };
    const own = await creditNote(mine.invoices[0]!);
    const other = await creditNote(theirs.invoices[0]!);
    const session = await openSession(tokenOf((await portalLink(mine.customerId)).url));
    const listed = (await portal(session, 'GET', '/portal/api/credit-notes')).json() as Array<{
      id: number;
      total: number;
      invoiceNumber: number;
    }>;
    expect(listed.map((n) => [n.id, n.total, n.invoiceNumber])).toEqual([[own.id, own.total, mine.invoices[0]!.invoiceNumber]]);
    const pdf = await portal(session, 'GET', `/portal/api/credit-notes/${own.id}/pdf`);
    expect([pdf.statusCode, pdf.headers['content-type'], pdf.rawPayload.subarray(0, 5).toString()]).toEqual([
      200,
      'application/pdf',
      '%PDF-',
    ]);
    expectRefusal(await portal(session, 'GET', `/portal/api/credit-notes/${other.id}/pdf`), 404);
  });

  it('opened from an e-mail link, may pay but not cancel or change details', async () => {
    const { customerId, subscriptionIds, invoices } = await activeCustomer(api());
    await addCard(customerId);
    const link = await createEmailActionLink(app.ctx, { accountId: api().account.accountId, customerId, flow: 'payInvoices' });
    const session = await openSession(tokenOf(link.url));
    expectRefusal(
      await portal(session, 'POST', `/portal/api/subscriptions/${subscriptionIds[0]}/cancel`, { mode: 'periodEnd' }),
      403,
      'portal_action_not_allowed',
    );
    expectRefusal(await portal(session, 'PUT', '/portal/api/contact', { firstName: 'Mallory' }), 403, 'portal_action_not_allowed');
    expect((await api().call('GET', `/v1/subscriptions/${subscriptionIds[0]}`)).json().status).toBe('Active');
    const paid = await portal(session, 'POST', '/portal/api/pay', {});
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'Succeeded', source: 'SelfServicePortal', amount: invoices[0]!.invoiceAmount });
    const invoice = (await api().call('GET', `/v1/Invoices/${invoices[0]!.id}`)).json();
    expect(invoice.outstandingBalance).toBe(0);
    const audit = await api()
      .database.db.selectFrom('auditLog')
      .select('source')
      .where('entityType', '=', 'Payment')
      .where('entityId', '=', paid.json().paymentActivityId)
      .execute();
    expect(audit.map((a) => a.source)).toEqual(['Portal']);
  });

  it('cancels a subscription at period end with the reason kept, and uncancels it', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(api());
    const session = await openSession(tokenOf((await portalLink(customerId)).url));
    const id = subscriptionIds[0]!;
    // The catalogue's default lets customers cancel at period end only.
    expectRefusal(
      await portal(session, 'POST', `/portal/api/subscriptions/${id}/cancel`, { mode: 'now' }),
      403,
      'portal_action_not_allowed',
    );
    const cancelled = await portal(session, 'POST', `/portal/api/subscriptions/${id}/cancel`, {
      mode: 'periodEnd',
      reason: 'too expensive',
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const subscription = (await api().call('GET', `/v1/subscriptions/${id}`)).json();
    expect(cancelled.json().subscriptions[0].cancellation).toEqual({
      mode: 'periodEnd',
      effectiveDate: subscription.nextPeriodStartDate,
      reason: 'too expensive',
    });
    expectRefusal(await portal(session, 'POST', `/portal/api/subscriptions/${id}/cancel`, { mode: 'periodEnd' }), 409);
    const uncancelled = await portal(session, 'POST', `/portal/api/subscriptions/${id}/uncancel`);
    expect(uncancelled.statusCode, uncancelled.body).toBe(200);
    expect(uncancelled.json().subscriptions[0].cancellation).toBeNull();
    const rows = await api().database.db.selectFrom('portalCancellations').selectAll().where('subscriptionId', '=', id).execute();
    expect(rows).toEqual([expect.objectContaining({ reason: 'too expensive', mode: 'periodEnd', withdrawnAt: expect.any(Date) })]);
  });
});

describe('details a customer keeps up to date', () => {
  it('creates, then updates, the billing address through the address service, and only on this customer', async () => {
    const customerId = await newCustomer(api());
    const session = await openSession(tokenOf((await portalLink(customerId)).url));
    const created = await portal(session, 'PUT', '/portal/api/billing-address', {
      line1: '1 Rue de Rivoli',
      city: 'Paris',
      postalZip: '75001',
      countryId: 250,
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({ addressType: 'Billing', line1: '1 Rue de Rivoli', city: 'Paris' });
    const updated = await portal(session, 'PUT', '/portal/api/billing-address', {
      line1: '2 Rue de Rivoli',
      city: 'Paris',
      postalZip: '75001',
      countryId: 250,
    });
    expect(updated.json().id).toBe(created.json().id);
    const fromApi = (await api().call('GET', `/v1/Addresses/${created.json().id}`)).json();
    expect(fromApi).toMatchObject({ line1: '2 Rue de Rivoli', customerAddressPreferenceId: customerId });
    const tooLong = expectRefusal(await portal(session, 'PUT', '/portal/api/billing-address', { line1: 'x'.repeat(61) }), 400);
    expect(tooLong.Errors[0].Key).toBe('line1');
  });

  it('prefills the address form from the address on file, country by id and state by ISO 3166-2 code, from the countries it offers', async () => {
    const customerId = await newCustomer(api());
    const session = await openSession(tokenOf((await portalLink(customerId)).url));
    expect((await portal(session, 'GET', '/portal/api/overview')).json().billingAddress).toBeNull();
    const saved = await portal(session, 'PUT', '/portal/api/billing-address', {
      line1: '1 Front Street',
      city: 'Toronto',
      postalZip: 'M5V 2T6',
      countryId: 124,
      stateId: 'CA-ON',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await portal(session, 'GET', '/portal/api/overview')).json().billingAddress).toEqual({
      line1: '1 Front Street',
      line2: null,
      city: 'Toronto',
      postalZip: 'M5V 2T6',
      countryId: 124,
      state: 'CA-ON',
    });
    const countries = await portal(session, 'GET', '/portal/api/countries');
    expect(countries.statusCode).toBe(200);
    const canada = countries.json().find((c: { iso: string }) => c.iso === 'CA');
    expect(canada).toMatchObject({ id: 124, name: 'Canada' });
    expect(canada.states).toContainEqual({ code: 'CA-ON', name: 'Ontario' });
    // A state outside the country chosen is the address service's 400, keyed on the field.
    expectRefusal(await portal(session, 'PUT', '/portal/api/billing-address', { countryId: 250, stateId: 'CA-ON' }), 400);
    // Only with the session.
    expect((await app.inject({ method: 'GET', url: '/portal/api/countries', remoteAddress: freshIp() })).statusCode).toBe(401);
  });

  it('offers no e-mail preference the catalogue does not list in portal.editableEmailTypes', async () => {
    const customerId = await newCustomer(api());
    const session = await openSession(tokenOf((await portalLink(customerId)).url));
    expect((await portal(session, 'GET', '/portal/api/email-preferences')).json()).toEqual([]);
    const refused = expectRefusal(
      await portal(session, 'PUT', '/portal/api/email-preferences', { preferences: [{ emailType: 'InvoicePost', enabled: false }] }),
      400,
    );
    expect(refused.Errors[0].Key).toBe('preferences[0].emailType');
  });
});

describe('sign-in by e-mail', () => {
  async function signIn(email: string, remoteAddress = freshIp()) {
    return app.inject({
      method: 'POST',
      url: '/portal/sign-in',
      remoteAddress,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ account: api().account.publicApiKey, email, locale: 'de' }),
    });
  }

  it('answers the same for a known and an unknown address, and sends a one-use link to the known one only', async () => {
    const email = `known-${Date.now()}@example.com`;
    const customerId = await newCustomer(api(), { primaryEmail: email });
    await api().database.db.updateTable('customers').set({ status: 'Active' }).where('id', '=', customerId).execute();
    const known = await signIn(email.toUpperCase());
    const unknown = await signIn(`nobody-${Date.now()}@example.com`);
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    // Written after the answer (so both answer alike in time too): waited for.
    const outbox = () => api().database.db.selectFrom('emailOutbox').selectAll().where('emailType', '=', 'PortalSignIn').execute();
    await expect.poll(async () => (await outbox()).length, { timeout: 10_000 }).toBe(1);
    const sent = await outbox();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ customerId, toAddress: email });
    // Written like the customer's other e-mails (HTML and text), in the sign-in page's language: the customer has none stored.
    const message = await messageOf(sent[0]!); // as the outbox worker writes it out when it sends
    expect(message.subject).toBe(`${api().catalog.account.name}: Ihr Anmeldelink`);
    expect(message.html).toContain('<html lang="de"');
    const url = /https?:\/\/\S+\/portal\/open\?lang=de#token=pl_[\w-]+/.exec(message.text)![0];
    await openSession(tokenOf(url));
    expectRefusal(await openLink(tokenOf(url)), 410, 'portal_link_used');
  });

  it('is limited per e-mail and client address', async () => {
    const email = `flood-${Date.now()}@example.com`;
    const address = freshIp();
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push((await signIn(email, address)).statusCode);
    expect(answers).toEqual([202, 202, 202, 429]);
  });
});

describe('the portal pages', () => {
  it('serve one document in the link language with the portal script, framing only this host, and the script bundles', async () => {
    const page = await app.inject({ method: 'GET', url: '/portal/?lang=fr&flow=paymentMethodUpdate', remoteAddress: freshIp() });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="fr">');
    expect(page.body).toContain('<title>Votre compte</title>');
    expect(page.body).toContain('<renew-portal></renew-portal>');
    expect(page.headers['content-security-policy']).toContain("frame-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const script = await app.inject({ method: 'GET', url: '/portal/assets/portal.js', remoteAddress: freshIp() });
    expect(script.statusCode, script.body.slice(0, 500)).toBe(200);
    expect(script.headers['content-type']).toContain('text/javascript');
    // The element and the widget's hosted card frame are in it; the card number never is a field of this script.
    expect(script.body).toContain('renew-portal');
    expect(script.body).toContain('renew-hosted-card-frame');
    expect(script.body).not.toMatch(/cardNumber/);
  }, 60_000);

  it('lets the hosted card fields be framed by this host (the portal) even when shop domains are listed', async () => {
    const restricted = await t.build({ capture: { allowedShopDomains: ['https://shop.example.com'] } });
    const own = await restricted.inject({
      method: 'GET',
      url: '/hosted/card-fields?origin=http://portal.example.com',
      remoteAddress: freshIp(),
      headers: { host: 'portal.example.com' },
    });
    expect(own.statusCode, own.body).toBe(200);
    expect(own.headers['content-security-policy']).toContain("frame-ancestors 'self' https://shop.example.com");
    const stranger = await restricted.inject({
      method: 'GET',
      url: '/hosted/card-fields?origin=https://evil.example.net',
      remoteAddress: freshIp(),
    });
    expect(stranger.statusCode).toBe(403);
    await restricted.close();
  });
});

describe("the merchant's branding on the portal pages", () => {
  it('heads every page with the catalogue name and logo, allows that logo alone, and takes the colour as the accent', async () => {
    const branded = await t.build({
      emails: { brandName: 'Inkwell <Paper>', logoUrl: 'https://cdn.inkwell.test/logo.png', brandColor: '#0f766e' },
    });
    for (const url of ['/portal/?lang=de', '/portal/open?token=pl_x&lang=de', `/portal/sign-in?account=${api().account.publicApiKey}`]) {
      const page = await branded.inject({ method: 'GET', url, remoteAddress: freshIp() });
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).toContain(
        '<header class="merchant"><img src="https://cdn.inkwell.test/logo.png" alt="" height="40"><span class="merchant-name">Inkwell &lt;Paper&gt;</span></header>',
      );
      expect(page.body, url).toContain('--renew-accent:#0f766e;--renew-accent-text:#ffffff');
      expect(page.headers['content-security-policy'], url).toContain("img-src 'self' https://cdn.inkwell.test;");
    }
    await branded.close();
    // Without a logo: the name alone (the account's when no brandName), and images from this host only.
    const plain = await app.inject({ method: 'GET', url: '/portal/', remoteAddress: freshIp() });
    expect(plain.body).toContain(`<header class="merchant"><span class="merchant-name">${api().catalog.account.name}</span></header>`);
    expect(plain.headers['content-security-policy']).toContain("img-src 'self';");
  });

  it('darkens a colour that reads poorly on white until it has 4.5:1 contrast, and keeps one that does', () => {
    const brand = (color: string) => portalBranding({ name: 'Shop', logoUrl: null, color });
    expect(brand('#0f766e').accent).toBe('#0f766e');
    expect(contrastWithWhite('#f0a830')).toBeLessThan(ACCENT_MIN_CONTRAST);
    const amber = brand('#F0A830');
    expect(amber.accent).not.toBe('#f0a830');
    expect(contrastWithWhite(amber.accent)).toBeGreaterThanOrEqual(ACCENT_MIN_CONTRAST);
    // The same hue, darker: the channels keep their order and ratios (to rounding).
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(amber.accent.slice(i, i + 2), 16)) as [number, number, number];
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(b);
    expect(Math.abs(g / r - 0xa8 / 0xf0)).toBeLessThan(0.02);
    expect(brand('#ffffff').accent).toMatch(/^#([0-9a-f]{2})\1\1$/);
    expect(contrastWithWhite(brand('#ffffff').accent)).toBeGreaterThanOrEqual(ACCENT_MIN_CONTRAST);
    expect(amber.accentText).toBe('#ffffff');
  });
});

describe('the portal per client address', () => {
  it('has a budget of its own, apart from the captures’ (a view makes several requests)', async () => {
    const tight = await t.build({ ipRateLimits: { perMinute: 2, perDay: 100 } });
    try {
      const customerId = await newCustomer(api());
      const opened = await tight.inject({
        method: 'POST',
        url: '/portal/open',
        remoteAddress: '203.0.113.77',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ token: tokenOf((await portalLink(customerId)).url), confirmed: true }),
      });
      expect(opened.statusCode, opened.body).toBe(200);
      const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
      const answers = [];
      for (let i = 0; i < 5; i += 1)
        answers.push(
          (await tight.inject({ method: 'GET', url: '/portal/api/overview', remoteAddress: '203.0.113.77', headers: { cookie } }))
            .statusCode,
        );
      expect(answers).toEqual([200, 200, 200, 200, 200]);
      // The captures' own limit still holds for that address.
      const captures = [];
      for (let i = 0; i < 3; i += 1)
        captures.push(
          (
            await t.post(
              { ...t.params(customerId), publicApiKey: api().account.publicApiKey },
              { app: tight, remoteAddress: '203.0.113.77' },
            )
          ).statusCode,
        );
      expect(captures[2]).toBe(429);
    } finally {
      await tight.close();
    }
  });
});
