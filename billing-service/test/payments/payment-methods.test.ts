import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentGateway } from '../../src/gateway/payment-gateway.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { cardBody, newCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const card = (overrides: Record<string, unknown> = {}) => cardBody({ firstName: 'Grace', lastName: 'Hopper', cvv: '012', ...overrides });

describe('credit card payment methods', () => {
  it.each([
    ['4242424242424242', 'Visa', '4242'],
    ['5555555555554444', 'MasterCard', '4444'],
    ['378282246310005', 'AmericanExpress', '0005'],
  ])('stores the test card %s as %s with only its last four digits', async (cardNumber, cardType, lastFour) => {
    const customerId = await newCustomer(t);
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId,
      ...card({ cardNumber, cvv: cardType === 'AmericanExpress' ? '1234' : '123' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      maskedCardNumber: `************${lastFour}`,
      cardType,
      customerId,
      isDefault: true,
      storedInPlatformVault: true,
    });
    const row = await t.database.db.selectFrom('paymentMethods').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ lastFour, cardBrand: cardType, expirationMonth: 12, expirationYear: 2030 });
    expect(row.gatewayToken).toMatch(/^sbx_ok_/);
    expect(JSON.stringify(row)).not.toContain(cardNumber);
  });

  it.each([
    [{ cardNumber: '4242424242424241' }, 'cardNumber'],
    [{ cardNumber: '42424242' }, 'cardNumber'],
    [{ expirationMonth: 13 }, 'expirationMonth'],
    [{ expirationMonth: 0 }, 'expirationMonth'],
    [{ expirationYear: 20 }, 'expirationYear'],
    [{ expirationYear: 2030 }, 'expirationYear'],
    [{ cvv: '12' }, 'cvv'],
    [{ cvv: '12a' }, 'cvv'],
    [{ cardNumber: '378282246310005', cvv: '123' }, 'cvv'],
    [{ firstName: '' }, 'firstName'],
    [{ countryId: 124, stateId: 'US-NY' }, 'stateId'],
  ])('refuses %j with 400 keyed on %s before any gateway call', async (change, key) => {
    const customerId = await newCustomer(t);
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card(change) });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toContain(key);
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000000127', 'incorrect_cvc'],
  ])('answers a card the gateway refuses (%s) with a 400 validation error and keeps nothing', async (cardNumber, code) => {
    const customerId = await newCustomer(t);
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card({ cardNumber }) });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]).toMatchObject({ Key: 'Api Error' });
    expect(errorsOf(res)[0]!.Value).toContain(code);
    const rows = await t.database.db.selectFrom('paymentMethods').select('id').where('customerId', '=', customerId).execute();
    expect(rows).toEqual([]);
  });

  it('makes the first card the default, moves the default with isDefault, and billing settings follow', async () => {
    const customerId = await newCustomer(t);
    const before = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    expect(before.hasPaymentMethod).toBe(false);
    const first = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })).json();
    const second = (
      await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card({ cardNumber: '5555555555554444' }) })
    ).json();
    expect(second.isDefault).toBe(false);
    const third = (
      await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card({ cardNumber: '5555555555554444' }), isDefault: true })
    ).json();
    expect(third.isDefault).toBe(true);
    expect((await t.call('GET', `/v1/paymentMethods/${first.id}/creditCard`)).json().isDefault).toBe(false);
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    expect(setting).toMatchObject({ hasPaymentMethod: true, defaultPaymentMethodId: third.id });
    const list = await t.call('GET', `/v1/customers/${customerId}/paymentMethods/creditCard`);
    expect(list.json().map((m: { id: number }) => m.id)).toEqual([first.id, second.id, third.id]);
    expect(list.headers['x-count']).toBe('3');
  });

  it('updates name, address, expiry and default with PUT', async () => {
    const customerId = await newCustomer(t);
    const first = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })).json();
    const second = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })).json();
    const res = await t.call('PUT', '/v1/paymentMethods/creditCard', {
      ...second,
      firstName: 'Anita',
      expirationMonth: 1,
      expirationYear: 31,
      countryId: 124,
      stateId: 'CA-ON',
      isDefault: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      firstName: 'Anita',
      expirationMonth: 1,
      expirationYear: 31,
      country: 'Canada',
      state: 'Ontario',
      isDefault: true,
      maskedCardNumber: '************4242',
    });
    expect((await t.call('GET', `/v1/paymentMethods/${first.id}/creditCard`)).json().isDefault).toBe(false);
  });

  it('clears a card: 204, gone from the customer, the default passes to the newest card, autoCollect off when none is left', async () => {
    const customerId = await newCustomer(t);
    const first = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })).json();
    const second = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })).json();
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true });
    const removed = await t.call('DELETE', `/v1/paymentMethods/${first.id}/creditCard`);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await t.call('GET', `/v1/paymentMethods/${first.id}/creditCard`)).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/paymentMethods/${second.id}/creditCard`)).json().isDefault).toBe(true);
    await t.call('DELETE', `/v1/paymentMethods/${second.id}/creditCard`);
    const after = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    expect(after).toMatchObject({ hasPaymentMethod: false, autoCollect: false, defaultPaymentMethodId: null });
  });

  it('keeps cards of one account away from another (404)', async () => {
    const customerId = await newCustomer(t);
    const method = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })).json();
    const other = await t.newAccount();
    expect((await t.call('GET', `/v1/paymentMethods/${method.id}/creditCard`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('DELETE', `/v1/paymentMethods/${method.id}/creditCard`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() }, { as: other })).statusCode).toBe(404);
  });

  it('answers 504 when the gateway does not answer in time, and stores nothing', async () => {
    const hanging: PaymentGateway = {
      name: 'hanging',
      validateCard: () => new Promise(() => undefined),
      resumeCardValidation: () => new Promise(() => undefined),
      dueEvents: async () => [],
      acknowledgeEvents: async () => undefined,
      submitDisputeEvidence: () => new Promise(() => undefined),
      charge: () => new Promise(() => undefined),
      refund: () => new Promise(() => undefined),
      findRefund: () => new Promise(() => undefined),
    };
    const { buildApp } = await import('../../src/app.js');
    const { MemoryRateLimitStore } = await import('../../src/http/rate-limit.js');
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: 'https://billing.test',
      gateway: hanging,
      gatewayTimeoutMs: 200,
    });
    try {
      const customerId = await newCustomer(t);
      const res = await app.inject({
        method: 'POST',
        url: '/v1/paymentmethods/creditcard',
        headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ customerId, ...card() }),
      });
      expect(res.statusCode).toBe(504);
      expect(errorsOf(res)[0]!.Value).toMatch(/did not answer within 200 ms/);
      const rows = await t.database.db.selectFrom('paymentMethods').select('id').where('customerId', '=', customerId).execute();
      expect(rows).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('never writes a card number or CVV anywhere in the database', async () => {
    const customerId = await newCustomer(t);
    await t.call(
      'POST',
      '/v1/paymentmethods/creditcard',
      { customerId, ...card({ cardNumber: '5555 5555 5555 4444', cvv: '987' }) },
      { headers: { 'idempotency-key': 'card-once' } },
    );
    // Result keys are camel-cased by the database plugin.
    const tables = await sql<{ tableName: string }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(
      t.database.db,
    );
    expect(tables.rows.length).toBeGreaterThan(10);
    for (const { tableName: table_name } of tables.rows) {
      const dump = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(t.database.db);
      const text = dump.rows.map((r) => r.row).join('\n');
      expect(text, table_name).not.toContain('5555555555554444');
      expect(text, table_name).not.toContain('5555 5555 5555 4444');
      // The CVV as a stored value, not three digits inside a random gateway token.
      expect(text, table_name).not.toMatch(/"cvv"|(?<![0-9A-Za-z.])987(?![0-9A-Za-z.])/);
    }
  });
});

describe('logs', () => {
  it('never carry a card number or CVV, whatever the request', async () => {
    const { PassThrough } = await import('node:stream');
    const { buildApp } = await import('../../src/app.js');
    const { MemoryRateLimitStore } = await import('../../src/http/rate-limit.js');
    const { loggerOptions } = await import('../../src/http/logging.js');
    const stream = new PassThrough();
    let logged = '';
    stream.on('data', (chunk) => (logged += chunk));
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: 'https://billing.test',
      logger: loggerOptions('trace', stream),
    });
    try {
      const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
      const send = (body: unknown, query = '') =>
        app.inject({
          method: 'POST',
          url: `/v1/paymentmethods/creditcard${query}`,
          headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
      await send({
        customerId,
        cardNumber: '5555555555554444',
        cvv: '987',
        firstName: 'A',
        lastName: 'B',
        expirationMonth: 12,
        expirationYear: 30,
      });
      await send({
        customerId,
        cardNumber: '4000000000000002',
        cvv: '987',
        firstName: 'A',
        lastName: 'B',
        expirationMonth: 12,
        expirationYear: 30,
      });
      await send(
        { customerId, cardNumber: '5555555555554444', cvv: '98', firstName: 'A', lastName: 'B', expirationMonth: 12, expirationYear: 30 },
        '?cardNumber=5555555555554444&cvv=987',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(logged).toContain('/v1/paymentmethods/creditcard');
      expect(logged).not.toContain('5555555555554444');
      expect(logged).not.toContain('4000000000000002');
      expect(logged).not.toMatch(/cvv\W{1,4}987/);
      expect(logged).not.toContain(t.account.apiKey);
    } finally {
      await app.close();
    }
  });
});

describe('the default card under concurrency', () => {
  it('makes exactly one of several first cards added at the same time the default', async () => {
    // The lock statement's snapshot predates its wait: a count read there misses the card the
    // previous holder committed, so every card would think it is the first.
    for (let round = 0; round < 6; round++) {
      const customerId = await newCustomer(t);
      const added = await Promise.all(
        Array.from({ length: 4 }, () => t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })),
      );
      for (const res of added) expect(res.statusCode, res.body).toBe(200);
      const defaults = await t.database.db
        .selectFrom('paymentMethods')
        .select('id')
        .where('customerId', '=', customerId)
        .where('isDefault', '=', true)
        .execute();
      expect(defaults).toHaveLength(1);
      expect(added.filter((res) => res.json().isDefault)).toHaveLength(1);
    }
  });
});
