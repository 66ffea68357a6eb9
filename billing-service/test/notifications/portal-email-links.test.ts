/**
 * The e-mails' buttons lead into the customer portal by default (PortalEmailLinks, wired in
 * createAppContext): a declined payment's e-mail carries a 7-day link, in the customer's language,
 * that opens a portal session scoped to updating the card and paying; the next such e-mail
 * supersedes it (README "Customer portal").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPortalLink } from '../../src/portal/links.js';
import { cardBody } from '../helpers/api-fixtures.js';
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

const portalLinkIn = (text: string) => text.match(/https?:\/\/\S+\/portal\/open\?token=(pl_[A-Za-z0-9_-]+)\S*/);

describe('the e-mails link into the customer portal', () => {
  it('a declined payment’s e-mail opens a card-and-pay session of that customer, in French; the next one supersedes it', async () => {
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
    const opened = await openPortalLink(t.app.ctx, link![1]!);
    expect(opened).toMatchObject({ customerId, scope: 'cardAndPay', flow: 'paymentMethodUpdate', locale: 'fr' });
    // an e-mail link opens again while it lives (a second click, a mail scanner)
    expect((await openPortalLink(t.app.ctx, link![1]!)).customerId).toBe(customerId);

    expect((await declined()).statusCode).toBe(402);
    const mails = await smtp.mailsTo(email, 2);
    const newer = portalLinkIn(mails[1]!.text);
    expect(newer![1]).not.toBe(link![1]);
    await expect(openPortalLink(t.app.ctx, link![1]!)).rejects.toMatchObject({ kind: 'gone' });
    expect((await openPortalLink(t.app.ctx, newer![1]!)).customerId).toBe(customerId);
  });
});
