import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_LANGUAGES, type CustomerLanguage } from '../../src/catalog/schema.js';
import { findCustomerRow } from '../../src/customers/repository.js';
import type { EmailActionLinks } from '../../src/notifications/email-action-links.js';
import { SAMPLE_EMAILS, SAMPLE_EVENTS, SAMPLE_INVOICE, SAMPLE_REQUESTED } from '../../src/notifications/email-samples.js';
import {
  renderEmail,
  type CustomerEmailType,
  type NotificationEvent,
  type NotificationType,
} from '../../src/notifications/email-templates.js';
import { EMAIL_WORDS } from '../../src/notifications/email-words/index.js';
import { requestSignInLink } from '../../src/portal/sign-in-links.js';
import { ACTIVATION_FLAGS, activate, newSubscription } from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';

/** The customer portal's stand-in: answers a link per flow and customer, reading the customer in the e-mail's own transaction. */
const askedFor: Array<{ customerId: number; flow: string; language: string; email: string | null }> = [];
const links: EmailActionLinks = {
  async linkFor(input, db) {
    const row = await db.selectFrom('customers').select(['primaryEmail', 'lastName']).where('id', '=', input.customerId).executeTakeFirst();
    askedFor.push({ customerId: input.customerId, flow: input.flow, language: input.language, email: row?.primaryEmail ?? null });
    if (row?.lastName === 'Nolink') return null;
    return `https://portal.test/${input.flow}/${input.customerId}?lang=${input.language}&t=a&b=<c>`;
  },
};

const BRAND = 'Inkwell Paper';
let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  const catalog = testCatalog({ emails: { brandName: BRAND, brandColor: '#0f766e', logoUrl: 'https://cdn.inkwell.test/logo.png' } });
  t = await startTestApp({
    catalog,
    app: { email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20, retryBaseMs: 50 }, emailActionLinks: links },
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

let n = 0;
async function customer(body: Record<string, unknown> = {}) {
  n += 1;
  const email = `ada.${n}@example.com`;
  const res = await t.call('POST', '/v1/customers', { firstName: 'Ada', lastName: 'Lovelace', primaryEmail: email, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.json().id as number, email };
}

/** Lower-case words of letters only (numbers, amounts, URLs and one-letter words left out). */
function wordsOf(text: string): Set<string> {
  const withoutUrls = text.replace(/https?:\/\/\S+/g, ' ');
  return new Set((withoutUrls.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => w.length > 1));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const TAG = /<\/?[a-z][^>]*>/i;
const TYPES = Object.keys(SAMPLE_EVENTS) as NotificationType[];
/** With the e-mails a customer asks for (the portal sign-in link). */
const ALL_TYPES = Object.keys(SAMPLE_EMAILS) as CustomerEmailType[];

/** A card with insufficient funds as the customer's default, and a 5.00 payment with it that fails (a PaymentFailed e-mail). */
async function failPaymentOf5(customerId: number) {
  await t.call('POST', '/v1/paymentmethods/creditcard', {
    customerId,
    cardNumber: '4000000000009995',
    firstName: 'A',
    lastName: 'L',
    expirationMonth: 12,
    expirationYear: 40,
    cvv: '123',
  });
  expect((await t.call('POST', '/v1/payments', { customerId, amount: '5', useDefaultPaymentMethod: true })).statusCode).toBe(402);
}

describe("customers' e-mails", () => {
  it('renders every type in every language as HTML that MJML accepts and as text without tags', async () => {
    expect(ALL_TYPES).toContain('PortalSignIn');
    expect(ALL_TYPES).toContain('EmailChangeConfirmation');
    for (const type of ALL_TYPES) {
      for (const language of CUSTOMER_LANGUAGES) {
        const email = await renderEmail({
          branding: { name: BRAND, logoUrl: null, color: '#0f766e' },
          language,
          customerName: 'Ada',
          event: SAMPLE_EMAILS[type],
          invoice: SAMPLE_INVOICE,
          actionUrl: 'https://portal.test/x',
        });
        expect(email.mjmlErrors, `${type} ${language}`).toEqual([]);
        expect(email.subject.length).toBeGreaterThan(BRAND.length + 3);
        expect(email.text).not.toMatch(TAG);
        expect(email.html).toContain(`lang="${language}"`);
        // Nothing is loaded from elsewhere (no web font: a request that would tell the font's host the e-mail was opened).
        const urls = [...email.html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
        // (the sign-in e-mail's button and the new address's confirmation are their own links)
        expect(new Set(urls), `${type} ${language}`).toEqual(
          new Set(
            type === 'PortalSignIn' || type === 'EmailChangeConfirmation'
              ? [SAMPLE_REQUESTED[type].url.replace(/&/g, '&amp;')]
              : type in
                  {
                    PaymentFailed: 1,
                    AuthenticationRequired: 1,
                    CreditCardExpiry: 1,
                    InvoiceOverdue: 1,
                    CustomerSuspend: 1,
                    InvoicePost: 1,
                  }
                ? ['https://portal.test/x']
                : [],
          ),
        );
      }
    }
  });

  it('sends every type in every language through the outbox as text with an HTML alternative', async () => {
    const byLanguage = new Map<CustomerLanguage, { id: number; email: string }>();
    for (const language of CUSTOMER_LANGUAGES) byLanguage.set(language, await customer({ language }));
    for (const [language, c] of byLanguage) {
      // Activation and the invoice it posts send two of them; the others are told of as the services do.
      await newSubscription(t, c.id);
      expect((await activate(t, c.id, ACTIVATION_FLAGS)).statusCode).toBe(200);
      const row = (await findCustomerRow(t.database.db, t.account.accountId, c.id))!;
      for (const type of TYPES.filter((ty) => ty !== 'CustomerActivation' && ty !== 'InvoicePost')) {
        const event: NotificationEvent = SAMPLE_EVENTS[type];
        await t.database.db.transaction().execute((trx) => t.app.ctx.notifier!.enqueue(trx, row, event));
      }
      await t.database.db.transaction().execute((trx) => t.app.ctx.notifier!.enqueueRequested(trx, row, SAMPLE_REQUESTED.PortalSignIn));
      // (a new address's confirmation goes to that address: here the customer's own, so that every type lands in one mailbox)
      const confirmation = { ...SAMPLE_REQUESTED.EmailChangeConfirmation, newEmail: c.email };
      await t.database.db.transaction().execute((trx) => t.app.ctx.notifier!.enqueueRequested(trx, row, confirmation));
      const mails = await smtp.mailsTo(c.email, ALL_TYPES.length);
      expect(mails, language).toHaveLength(ALL_TYPES.length);
      const subjects = new Set(mails.map((m) => m.subject));
      expect(subjects.size, `${language}: one subject per type`).toBe(ALL_TYPES.length);
      for (const mail of mails) {
        expect(mail.text.trim().length, `${language} ${mail.subject}`).toBeGreaterThan(40);
        // (the portal stand-in's links carry "<c>" on purpose: the HTML must escape it)
        expect(mail.text.replace(/https?:\/\/\S+/g, '')).not.toMatch(TAG);
        expect(mail.html).toMatch(/^<!doctype html>/i);
        expect(mail.html).toContain(`lang="${language}"`);
        expect(mail.html).toContain('https://cdn.inkwell.test/logo.png');
        expect(mail.subject.startsWith(BRAND)).toBe(true);
      }
    }
    // English, French, German and Spanish subjects of the same type differ.
    const activation = await Promise.all(
      [...byLanguage.values()].map(async (c) => (await smtp.mailsTo(c.email, ALL_TYPES.length))[0]!.subject),
    );
    expect(new Set(activation).size).toBe(4);
  });

  it("writes a French customer's failed payment in French only, with the portal's link as its button", async () => {
    const c = await customer({ language: 'fr' });
    await failPaymentOf5(c.id);
    const [mail] = await smtp.mailsTo(c.email, 1);
    expect(mail?.subject).toBe(`${BRAND}\u202f: échec de votre paiement de 5,00\u00a0$US`);

    const url = `https://portal.test/paymentMethodUpdate/${c.id}?lang=fr&t=a&b=<c>`;
    expect(askedFor).toContainEqual({ customerId: c.id, flow: 'paymentMethodUpdate', language: 'fr', email: c.email });
    expect(mail!.text).toContain(`Mettre à jour ma carte\u202f: ${url}`);
    const hrefs = [...mail!.html!.matchAll(/href="([^"]*)"/g)].map((m) =>
      m[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'),
    );
    expect(hrefs).toContain(url);
    expect(mail!.html).toContain('Mettre à jour ma carte');

    // Not one word of the English e-mail for the same event (the brand and the customer's name aside).
    const english = await renderEmail({
      branding: { name: BRAND, logoUrl: null, color: '#0f766e' },
      language: 'en',
      customerName: 'Ada Lovelace',
      event: { type: 'PaymentFailed', amount: '5.00', currency: 'USD', declineCode: 'insufficient_funds' },
      actionUrl: url,
    });
    const names = wordsOf(`${BRAND} Ada Lovelace`);
    const englishWords = [...wordsOf(`${english.subject} ${english.text}`)].filter((w) => !names.has(w));
    expect(englishWords.length).toBeGreaterThan(20);
    const french = wordsOf(
      `${mail!.subject} ${mail!.text} ${mail!.html!.replace(/<style[\s\S]*?<\/style>/g, ' ').replace(/<[^>]+>/g, ' ')}`,
    );
    expect(englishWords.filter((w) => french.has(w))).toEqual([]);
  });

  it("writes the portal sign-in e-mail in the customer's language, else the sign-in page's, else the default, branded, its link the button", async () => {
    const spanish = await customer({ language: 'es' });
    const none = await customer();
    const neither = await customer();
    const draft = await customer({ language: 'es' });
    // A Draft customer (anyone who starts a checkout) gets no sign-in link; the others are past checkout.
    await t.database.db.updateTable('customers').set({ status: 'Active' }).where('id', 'in', [spanish.id, none.id, neither.id]).execute();
    const ask = (email: string, locale: 'de' | null) => requestSignInLink(t.app.ctx, { accountId: t.account.accountId, email, locale });
    await ask(spanish.email, 'de');
    await ask(none.email, 'de');
    await ask(neither.email, null);
    await ask(draft.email, 'de');
    for (const [c, language, subject] of [
      [spanish, 'es', `${BRAND}: su enlace de acceso`],
      [none, 'de', `${BRAND}: Ihr Anmeldelink`],
      [neither, 'en', `${BRAND}: your sign-in link`],
    ] as const) {
      const [mail] = await smtp.mailsTo(c.email, 1);
      expect(mail?.subject, language).toBe(subject);
      expect(mail!.html).toContain(`lang="${language}"`);
      expect(mail!.html).toContain('https://cdn.inkwell.test/logo.png');
      expect(mail!.html).toContain('#0f766e');
      // The one-use link, opening the portal in the same language: the HTML's button and the text's line.
      const link = /https?:\/\/\S+\/portal\/open\?lang=(\w+)#token=pl_[\w-]+/.exec(mail!.text);
      expect(link?.[1]).toBe(language);
      const hrefs = [...mail!.html!.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
      expect(hrefs).toEqual([link![0]]);
      expect(mail!.text).toContain(`${EMAIL_WORDS[language].signInButton}: ${link![0]}`);
    }
    const toDraft = await t.database.db.selectFrom('emailOutbox').select('id').where('customerId', '=', draft.id).execute();
    expect(toDraft).toEqual([]);
  });

  it('gives no button when the portal answers no link', async () => {
    const c = await customer({ lastName: 'Nolink' });
    await failPaymentOf5(c.id);
    const [mail] = await smtp.mailsTo(c.email, 1);
    expect(mail?.subject).toBe(`${BRAND}: your payment of $5.00 failed`);
    expect(mail!.text).not.toContain('Update your card');
    expect(mail!.html).not.toContain('Update your card');
    expect(mail!.html).not.toContain('portal.test');
  });

  it("lists the posted invoice's lines and total, links to the invoices and keeps the PDF attached", async () => {
    const c = await customer();
    await newSubscription(t, c.id);
    expect((await activate(t, c.id, ACTIVATION_FLAGS)).statusCode).toBe(200);
    const [invoice] = (await t.call('GET', `/v1/Customers/${c.id}/Invoices`)).json();
    const detail = (await t.call('GET', `/v1/Invoices/${invoice.id}`)).json();
    const mail = (await smtp.mailsTo(c.email, 2)).find((m) => m.subject.startsWith(`${BRAND}: invoice ${invoice.invoiceNumber}`));
    expect(mail).toBeDefined();
    const dollars = (amount: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(amount);
    expect(detail.charges.length).toBeGreaterThan(0);
    for (const charge of detail.charges) {
      expect(mail!.text).toMatch(new RegExp(`${escapeRegExp(charge.name)} +${escapeRegExp(dollars(charge.amount))}`));
      expect(mail!.html).toContain(charge.name);
    }
    expect(mail!.text).toMatch(new RegExp(`Total +${escapeRegExp(dollars(detail.invoiceAmount))}`));
    expect(mail!.html).toContain(dollars(detail.invoiceAmount));
    expect(mail!.text).toContain(`View your invoices: https://portal.test/invoices/${c.id}?lang=en&t=a&b=<c>`);
    expect(mail!.attachments.map((a) => a.contentType)).toContain('application/pdf');
  });
});
