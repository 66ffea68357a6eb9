import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  PRO_MONTHLY,
  activate,
  listInvoices,
  newCustomer,
  newSubscription,
  readSubscription,
} from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { deposit } from '../lifecycle/lifecycle-fixtures.js';

/*
 * The SubscriptionChange e-mail (issue 28): one per change applied now, scheduled, or applied by the renewal, in the
 * customer's language, with the plans, the quantities, the change invoice's amount and the next charge; none when
 * the customer's preference is off. Through the HTTP layer and the outbox worker to a real SMTP server.
 */

const BRAND = 'Inkwell Paper';
let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await startTestApp({
    catalog: testCatalog({ planChanges: { allowed: [{ from: 'BASIC', to: 'PRO' }] }, emails: { brandName: BRAND } }),
    // The background billing clock leaves advanced accounts alone: only the advances below renew.
    app: { testClocks: true, email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20, retryBaseMs: 50 } },
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

type Body = Record<string, any>;
const NEW_YORK = { billing: { country: 'US', state: 'NY' } };

async function advance(account: TestAccount, to: string) {
  const res = await t.call('POST', '/v1/testclock/advance', { to }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

async function change(subscriptionId: number, body: Body, account: TestAccount): Promise<Body> {
  const res = await t.call('POST', `/v1/subscriptions/${subscriptionId}/changes`, body, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

let n = 0;
/** A fresh account on 2027-03-15 and an Active New York customer (4 % tax) of it, paid ahead, on one plan frequency. */
async function subscriber(language: string, planFrequencyId: number) {
  const account = await t.newAccount();
  await advance(account, '2027-03-15T09:00:00Z');
  n += 1;
  const email = `change.${n}@example.com`;
  const customerId = await newCustomer(t, { ...NEW_YORK, firstName: 'Ada', lastName: 'Lovelace', primaryEmail: email, language }, account);
  const subscriptionId = await newSubscription(t, customerId, planFrequencyId, account);
  await deposit(t, customerId, '500', account);
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(res.statusCode, res.body).toBe(200);
  await advance(account, '2027-03-25T10:00:00Z');
  return { account, customerId, subscriptionId, email };
}

/** The SubscriptionChange rows the outbox holds for a customer (what was written, sent or not). */
async function changeEmailsOf(customerId: number) {
  return t.database.db
    .selectFrom('emailOutbox')
    .select(['subject', 'body'])
    .where('customerId', '=', customerId)
    .where('emailType', '=', 'SubscriptionChange')
    .orderBy('id')
    .execute();
}

/** The mails received whose subject starts with one of the prefixes, once there are `count` of them. */
async function mailsTo(address: string, count: number, subject: RegExp) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const mails = (await smtp.mailsTo(address, 0, 0)).filter((m) => subject.test(m.subject));
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const moneyIn = (language: string, amount: number) =>
  new Intl.NumberFormat(language, { style: 'currency', currency: 'USD' }).format(amount);
const dateIn = (language: string, isoDate: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${isoDate}T00:00:00Z`));

describe('the SubscriptionChange e-mail', () => {
  it('a change now (Basic to Pro): one e-mail in French, naming both plans, the seats, the change invoice and the next charge', async () => {
    const { account, customerId, subscriptionId, email } = await subscriber('fr', BASIC_MONTHLY);
    const preview = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY, preview: true }, account);
    expect(preview.invoice).not.toBeNull();
    const applied = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account);
    expect(applied.invoice.invoiceAmount).toBeGreaterThan(0);

    const [mail, ...more] = await mailsTo(email, 1, new RegExp(`^${BRAND}\u202f: votre formule`));
    expect(more).toEqual([]);
    expect(mail?.subject).toBe(`${BRAND}\u202f: votre formule a changé`);
    expect(mail!.text).toContain(`Votre abonnement est passé de Basic (mensuel) à Pro (mensuel) le ${dateIn('fr', '2027-03-25')}.`);
    expect(mail!.text).toContain('Quantités\u202f: Seat\u202f: 1 → 5.');
    expect(mail!.text).toContain(
      `Ce changement est facturé sur la facture ${applied.invoice.invoiceNumber}\u202f: ${moneyIn('fr', applied.invoice.invoiceAmount)}.`,
    );
    expect(applied.nextRenewal.date).toBe('2027-04-15');
    expect(mail!.text).toContain(
      `Votre prochain prélèvement\u202f: ${moneyIn('fr', applied.nextRenewal.amount)} le ${dateIn('fr', '2027-04-15')}.`,
    );
    expect(mail!.html).toContain('lang="fr"');
    expect(mail!.html).toContain('Pro (mensuel)');
    expect(mail!.html).toContain(`facture ${applied.invoice.invoiceNumber}`);
    // the preview wrote none; the change one, in its transaction
    expect(await changeEmailsOf(customerId)).toHaveLength(1);
  });

  it('a change scheduled, then applied by the renewal: one e-mail each, in German, with the date and the next charge', async () => {
    const { account, customerId, subscriptionId, email } = await subscriber('de', PRO_MONTHLY);
    const scheduled = await change(subscriptionId, { quantities: { SEAT: 2 }, timing: 'periodEnd' }, account);
    expect(scheduled.invoice).toBeNull();
    expect(scheduled.nextRenewal).toEqual({ date: '2027-04-15', amount: 26 });

    const [first] = await mailsTo(email, 1, new RegExp(`^${BRAND}: Ihr Tarif`));
    expect(first?.subject).toBe(`${BRAND}: Ihr Tarif ändert sich am 15. April 2027`);
    expect(first!.text).toContain('Ihr Abonnement Pro (monatlich) ändert sich wie gewünscht am 15. April 2027.');
    expect(first!.text).toContain('Mengen: Seat: 5 → 2.');
    expect(first!.text).toContain(`Ihre nächste Abbuchung: ${moneyIn('de', 26)} am 15. April 2027.`);
    expect(first!.text).not.toContain('Rechnung');

    await advance(account, '2027-04-15T10:00:00Z');
    const renewal = (await listInvoices(t, customerId, account)).at(-1)!;
    expect(renewal.invoiceAmount).toBe(26);
    const renewed = await readSubscription(t, subscriptionId, account);
    expect(renewed.nextPeriodStartDate).toBe('2027-05-15');

    const mails = await mailsTo(email, 2, new RegExp(`^${BRAND}: Ihr Tarif`));
    expect(mails).toHaveLength(2);
    const second = mails[1]!;
    expect(second.subject).toBe(`${BRAND}: Ihr Tarif wurde geändert`);
    expect(second.text).toContain('Ihr Abonnement Pro (monatlich) wurde am 15. April 2027 geändert.');
    expect(second.text).toContain('Mengen: Seat: 5 → 2.');
    // the renewal bills 2 seats from today; the charge after it: the same plan, a month later
    expect(second.text).toContain(`Ihre nächste Abbuchung: ${moneyIn('de', renewal.invoiceAmount)} am 15. Mai 2027.`);
    expect(await changeEmailsOf(customerId)).toHaveLength(2);
  });

  it('a downgrade now gives a credit: the e-mail says so in English, with the amount given back', async () => {
    const { account, customerId, subscriptionId, email } = await subscriber('en', PRO_MONTHLY);
    const applied = await change(subscriptionId, { quantities: { SEAT: 2 }, timing: 'now' }, account);
    expect(applied.invoice.invoiceAmount).toBeLessThan(0);
    const [mail] = await mailsTo(email, 1, new RegExp(`^${BRAND}: your plan`));
    expect(mail?.subject).toBe(`${BRAND}: your plan has changed`);
    expect(mail!.text).toContain('Your Pro (monthly) subscription changed on March 25, 2027.');
    expect(mail!.text).toContain(
      `The change gives you a credit of ${moneyIn('en', -applied.invoice.invoiceAmount)} (invoice ${applied.invoice.invoiceNumber}), used for your next invoices.`,
    );
    expect(mail!.text).toContain(`Your next charge: ${moneyIn('en', applied.nextRenewal.amount)} on April 15, 2027.`);
    expect(await changeEmailsOf(customerId)).toHaveLength(1);
  });

  it("writes none when the customer's SubscriptionChange preference is off (the invoice's e-mail still goes)", async () => {
    const { account, customerId, subscriptionId, email } = await subscriber('es', BASIC_MONTHLY);
    const off = await t.call(
      'PUT',
      '/v1/CustomerEmailPreferences',
      { customerId, preferences: [{ emailType: 'SubscriptionChange', enabled: false }] },
      { as: account },
    );
    expect(off.statusCode, off.body).toBe(200);
    const applied = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account);
    const scheduled = await change(subscriptionId, { quantities: { SEAT: 3 }, timing: 'periodEnd' }, account);
    expect(scheduled.subscription.pendingChange).not.toBeNull();
    const [invoiceMail] = await mailsTo(email, 1, new RegExp(`^${BRAND}: factura ${applied.invoice.invoiceNumber} `));
    expect(invoiceMail).toBeDefined();
    await advance(account, '2027-04-15T10:00:00Z');
    expect(await changeEmailsOf(customerId)).toEqual([]);
    expect((await smtp.mailsTo(email, 0, 0)).filter((m) => /plan (cambia|ha cambiado)/.test(m.subject))).toEqual([]);
    // The preference on again (null: the account default, on): the next change is told.
    const on = await t.call('PUT', '/v1/CustomerEmailPreferences', { customerId, preferences: [] }, { as: account });
    expect(on.statusCode, on.body).toBe(200);
    await change(subscriptionId, { quantities: { SEAT: 4 }, timing: 'now' }, account);
    const [mail] = await mailsTo(email, 1, new RegExp(`^${BRAND}: su plan`));
    expect(mail?.subject).toBe(`${BRAND}: su plan ha cambiado`);
    expect(mail!.text).toContain('Cantidades: Seat: 3 → 4.');
  });
});
