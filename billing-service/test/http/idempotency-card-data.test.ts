import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const ENDPOINT = 'POST /v1/paymentmethods/creditcard';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('idempotency records of card requests keep nothing derived from the card number or CVV', () => {
  it('stores a fingerprint that a card number and CVV cannot be recovered from', async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
    const body = {
      customerId,
      cardNumber: '4242424242424242',
      firstName: 'Ada',
      lastName: 'Lovelace',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
    };
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', body, { headers: { 'idempotency-key': 'card-fingerprint-1' } });
    expect(res.statusCode, res.body).toBe(200);
    const row = await t.database.db
      .selectFrom('idempotencyKeys')
      .selectAll()
      .where('key', '=', 'card-fingerprint-1')
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain('4242424242424242');
    expect(stored).not.toContain('"123"');

    // What an attacker holding the row would try: hash candidate bodies and compare. The stored
    // hash must not match a body carrying the true number and CVV, nor change with them.
    const candidates = [body, { ...body, cvv: '999' }, { ...body, cardNumber: '4000000000004242' }].map((b) =>
      JSON.stringify({ endpoint: ENDPOINT, body: b }),
    );
    for (const candidate of candidates) expect(row.requestHash).not.toBe(sha256(candidate));
  });

  it('treats a retry with the same key as the same request whatever CVV it carries, and another card (other last four) as another request (422)', async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
    const body = {
      customerId,
      cardNumber: '5555555555554444',
      firstName: 'Ada',
      lastName: 'Lovelace',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '321',
    };
    const headers = { 'idempotency-key': 'card-fingerprint-2' };
    const first = await t.call('POST', '/v1/paymentmethods/creditcard', body, { headers });
    expect(first.statusCode, first.body).toBe(200);
    const replay = await t.call('POST', '/v1/paymentmethods/creditcard', { ...body, cvv: '654' }, { headers });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().id).toBe(first.json().id);
    const other = await t.call('POST', '/v1/paymentmethods/creditcard', { ...body, cardNumber: '4242424242424242' }, { headers });
    expect(other.statusCode).toBe(422);
  });
});
