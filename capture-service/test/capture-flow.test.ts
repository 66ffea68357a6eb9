import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { errorsOf, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';
import { SandboxGateway } from '@renew/billing-service/payments';
import { RecordingGateway } from './helpers/recording-gateway.js';
import { activeCustomer } from '../../billing-service/test/helpers/api-fixtures.js';

let t: CaptureTest;
let gateway: RecordingGateway;
let recording: FastifyInstance;
beforeAll(async () => {
  t = await startCaptureTest();
  gateway = new RecordingGateway(t.billing.database.db);
  recording = await t.build({ gateway });
});
afterAll(async () => t?.close());

async function cardsOf(customerId: number) {
  const res = await t.billing.call('GET', `/v1/customers/${customerId}/paymentMethods/creditCard`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

async function paymentsOf(customerId: number) {
  const res = await t.billing.call('GET', `/v1/customers/${customerId}/payments`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

describe('the sandbox test cards', () => {
  it.each([
    ['4242424242424242', '123', 'Visa', '4242'],
    ['5555555555554444', '123', 'MasterCard', '4444'],
    ['378282246310005', '1234', 'AmericanExpress', '0005'],
  ])('stores %s and returns the credit card payment method', async (cardNumber, cvv, cardType, lastFour) => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { cardNumber, cvv }));
    expect(res.statusCode, res.body).toBe(200);
    const card = res.json();
    expect(card).toMatchObject({
      maskedCardNumber: `************${lastFour}`,
      cardType,
      expirationMonth: 12,
      expirationYear: 30,
      customerId,
      firstName: 'Ada',
      lastName: 'Lovelace',
      isDefault: true,
      storedInPlatformVault: true,
      email: 'ada@example.com',
      uri: `https://billing.test/v1/paymentMethods/${card.id}/creditCard`,
    });
    expect(card.externalCardId).toMatch(/^sbx_ok_/);
    expect(res.body).not.toContain(cardNumber);
    expect(await cardsOf(customerId)).toEqual([expect.objectContaining({ id: card.id, maskedCardNumber: `************${lastFour}` })]);
  });

  it.each([
    ['4000000000000002', 'the card was declined', 'card_declined'],
    ['4000000000000127', 'the security code (CVV) is incorrect', 'incorrect_cvc'],
  ])('refuses %s at validation with 400, the gateway’s declineCode, and stores nothing', async (cardNumber, message, declineCode) => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { cardNumber }));
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      { Key: 'Api Error', Value: `validation error: ${message} (${declineCode})`, Code: 'card_declined' },
      { Key: 'declineCode', Value: declineCode, Code: 'card_declined' },
    ]);
    expect(await cardsOf(customerId)).toEqual([]);
  });

  it.each(['4000000000000341', '4000000000009995'])('stores %s, which validates (its charges fail later)', async (cardNumber) => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { cardNumber }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().maskedCardNumber).toBe(`************${cardNumber.slice(-4)}`);
    expect(await cardsOf(customerId)).toHaveLength(1);
  });

  it.each([
    ['4000000000000341', 'card_declined', 'the card was declined'],
    ['4000000000009995', 'insufficient_funds', 'the card has insufficient funds'],
  ])('with a collection amount, %s fails to pay: 400 "payment failed", the card is removed again', async (cardNumber, code, message) => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { cardNumber, paymentCollectOptions: { collectionAmount: '19.99' } }));
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      { Key: 'Api Error', Value: `payment failed: ${message} (${code}); the card was not kept`, Code: 'card_declined' },
      { Key: 'declineCode', Value: code, Code: 'card_declined' },
    ]);
    expect(await cardsOf(customerId)).toEqual([]);
    const payments = await paymentsOf(customerId);
    expect(payments).toEqual([
      expect.objectContaining({ status: 'Failed', amount: 19.99, declineCode: code, source: 'SelfServicePortal' }),
    ]);
    const rows = await t.billing.database.db.selectFrom('paymentMethods').selectAll().where('customerId', '=', customerId).execute();
    expect(rows).toEqual([expect.objectContaining({ isDefault: false, removedAt: expect.any(Date) })]);
  });

  it('a failed collection leaves the cards the customer already had, and their default, alone', async () => {
    const customerId = await t.customer();
    const first = (await t.post(t.params(customerId))).json();
    const res = await t.post(
      t.params(customerId, { cardNumber: '4000000000009995', makeDefault: true, paymentCollectOptions: { collectionAmount: 5 } }),
    );
    expect(res.statusCode).toBe(400);
    expect(await cardsOf(customerId)).toEqual([expect.objectContaining({ id: first.id, isDefault: true })]);
  });
});

describe('a collection stored atomically with its card', () => {
  /** Charges succeed, then the customer disappears before the card and payment are stored (as if deleted meanwhile). */
  class VanishingCustomerGateway extends SandboxGateway {
    readonly refunds: string[] = [];
    constructor(
      private readonly db: typeof t.billing.database.db,
      private readonly elsewhere: number,
    ) {
      super(db);
    }
    override async charge(request: Parameters<SandboxGateway['charge']>[0]) {
      const outcome = await super.charge(request);
      await this.db.updateTable('customers').set({ accountId: this.elsewhere }).where('id', '=', vanishing).execute();
      return outcome;
    }
    override async refund(request: Parameters<SandboxGateway['refund']>[0]) {
      this.refunds.push(request.transactionId);
      return super.refund(request);
    }
  }
  let vanishing = 0;

  it('refunds the charge and stores nothing when storing fails after a successful charge', async () => {
    vanishing = await t.customer();
    const original = await t.billing.database.db
      .selectFrom('customers')
      .select('accountId')
      .where('id', '=', vanishing)
      .executeTakeFirstOrThrow();
    const vanishingGateway = new VanishingCustomerGateway(t.billing.database.db, (await t.billing.newAccount()).accountId);
    const app = await t.build({ gateway: vanishingGateway });
    const res = await t.post(t.params(vanishing, { paymentCollectOptions: { collectionAmount: '12.00' } }), { app });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Value).toMatch(/^payment failed: .*; the card was not kept$/);
    expect(vanishingGateway.refunds).toHaveLength(1);
    const cards = await t.billing.database.db.selectFrom('paymentMethods').select('id').where('customerId', '=', vanishing).execute();
    const payments = await t.billing.database.db.selectFrom('payments').select('id').where('customerId', '=', vanishing).execute();
    expect(cards).toEqual([]);
    expect(payments).toEqual([]);
    await t.billing.database.db.updateTable('customers').set({ accountId: original.accountId }).where('id', '=', vanishing).execute();
  });

  it('stores the card and its payment together on success: one card, one payment, the deposit on the ledger', async () => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '12.50' } }));
    expect(res.statusCode, res.body).toBe(200);
    const payments = await paymentsOf(customerId);
    expect(payments).toEqual([
      expect.objectContaining({ status: 'Succeeded', amount: 12.5, paymentMethodId: res.json().id, unallocatedAmount: 12.5 }),
    ]);
    expect(await cardsOf(customerId)).toEqual([expect.objectContaining({ id: res.json().id, isDefault: true })]);
  });
});

describe('what is stored', () => {
  it('keeps only the gateway token, brand, last four and expiry of the card', async () => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { cardNumber: '5555 5555 5555 4444', cvv: '987' }));
    expect(res.statusCode, res.body).toBe(200);
    const row = await t.billing.database.db
      .selectFrom('paymentMethods')
      .selectAll()
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ cardBrand: 'MasterCard', lastFour: '4444', expirationMonth: 12, expirationYear: 2030, isDefault: true });
    expect(row.gatewayToken).toMatch(/^sbx_ok_[0-9a-f]{24}$/);
    for (const value of Object.values(row)) {
      expect(String(value)).not.toContain('5555555555554444');
      expect(String(value)).not.toBe('987');
    }
  });

  it('records the change in the audit log as made through the card-capture host with the public key', async () => {
    const customerId = await t.customer();
    const card = (await t.post(t.params(customerId))).json();
    const entry = await t.billing.database.db
      .selectFrom('auditLog')
      .selectAll()
      .where('entityType', '=', 'PaymentMethod')
      .where('entityId', '=', String(card.id) as never)
      .executeTakeFirst();
    expect(entry).toMatchObject({ action: 'create', source: 'Card capture' });
  });
});

describe('defaults', () => {
  it('makes the first card the default even with makeDefault=false, later ones only with makeDefault=true', async () => {
    const customerId = await t.customer();
    const first = await t.post(t.params(customerId, { makeDefault: 'false' }), { encoding: 'form' });
    expect(first.json().isDefault).toBe(true);
    const second = await t.post(t.params(customerId, { cardNumber: '5555555555554444' }), { encoding: 'form' });
    expect(second.json().isDefault).toBe(false);
    // Without a capture token an existing default is never moved: makeDefault=true is refused, not ignored …
    const tokenless = await t.post(t.params(customerId, { cardNumber: '5555555555554444', makeDefault: 'true' }), { encoding: 'form' });
    expect(tokenless.statusCode, tokenless.body).toBe(400);
    expect(errorsOf(tokenless)[0]!.Key).toBe('makeDefault');
    // … with one (minted by the shop's server) it is.
    const captureToken = await t.captureToken(customerId);
    const third = await t.post(t.params(customerId, { cardNumber: '378282246310005', cvv: '0123', makeDefault: 'true', captureToken }), {
      encoding: 'form',
    });
    expect(third.statusCode, third.body).toBe(200);
    expect(third.json().isDefault).toBe(true);
    const fourth = await t.post(t.params(customerId, { makeDefault: false }));
    expect(fourth.json().isDefault).toBe(false);
    const cards = await cardsOf(customerId);
    expect(cards.map((c) => [c.id, c.isDefault])).toEqual([
      [first.json().id, false],
      [second.json().id, false],
      [third.json().id, true],
      [fourth.json().id, false],
    ]);
  });
});

describe('encodings and parameter names', () => {
  it.each(['json', 'form', 'query'] as const)('accepts the parameters as %s', async (encoding) => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '12.50' } }), { encoding });
    expect(res.statusCode, res.body).toBe(200);
    expect(await paymentsOf(customerId)).toEqual([
      expect.objectContaining({ status: 'Succeeded', amount: 12.5, paymentMethodId: res.json().id }),
    ]);
  });

  it('merges the query string with a JSON body', async () => {
    const customerId = await t.customer();
    const { publicApiKey, recaptcha, ...rest } = t.params(customerId);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/paymentsv2?publicApiKey=${encodeURIComponent(String(publicApiKey))}&recaptcha=${encodeURIComponent(String(recaptcha))}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(rest),
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('reads names in any case, the dotted collection amount, and g-recaptcha-response', async () => {
    const customerId = await t.customer();
    const p = t.params(customerId);
    const form = new URLSearchParams({
      CUSTOMERID: String(customerId),
      PublicApiKey: String(p.publicApiKey),
      cardnumber: '4242-4242-4242-4242',
      FirstName: 'Ada',
      LASTNAME: 'Lovelace',
      ExpirationMonth: '07',
      expirationyear: '31',
      CVV: '042',
      RiskToken: 'rt_1',
      ClientIP: '2001:db8::1',
      Email: 'ada@example.com',
      MakeDefault: 'TRUE',
      'g-recaptcha-response': String(p.recaptcha),
      'paymentcollectoptions.COLLECTIONAMOUNT': '3.00',
      unrelatedShopField: 'ignored',
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/API/PaymentsV2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ expirationMonth: 7, expirationYear: 31, isDefault: true });
    expect(await paymentsOf(customerId)).toEqual([expect.objectContaining({ status: 'Succeeded', amount: 3 })]);
  });

  it('reads PaymentCollectOptions as a nested JSON object in any case', async () => {
    const customerId = await t.customer();
    const { paymentCollectOptions: _, ...p } = t.params(customerId);
    const res = await t.post({ ...p, PaymentCollectOptions: { CollectionAmount: 7.25 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await paymentsOf(customerId)).toEqual([expect.objectContaining({ amount: 7.25 })]);
  });

  it('keeps the CVV a string, so a leading zero reaches the gateway, and passes the risk fields with the address the request came from', async () => {
    const customerId = await t.customer();
    const before = gateway.validated.length;
    const form = await t.post(t.params(customerId, { cvv: '012' }), { app: recording, encoding: 'form', remoteAddress: '198.51.100.23' });
    expect(form.statusCode, form.body).toBe(200);
    // The browser's own clientIp is not believed: it could name anyone.
    const json = await t.post(
      t.params(customerId, { cvv: '007', riskToken: 'rt_json', clientIp: '192.0.2.1', email: 'grace@example.com' }),
      { app: recording, remoteAddress: '198.51.100.24' },
    );
    expect(json.statusCode, json.body).toBe(200);
    expect(gateway.validated.slice(before).map((c) => [c.cvv, c.risk])).toEqual([
      ['012', { riskToken: 'rt_7f3a9c', clientIp: '198.51.100.23', email: 'ada@example.com' }],
      ['007', { riskToken: 'rt_json', clientIp: '198.51.100.24', email: 'grace@example.com' }],
    ]);
  });
});

describe('collecting a payment with the new card', () => {
  it('holds the amount as a deposit when the customer has no open invoice', async () => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '31.19' } }), { encoding: 'form' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ isDefault: true, maskedCardNumber: '************4242' });
    expect(await paymentsOf(customerId)).toEqual([
      expect.objectContaining({
        status: 'Succeeded',
        amount: 31.19,
        unallocatedAmount: 31.19,
        invoiceAllocations: [],
        paymentMethodId: res.json().id,
        source: 'SelfServicePortal',
      }),
    ]);
    const overview = (await t.billing.call('GET', `/v1/customers/${customerId}/overview`)).json();
    expect(overview.unallocatedPayments).toBe(31.19);
  });

  it('allocates the amount to the open invoices', async () => {
    const { customerId, invoices } = await activeCustomer(t.billing);
    const invoice = invoices[0]!;
    expect(invoice.outstandingBalance).toBeGreaterThan(0);
    // An Active customer: the shop's server mints a capture token for the amount due.
    const captureToken = await t.captureToken(customerId, { maxCollectionAmount: invoice.outstandingBalance });
    const res = await t.post(
      t.params(customerId, { paymentCollectOptions: { collectionAmount: invoice.outstandingBalance }, captureToken }),
    );
    expect(res.statusCode, res.body).toBe(200);
    const [payment] = await paymentsOf(customerId);
    expect(payment).toMatchObject({ status: 'Succeeded', amount: invoice.outstandingBalance, unallocatedAmount: 0 });
    expect(payment!.invoiceAllocations).toEqual([
      expect.objectContaining({ invoiceId: invoice.id, amount: invoice.outstandingBalance, outstandingBalance: 0 }),
    ]);
    const after = (await t.billing.call('GET', `/v1/Invoices/${invoice.id}`)).json();
    expect(after).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
  });

  it('pays what it can of the open invoice and leaves the rest owed', async () => {
    const { customerId, invoices } = await activeCustomer(t.billing);
    const invoice = invoices[0]!;
    expect(invoice.outstandingBalance).toBeGreaterThan(1.25);
    const captureToken = await t.captureToken(customerId);
    const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '1.25' }, captureToken }));
    expect(res.statusCode, res.body).toBe(200);
    const owed = Number((invoice.outstandingBalance - 1.25).toFixed(2));
    const [payment] = await paymentsOf(customerId);
    expect(payment).toMatchObject({ status: 'Succeeded', amount: 1.25, unallocatedAmount: 0, id: Number(res.headers['renew-payment-id']) });
    expect(payment!.invoiceAllocations).toEqual([
      expect.objectContaining({ invoiceId: invoice.id, amount: 1.25, outstandingBalance: owed }),
    ]);
    expect((await t.billing.call('GET', `/v1/Invoices/${invoice.id}`)).json()).toMatchObject({
      status: 'PartiallyPaid',
      outstandingBalance: owed,
    });
  });

  it("writes the card's and then the payment's webhook event, with a delivery to each subscribed endpoint", async () => {
    const db = t.billing.database.db;
    const endpoint = {
      accountId: t.billing.account.accountId,
      description: null,
      secret: 'whsec_dGVzdA',
      failingSince: null,
      deletedAt: null,
    };
    const [both, cardsOnly] = await db
      .insertInto('webhookEndpoints')
      .values([
        { ...endpoint, url: 'https://hooks.example.com/all', eventTypes: JSON.stringify(['paymentMethod.created', 'payment.succeeded']) },
        { ...endpoint, url: 'https://hooks.example.com/cards', eventTypes: JSON.stringify(['paymentMethod.created']) },
      ])
      .returning('id')
      .execute();
    try {
      const customerId = await t.customer();
      const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '12.00' } }));
      expect(res.statusCode, res.body).toBe(200);
      const events = await db
        .selectFrom('webhookEvents')
        .select(['id', 'eventType', 'payload'])
        .where('customerId', '=', customerId)
        .orderBy('id')
        .execute();
      expect(events.map((e) => e.eventType)).toEqual(['paymentMethod.created', 'payment.succeeded']);
      expect(events[0]!.payload).toMatchObject({ data: { id: res.json().id, customerId } });
      expect(events[1]!.payload).toMatchObject({
        data: { id: Number(res.headers['renew-payment-id']), amount: 12, paymentMethodId: res.json().id },
      });
      const deliveries = await db
        .selectFrom('webhookDeliveries')
        .select(['eventId', 'endpointId'])
        .where('customerId', '=', customerId)
        .orderBy('id')
        .execute();
      expect(deliveries).toEqual([
        { eventId: events[0]!.id, endpointId: both!.id },
        { eventId: events[0]!.id, endpointId: cardsOnly!.id },
        { eventId: events[1]!.id, endpointId: both!.id },
      ]);
    } finally {
      await db.updateTable('webhookEndpoints').set({ deletedAt: new Date() }).where('accountId', '=', endpoint.accountId).execute();
    }
  });

  it('refuses an amount with more decimals than the currency has, before storing the card', async () => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '10.005' } }));
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      { Key: 'paymentCollectOptions.collectionAmount', Value: 'USD amounts have at most 2 decimals', Code: 'value_invalid' },
    ]);
    expect(await cardsOf(customerId)).toEqual([]);
  });
});

describe('customers', () => {
  it('answers a customer the account does not have as it answers one it may not touch: nothing tells them apart', async () => {
    const unknown = await t.post(t.params(999_999));
    expect(unknown.statusCode).toBe(400);
    const { customerId: active } = await activeCustomer(t.billing);
    const notDraft = await t.post(t.params(active));
    expect(notDraft.statusCode).toBe(400);
    expect(errorsOf(unknown)).toEqual(errorsOf(notDraft));
    expect(errorsOf(unknown)[0]!.Key).toBe('captureToken');
  });

  it("cannot add a card to another account's customer", async () => {
    const other = await t.billing.newAccount();
    const theirs = await t.customer({}, other);
    const res = await t.post(t.params(theirs));
    expect(res.statusCode).toBe(400);
    const ok = await t.post(t.params(theirs, { publicApiKey: other.publicApiKey }));
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
