/**
 * The e-mails' buttons lead into the customer portal by default (PortalEmailLinks, wired in
 * createAppContext): a declined payment's e-mail carries a 7-day link, in the customer's language,
 * that opens a portal session scoped to updating the card and paying, after the customer confirms whose
 * portal it is; the next such e-mail leaves it working (README "Customer portal").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailActionLink } from '../../src/portal/link-issuing.js';
import { openPortalLink } from '../../src/portal/links.js';
import { activeCustomer, cardBody } from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await startTestApp({ app: { email: { smtpUrl: smtp.url, from: 'billing@shop.test', pollMs: 20, retryBaseMs: 50 } } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

// The token is in the fragment: browsers never send it to a server or in a Referer.
const portalLinkIn = (text: string) => text.match(/https?:\/\/\S+\/portal\/open\?lang=[a-z]{2}#token=(pl_[A-Za-z0-9_-]+)/);
const confirmed = { confirmed: true };

describe('the e-mails link into the customer portal', () => {
  it('a declined payment’s e-mail opens a card-and-pay session of that customer, in French, once confirmed; a newer one leaves it working', async () => {
    const email = 'camille@example.com';
    const created = await t.call('POST', '/v1/customers', {
      firstName: 'Camille',
      lastName: 'Martin',
      primaryEmail: email,
      language: 'fr',
    });
    expect(created.statusCode, created.body).toBe(200);
    const customerId = created.json().id as number;
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber: '4000000000000341' }) });
    expect(card.statusCode, card.body).toBe(200);
    const declined = () => t.call('POST', '/v1/payments', { customerId, amount: 12.5, paymentMethodId: card.json().id });
    expect((await declined()).statusCode).toBe(402);

    const [first] = await smtp.mailsTo(email, 1);
    const link = portalLinkIn(first!.text);
    expect(link, first!.text).not.toBeNull();
    expect(first!.html).toContain(link![1]);
    // Any browser is first told whose portal it opens (c•••@example.com), and no session exists until the click.
    const asked = await openPortalLink(t.app.ctx, link![1]!);
    expect(asked).toEqual({ confirmationNeeded: true, maskedEmail: 'c•••@example.com', locale: 'fr' });
    expect(await t.database.db.selectFrom('portalSessions').select('id').where('customerId', '=', customerId).execute()).toEqual([]);
    const opened = await openPortalLink(t.app.ctx, link![1]!, confirmed);
    expect(opened).toMatchObject({ customerId, scope: 'cardAndPay', flow: 'paymentMethodUpdate', locale: 'fr', taskDone: false });
    // an e-mail link opens again while it lives (a second click, a mail scanner)
    expect(await openPortalLink(t.app.ctx, link![1]!, confirmed)).toMatchObject({ customerId });

    expect((await declined()).statusCode).toBe(402);
    const mails = await smtp.mailsTo(email, 2);
    const newer = portalLinkIn(mails[1]!.text);
    expect(newer![1]).not.toBe(link![1]);
    // The older e-mail's button still updates the card: its task has no end but its expiry.
    expect(await openPortalLink(t.app.ctx, link![1]!, confirmed)).toMatchObject({ customerId, flow: 'paymentMethodUpdate' });
    expect(await openPortalLink(t.app.ctx, newer![1]!, confirmed)).toMatchObject({ customerId, flow: 'paymentMethodUpdate' });
    const stored = await t.database.db.selectFrom('portalLinks').select('supersededAt').where('customerId', '=', customerId).execute();
    expect(stored.map((row) => row.supersededAt)).toEqual([null, null]);
  });

  it('a pay link whose invoices are settled opens on the overview (nothing left to pay); once expired it is refused as gone', async () => {
    const { customerId } = await activeCustomer(t);
    const ctx = t.app.ctx;
    const pay = await createEmailActionLink(ctx, { accountId: t.account.accountId, customerId, flow: 'payInvoices' });
    const token = new URL(pay.url).hash.replace('#token=', '');
    expect(await openPortalLink(ctx, token, confirmed)).toMatchObject({ flow: 'payInvoices', taskDone: false });
    const owed = (await t.call('GET', `/v1/customers/${customerId}/overview`)).json().arBalance as number;
    expect(owed).toBeGreaterThan(0);
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: owed, paymentMethod: 'Check', reference: 'cheque 12' });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await openPortalLink(ctx, token, confirmed)).toMatchObject({ customerId, flow: null, taskDone: true });
    const update = await createEmailActionLink(ctx, { accountId: t.account.accountId, customerId, flow: 'paymentMethodUpdate' });
    const updateToken = new URL(update.url).hash.replace('#token=', '');
    expect(await openPortalLink(ctx, updateToken, confirmed)).toMatchObject({ flow: 'paymentMethodUpdate', taskDone: false });
    await t.database.db
      .updateTable('portalLinks')
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where('customerId', '=', customerId)
      .execute();
    await expect(openPortalLink(ctx, updateToken, confirmed)).rejects.toMatchObject({ kind: 'gone' });
  });
});
