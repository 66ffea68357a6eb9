import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpStandIn } from '../../billing-service/test/helpers/smtp-stand-in.js';
import { SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  h = await startCheckoutHarness({ billing: { app: { email: { smtpUrl: smtp.url, from: 'billing@shop.test', pollMs: 20 } } } });
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

async function mailTo(address: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mails = smtp.received.filter((m) => m.to.includes(address));
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("the checkout's language", () => {
  it('is stored with the customer the checkout creates, and its e-mails are written in it', async () => {
    const email = 'klara@example.com';
    const started = await h.proxy('POST', '/customers', { ...SHOPPER, email, language: 'de' });
    expect(started.statusCode, started.body).toBe(200);
    const { customerId } = started.json();
    expect((await h.billing.call('GET', `/v1/customers/${customerId}`)).json().language).toBe('de');

    expect((await h.billing.call('POST', '/v1/payments', { customerId, amount: '5', paymentMethod: 'Cash' })).statusCode).toBe(200);
    const [mail] = await mailTo(email, 1);
    expect(mail?.subject).toBe('Inkwell: Zahlung über 5,00\u00a0$ eingegangen');
    expect(mail!.text).toContain('Hallo Grace Hopper,');
    expect(mail!.text).toContain('Wir haben Ihre Zahlung über 5,00\u00a0$ erhalten. Vielen Dank!');
    expect(mail!.html).toContain('lang="de"');
  });

  it("leaves a checkout without a language to the account's default, and refuses one it does not speak", async () => {
    const started = await h.proxy('POST', '/customers', { ...SHOPPER, email: 'sam@example.com' });
    expect(started.statusCode, started.body).toBe(200);
    expect((await h.billing.call('GET', `/v1/customers/${started.json().customerId}`)).json().language).toBe('en');
    const refused = await h.proxy('POST', '/customers', { ...SHOPPER, email: 'it@example.com', language: 'it' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().Errors.map((e: { Key: string }) => e.Key)).toEqual(['language']);
  });
});
